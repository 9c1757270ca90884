"""Request bodies through eddy to an origin slower than the client (issue 33): a body larger than
64 KiB goes upstream as it arrives, with back-pressure on the client, so that eddy holds a bounded
buffer per upload, not the body (evhttp read bodies whole: up to max_body_size per connection, and
curl kept a second copy). The origin here reads at a set rate and hashes what it reads."""
import hashlib, http.client, json, os, random, socket, threading, time
import pytest
from conftest import Eddy, MiB, free_port, proc_status, request, wait_for
from test_offline_trust import MODES, Hostile


def upload(port, path, body, chunked=False, conn=None):
    """POSTs `body` to eddy; (status, response body). On `conn` when given (kept open), else on a
    connection of its own."""
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    h = {"Content-Type": "application/octet-stream"}
    if chunked:
        h["Transfer-Encoding"] = "chunked"
        c.request("POST", path, body=(body[i:i + (1 << 20)] for i in range(0, len(body), 1 << 20)), headers=h, encode_chunked=True)
    else:
        c.request("POST", path, body=body, headers=h)
    r = c.getresponse()
    out = r.status, r.read()
    if conn is None:
        c.close()
    return out


def test_a_large_upload_reaches_a_slow_origin_whole_while_eddy_holds_little(eddy, origins):
    pid = eddy.proc.pid
    assert eddy.get("/n/small.bin").status == 200  # warm: the code paths of a pass-through are mapped
    for name, size, rate, chunked in [("sink-length", 48 * MiB, 24_000_000, False), ("sink-chunked", 32 * MiB, 24_000_000, True)]:
        body = random.Random(size).randbytes(size)
        base = proc_status(pid, "VmHWM")
        st, out = upload(eddy.port, "/f/%s?read_rate=%d" % (name, rate), body, chunked)
        assert st == 200, (name, st, out[:200])
        got = json.loads(out)
        assert got == {"method": "POST", "length": size, "sha256": hashlib.sha256(body).hexdigest()}, (name, got)
        grew = proc_status(pid, "VmHWM") - base
        print("%s: %d MiB through an origin reading %d MB/s; eddy's peak RSS grew %.1f MiB" % (name, size // MiB, rate // 1_000_000, grew / MiB))
        # Read whole, the body alone would be `size` bytes, and curl's copy as many again.
        assert grew < 16 * MiB, (name, grew)


def test_a_client_leaving_mid_upload_cuts_the_origins_request_and_eddy_serves_on(eddy, origins):
    _, fo, _ = origins
    s = socket.create_connection(("127.0.0.1", eddy.port), timeout=30)
    declared = 32 * MiB
    s.sendall(b"POST /f/sink-cut?read_rate=200000000 HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % declared)
    sent = 0
    piece = bytes(65536)
    while sent < 4 * MiB:
        s.sendall(piece)
        sent += len(piece)
    s.close()

    def origin_saw_the_cut():
        r = json.loads(request(fo.port, "/_last?path=/sink-cut").body)
        return r if r.get("length") is not None else None
    got = wait_for(origin_saw_the_cut, 20, what="the origin's record of the cut upload")
    assert 0 < got["length"] < declared, got
    r = eddy.get("/n/small.bin")
    assert r.status == 200
    assert eddy.proc.poll() is None


def test_uploads_from_many_clients_at_once_each_arrive_whole(eddy, origins):
    """Eight clients upload at once, to eight paths (so to resources at home on every loop, while
    their connections sit on whichever loop accepted them): each body reaches the origin whole."""
    import threading
    results, bodies = {}, {}
    for i in range(8):
        bodies[i] = random.Random(100 + i).randbytes(4 * MiB + i * 4099)

    def client(i):
        results[i] = upload(eddy.port, "/f/sink-many-%d?read_rate=40000000" % i, bodies[i], chunked=i % 2 == 1)
    ts = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    [t.start() for t in ts]
    [t.join(120) for t in ts]
    for i in range(8):
        st, out = results[i]
        assert st == 200, (i, st, out[:200])
        assert json.loads(out) == {"method": "POST", "length": len(bodies[i]), "sha256": hashlib.sha256(bodies[i]).hexdigest()}, i


def held(pid):
    """Descriptors `pid` holds, less its unix socket pairs: the wake-ups a loop opens once, on its
    first wake-up from another loop, which a test's upload may or may not be the first to need."""
    unix = {f[6] for f in (line.split() for line in open("/proc/net/unix").read().splitlines()[1:]) if len(f) > 6}
    n = 0
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue  # closed meanwhile
        n += not (link.startswith("socket:[") and link[8:-1] in unix)
    return n


def upload_while_reading(port, path, size, chunked):
    """Sends a `size`-byte body from one thread while the main one reads the answer, as a client
    does: an answer may come before the body is sent. Returns (status, headers, body, bytes sent)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    framing = b"Transfer-Encoding: chunked" if chunked else b"Content-Length: %d" % size
    s.sendall(b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\n%s\r\n\r\n" % (path.encode(), framing))
    sent = [0]

    def send():
        piece = bytes(64 << 10)
        try:
            while sent[0] < size:
                s.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                sent[0] += len(piece)
            if chunked:
                s.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # eddy answered and closed before the body was sent: the answer is what counts
    t = threading.Thread(target=send, daemon=True)
    t.start()
    f = s.makefile("rb")
    try:
        status_line = f.readline()
        headers = {}
        while True:
            line = f.readline()
            if line in (b"\r\n", b""):
                break
            k, v = line.decode().split(":", 1)
            headers[k.strip().lower()] = v.strip()
        body = f.read(int(headers.get("content-length", "0")))
    finally:
        try:
            s.shutdown(socket.SHUT_RDWR)  # wakes the sender (a close would not)
        except OSError:
            pass  # eddy closed the connection already
        t.join(30)
        f.close()
        s.close()
    return int(status_line.split()[1]), headers, body, sent[0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("chunked", [False, True], ids=["length", "chunked"])
def test_an_upload_to_a_dead_or_hostile_origin_gets_a_clear_answer_and_costs_nothing(origins, tmp_path, mode, chunked):
    """A 64 MiB upload meets an origin that refuses, black-holes (connects, never reads or
    answers), or is a captive portal answering at once with 200 HTML or a 302. The client gets a
    status line, within the timeouts, while its body is still going: a 502/504 of eddy's, or the
    portal's own answer relayed. eddy holds no more than its upload buffer, keeps no descriptor,
    and serves on."""
    ng, fo, _ = origins
    port = free_port()
    net, e = Hostile(port, mode), None
    try:
        # One loop: the warm-up opens the only loop's libcurl, so a socket left behind shows.
        e = Eddy(str(tmp_path), ng, fo, extra=["--origin", "/h/=http://127.0.0.1:%d" % port, "--workers", "1",
                                               "--connect-timeout", "3", "--stall-timeout", "3"])
        assert e.get("/n/small.bin").status == 200  # warm
        fds = held(e.proc.pid)
        base = proc_status(e.proc.pid, "VmHWM")
        t0 = time.monotonic()
        status, headers, body, sent = upload_while_reading(e.port, "/h/form", 64 * MiB, chunked)
        took = time.monotonic() - t0
        expected = {"refused": (502,), "blackhole": (502, 504), "portal200": (200,), "portal302": (302,)}[mode]
        assert status in expected, (mode, status, headers, body[:200])
        if mode == "portal200":
            assert headers["content-type"] == "text/html" and b"Log in" in body, (headers, body)
        if mode == "portal302":
            assert headers["location"].startswith("http://login.portal.example/"), headers
        assert took < 20, (mode, took)
        grew = proc_status(e.proc.pid, "VmHWM") - base
        print("%s/%s: %d in %.1f s after %d MiB sent; peak RSS grew %.1f MiB" % (mode, "chunked" if chunked else "length", status, took, sent // MiB, grew / MiB))
        assert grew < 16 * MiB, grew
        assert e.get("/n/small.bin").status == 200
        wait_for(lambda: held(e.proc.pid) <= fds, 20, what="eddy's descriptors back to where they were")
        assert e.proc.poll() is None
    finally:
        if e:
            e.stop()
        net.stop()


@pytest.mark.parametrize("seed", range(12))
def test_an_origin_dying_mid_upload_at_a_random_byte_gets_the_client_a_502_and_costs_nothing(eddy, origins, seed):
    """The origin reads a random part of the body (its first bytes, a few MiB, almost all of it),
    then closes the connection or resets it, without an answer; the client's body goes by length
    or in chunks, and the origin may read slower than the client sends. Over many seeds: the
    client gets a 502 while its body is still going, the origin read no more than it said, and
    eddy serves on. Three more of the same upload leave eddy with no more descriptors than the
    first did (less the wake-up pairs a loop opens once: see `held`)."""
    _, fo, _ = origins
    rng = random.Random(seed)
    size = rng.choice([1, 8, 24]) * MiB + rng.randrange(65536)
    drop = rng.choice([0, 1, rng.randrange(65536), rng.randrange(size), size - 1])
    chunked, reset = rng.random() < 0.5, rng.random() < 0.5
    rate = rng.choice([10**12, 40_000_000])
    path = "/sink-drop-%d" % seed
    target = "/f%s?drop_after_read=%d&reset=%d&read_rate=%d" % (path, drop, int(reset), rate)
    fds = []
    for attempt in range(4):
        status, headers, body, sent = upload_while_reading(eddy.port, target, size, chunked)
        print("seed %d: %d MiB %s, origin drops at %d (%s): %d after %d MiB sent" % (
            seed, size // MiB, "chunked" if chunked else "by length", drop, "reset" if reset else "close", status, sent // MiB))
        assert status == 502, (seed, status, headers, body[:200])
        got = json.loads(request(fo.port, "/_last?path=" + path).body)
        assert got["length"] <= drop, (seed, got)
        assert eddy.get("/n/small.bin").status == 200
        if attempt == 0:
            fds.append(held(eddy.proc.pid))
    wait_for(lambda: held(eddy.proc.pid) <= fds[0], 20, what="eddy's descriptors back to where the first upload left them (%d)" % fds[0])
    assert eddy.proc.poll() is None


def test_a_streamed_upload_goes_on_a_connection_of_its_own_and_a_small_one_may_reuse_one(eddy, origins):
    """Bytes of a streamed body are gone once sent, so curl could not resend one if a pooled
    connection turned out to have been closed by the origin as the request went (the keep-alive
    race): each streamed upload takes a new connection. A small body, held whole, may reuse one.
    The uploads share one client connection: each loop has a pool of its own, and a connection
    per upload could land each on another loop (with 4 loops, 3 small uploads took 3 pools)."""
    _, fo, _ = origins

    def ports(path, bodies):
        out = []
        c = http.client.HTTPConnection("127.0.0.1", eddy.port, timeout=120)
        try:
            for body in bodies:
                st, got = upload(eddy.port, "/f" + path, body, conn=c)
                assert st == 200 and json.loads(got)["sha256"] == hashlib.sha256(body).hexdigest(), (st, got[:200])
                out.append(json.loads(request(fo.port, "/_last?path=" + path).body)["peer_port"])
        finally:
            c.close()
        return out
    streamed = ports("/sink-fresh", [random.Random(i).randbytes(MiB + i) for i in range(3)])
    assert len(set(streamed)) == 3, streamed
    small = ports("/sink-small", [random.Random(i).randbytes(1000 + i) for i in range(3)])
    assert len(set(small)) < 3, small  # the pool may hold more than one of the origin's connections
