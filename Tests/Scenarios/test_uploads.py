"""Request bodies through eddy to an origin slower than the client (issue 33): a body larger than
64 KiB goes upstream as it arrives, with back-pressure on the client, so that eddy holds a bounded
buffer per upload, not the body (evhttp read bodies whole: up to max_body_size per connection, and
curl kept a second copy). The origin here reads at a set rate and hashes what it reads."""
import hashlib, http.client, json, random, socket
from conftest import MiB, proc_status, request, wait_for


def upload(port, path, body, chunked=False):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    h = {"Content-Type": "application/octet-stream"}
    if chunked:
        h["Transfer-Encoding"] = "chunked"
        c.request("POST", path, body=(body[i:i + (1 << 20)] for i in range(0, len(body), 1 << 20)), headers=h, encode_chunked=True)
    else:
        c.request("POST", path, body=body, headers=h)
    r = c.getresponse()
    out = r.status, r.read()
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
