"""Several event loops (--workers): clients spread over every loop's listener still share one
origin fetch per resource, range and conditional answers are the same from any loop, and a
SIGTERM drains every loop."""
import http.client, json, os, re, signal, socket, subprocess, threading, time, urllib.parse
import pytest
from conftest import EDDY, MiB, Eddy, make_file, request, sha, wait_for


def loop_requests(eddy):
    """Requests each loop's listener accepted, from /metrics, by loop index."""
    m = eddy.metrics()
    return {int(k.split('"')[1]): v for k, v in m.items() if k.startswith("eddy_loop_requests_total")}


def random_file(fo, name, size):
    """A new file of `size` random bytes at the fault origin; returns its bytes."""
    body = os.urandom(size)
    with open(os.path.join(fo.www, name), "wb") as f:
        f.write(body)
    return body


@pytest.fixture(scope="module")
def eight(origins):
    ng, fo, _ = origins
    path = os.path.join(fo.www, "eight.bin")
    if not os.path.exists(path):
        make_file(path, 8 * MiB + 4321, 81)
        os.link(path, os.path.join(ng.www, "eight.bin"))
    return open(path, "rb").read()


def test_50_cold_clients_over_4_loops_cost_one_origin_fetch(origins, tmp_path, eight):
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "4"])
    try:
        assert e.metrics()["eddy_event_loops"] == 4
        fo.reset()
        results = [None] * 50

        def client(i):
            # A connection each: the kernel picks a loop per connection.
            results[i] = request(e.port, "/f/eight.bin?rate=4000000", timeout=60)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(50)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(90)
        assert all(r is not None and r.status == 200 and sha(r.body) == sha(eight) for r in results)
        ratio = fo.stats()["bytes"] / len(eight)
        print("origin/object ratio, 50 cold clients over 4 loops: %.4f" % ratio)
        assert ratio <= 1.02, ratio
        spread = loop_requests(e)
        print("requests per loop:", spread)
        assert sorted(spread) == [0, 1, 2, 3]
        assert sum(spread.values()) == 50, "the admin listener is not counted"
        assert all(n >= 1 for n in spread.values()), "every loop took clients: %s" % spread
    finally:
        assert e.stop() == 0


def test_ranges_heads_and_validators_are_the_same_from_every_loop(origins, tmp_path, eight):
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "3"])
    try:
        full = request(e.port, "/n/eight.bin")
        assert full.status == 200 and sha(full.body) == sha(eight)
        etag = full.h("etag")
        before = len(ng.requests())
        # 30 connections: each loop answers some of them, from the cache.
        for i in range(30):
            lo = (i * 271_829) % (len(eight) - 70_000)
            r = request(e.port, "/n/eight.bin", {"Range": "bytes=%d-%d" % (lo, lo + 65_999)})
            assert r.status == 206 and r.body == eight[lo:lo + 66_000], i
            assert r.h("content-range") == "bytes %d-%d/%d" % (lo, lo + 65_999, len(eight))
            assert r.h("cache-status").startswith("eddy; hit"), r.h("cache-status")
            h = request(e.port, "/n/eight.bin", method="HEAD")
            assert h.status == 200 and h.body == b"" and int(h.h("content-length")) == len(eight)
            c = request(e.port, "/n/eight.bin", {"If-None-Match": etag})
            assert c.status == 304 and c.body == b""
        assert len(ng.requests()) == before, "all of it from the cache"
        # The workers publish their counts every 0.1 s.
        wait_for(lambda: all(n >= 1 for n in loop_requests(e).values()), 5, what="every loop's requests published")
        spread = loop_requests(e)
        assert all(n >= 1 for n in spread.values()), spread
    finally:
        assert e.stop() == 0


def test_sigterm_drains_responses_on_every_loop(origins, tmp_path, eight):
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "4"])
    out = [None] * 12

    def client(i):
        # Every third passes through (credentials): the loop that took it runs it with its own
        # curl handle, and the drain waits for it as for the home loop's exchanges.
        auth = {"Authorization": "Bearer t"} if i % 3 == 0 else None
        out[i] = request(e.port, "/f/eight.bin?rate=4000000&c=%d" % i, auth, timeout=60)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    # Every response is under way (and paced over 2 s).
    wait_for(lambda: e.metrics()["eddy_upstream_active"] == 12, 10, what="the 12 responses under way")
    spread = loop_requests(e)
    e.proc.send_signal(signal.SIGTERM)
    for t in threads:
        t.join(60)
    assert e.proc.wait(30) == 0
    e.stop()
    assert sum(1 for n in spread.values() if n > 0) >= 2, "the responses were on several loops: %s" % spread
    assert all(r is not None and r.status == 200 and sha(r.body) == sha(eight) for r in out), "drained, not cut"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", e.port), timeout=1).close()


def test_workers_auto_is_one_loop_per_core(origins, tmp_path):
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "auto"])
    try:
        assert e.metrics()["eddy_event_loops"] == os.cpu_count()
        r = e.get("/n/small.bin")
        assert r.status == 200
    finally:
        assert e.stop() == 0


def loop_connections(eddy):
    """Open client connections on each loop, from /metrics (published every 0.1 s), by loop."""
    m = eddy.metrics()
    return {int(k.split('"')[1]): v for k, v in m.items() if k.startswith("eddy_loop_client_connections")}


def answer(sock):
    """The status and body of the response to a request written on `sock` by hand (the socket
    stays open for the next)."""
    r = http.client.HTTPResponse(sock)
    r.begin()
    return r.status, r.read()


def test_a_few_long_lived_clients_are_spread_evenly_over_the_loops(origins, tmp_path):
    """The kernel spreads a SO_REUSEPORT group's connections by a hash of their addresses: 12
    connections over 4 loops land 3 on each only 2% of the time, and a loop holding more of a LAN's
    few long-lived clients serves them on one core while another idles. A loop that accepts a
    connection while it holds more than another gives it to the one holding fewest
    (ConnectionBalance): 12 keep-alive clients end 3 on every loop, then 8 more 5 on every loop,
    and every request, the first sent before the connection changed loops included, is answered
    whole on whichever loop serves it."""
    ng, fo, data = origins
    small = data["small.bin"]
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "4"])
    conns = []
    try:
        assert request(e.port, "/n/small.bin").status == 200  # stored: the rest are hits
        wait_for(lambda: sum(loop_connections(e).values()) == 0, 5, what="the first connection closed")
        for want, n in [(3, 12), (5, 8)]:
            batch = []
            for _ in range(n):  # opened together, each sending its request at once
                s = socket.create_connection(("127.0.0.1", e.port), timeout=30)
                s.sendall(b"GET /n/small.bin HTTP/1.1\r\nHost: x\r\n\r\n")
                batch.append(s)
            for s in batch:
                status, body = answer(s)
                assert status == 200 and sha(body) == sha(small)
                conns.append(s)
            wait_for(lambda: sorted(loop_connections(e).values()) == [want] * 4, 5,
                     what=lambda: "%d connections on each loop: %s" % (want, loop_connections(e)))
        for s in conns:  # the next request on each, on the loop that holds it now
            s.sendall(b"GET /n/small.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=100-50099\r\n\r\n")
            status, body = answer(s)
            assert status == 206 and body == small[100:50100]
        m = e.metrics()
        assert m["eddy_client_connections"] == 20
        # Two requests on each connection, and the first request of all on one loop.
        spread = wait_for(lambda: (lambda r: sum(r.values()) == 41 and r)(loop_requests(e)), 5, what="41 requests published")
        print("handed off:", m["eddy_connections_handed_off_total"], "requests per loop:", spread)
        assert sorted(spread.values()) == [10, 10, 10, 11], spread
    finally:
        for s in conns:
            s.close()
        assert e.stop() == 0


@pytest.mark.parametrize("second", ["2", "1"])
def test_a_second_eddy_on_a_port_in_use_fails_instead_of_sharing_it(origins, tmp_path, second):
    """Every loop's listener has SO_REUSEPORT, which would let a second eddy bind the same port
    and silently take a share of the connections. The first listener of a group checks that the
    port is free: the second eddy (several loops or one) exits naming the port, and the first one
    keeps answering every connection."""
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2"])
    try:
        other = subprocess.run([EDDY, "serve", "--listen", "127.0.0.1:%d" % e.port, "--workers", second,
                                "--cache-dir", str(tmp_path / "other"), "--origin", "/n/=http://127.0.0.1:%d" % ng.port],
                               capture_output=True, text=True, timeout=30)
        assert other.returncode != 0, other
        assert "cannot listen on 127.0.0.1:%d" % e.port in other.stderr and "in use" in other.stderr, other.stderr
        before = e.metrics()["eddy_requests_total"]
        for _ in range(20):  # a connection each: all of them reach the first eddy
            assert request(e.port, "/n/small.bin").status == 200
        assert e.metrics()["eddy_requests_total"] - before == 20
    finally:
        assert e.stop() == 0


def test_small_hits_answered_on_a_worker_are_the_home_loops_answer(origins, tmp_path):
    """A plain small hit is answered on the worker that took it (eddy_snapshot_hits_total), with
    the same status, fields and body as from the home loop; a purge or a new version is seen by
    the next request on every loop."""
    ng, fo, data = origins
    tiny = random_file(fo, "tiny.bin", 20_000)
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2"])
    try:
        first = request(e.port, "/f/tiny.bin")
        assert first.status == 200 and first.body == tiny
        fields = None
        for i in range(40):  # a connection each: about half land on the worker
            r = request(e.port, "/f/tiny.bin")
            assert r.status == 200 and r.body == tiny
            assert r.h("cache-status").startswith("eddy; hit; ttl="), r.h("cache-status")
            got = sorted((k, v) for k, v in r.headers.items() if k not in ("date", "age", "cache-status"))
            assert fields is None or got == fields, (got, fields)
            fields = got
        m = e.metrics()
        assert m["eddy_snapshot_hits_total"] >= 5, m["eddy_snapshot_hits_total"]
        assert m["eddy_cache_hits_total"] >= 40 and m["eddy_requests_total"] >= 41
        hits = lambda: [l for l in open(e.logpath).read().splitlines() if "/f/tiny.bin" in l and " HIT " in l]
        wait_for(lambda: len(hits()) >= 40, 5, what="the hits logged")
        assert len(hits()) == 40, "every hit, from either loop, is in the access log"
        # Requests that change the answer go home: a range, a conditional.
        r = request(e.port, "/f/tiny.bin", {"Range": "bytes=10-19"})
        assert r.status == 206 and r.body == tiny[10:20]
        # A purge is seen by the very next request on any loop.
        fetched = lambda: fo.stats()["paths"].get("/tiny.bin", {}).get("requests", 0)
        before = fetched()
        p = request(e.admin, "/api/resources/" + urllib.parse.quote("/f/tiny.bin", safe=""), method="DELETE")
        assert p.status == 200, p.body
        for i in range(6):
            r = request(e.port, "/f/tiny.bin")
            assert r.status == 200 and r.body == tiny
            assert not r.h("cache-status").startswith("eddy; hit") or i > 0, r.h("cache-status")
        assert fetched() == before + 1, "fetched once again after the purge"
    finally:
        assert e.stop() == 0


def test_max_connections_bounds_every_loop_together(origins, tmp_path):
    """max_connections: 6 with 4 loops: the kernel spreads connections over the loops' listeners
    by a hash of their addresses, unevenly, yet the first 6 open connections are all served
    whichever loops they land on, the 7th gets 503, and closing one makes room again."""
    ng, fo, _ = origins
    cfg = tmp_path / "eddy.yaml"
    cfg.write_text("max_connections: 6\n")
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "4", "--config", str(cfg)])
    ask = b"GET /n/small.bin HTTP/1.1\r\nHost: x\r\n\r\n"

    def served(s):
        """Sends a request on `s` and reads the whole reply; its status."""
        s.sendall(ask)
        f = s.makefile("rb")
        status = int(f.readline().split()[1])
        length = 0
        while True:
            line = f.readline()
            if line in (b"\r\n", b""):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        assert len(f.read(length)) == length
        return status
    held = []
    try:
        for i in range(6):
            s = socket.create_connection(("127.0.0.1", e.port), timeout=10)
            held.append(s)
            assert served(s) == 200, "connection %d of 6" % (i + 1)
        extra = socket.create_connection(("127.0.0.1", e.port), timeout=10)
        assert served(extra) == 503
        extra.close()
        held.pop().close()

        def admitted():  # the loop that had it forgets the closed connection on its next turn
            s = socket.create_connection(("127.0.0.1", e.port), timeout=10)
            if served(s) == 200:
                return s
            s.close()
        held.append(wait_for(admitted, 10, what="a connection served again"))
    finally:
        for s in held:
            s.close()
        assert e.stop() == 0


def test_large_hits_and_ranges_are_answered_on_the_loop_that_took_them(origins, tmp_path, eight):
    """A plain hit of any size, and a Range of one span, is answered from the published snapshot
    (the data file through a descriptor of its own) on whichever loop took the request: the same
    status, fields and bytes as the home loop's exchange sends, and no origin request. Multipart
    and unsatisfiable ranges, and conditionals, still go home; a purge is seen at once."""
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2"])
    try:
        first = request(e.port, "/n/eight.bin")
        assert first.status == 200 and sha(first.body) == sha(eight)
        before = len(ng.requests())
        fields, n = None, len(eight)
        snap0 = e.metrics()["eddy_snapshot_hits_total"]
        t0 = time.monotonic()
        for i in range(30):  # a connection each: both loops answer
            if i % 3 == 0:
                r = request(e.port, "/n/eight.bin")
                assert r.status == 200 and sha(r.body) == sha(eight), i
            else:
                lo = (i * 1_048_583) % (n - 300_000)
                hi = lo + 200_000 + i
                r = request(e.port, "/n/eight.bin", {"Range": "bytes=%d-%d" % (lo, hi)})
                assert r.status == 206 and r.body == eight[lo:hi + 1], i
                assert r.h("content-range") == "bytes %d-%d/%d" % (lo, hi, n)
                assert int(r.h("content-length")) == hi + 1 - lo
            assert r.h("cache-status").startswith("eddy; hit; ttl="), r.h("cache-status")
            got = sorted((k, v) for k, v in r.headers.items()
                         if k not in ("date", "age", "cache-status", "content-range", "content-length"))
            assert fields is None or got == fields, (got, fields)
            fields = got
        # A suffix range and an open-ended one.
        r = request(e.port, "/n/eight.bin", {"Range": "bytes=-1000"})
        assert r.status == 206 and r.body == eight[-1000:] and r.h("content-range") == "bytes %d-%d/%d" % (n - 1000, n - 1, n)
        r = request(e.port, "/n/eight.bin", {"Range": "bytes=%d-" % (n - 5)})
        assert r.status == 206 and r.body == eight[-5:]
        # An entry answers for a second after the exchange that published it; then the next
        # request goes home and publishes again. So at most one per second (and one more per
        # loop) went home: the rest came from the snapshot, however slow this machine is.
        elapsed = time.monotonic() - t0
        snap1 = e.metrics()["eddy_snapshot_hits_total"]
        assert snap1 - snap0 >= max(5, 32 - int(elapsed) - 3), (snap0, snap1, elapsed)
        # What goes home: two spans (multipart), a range past the end (416), a conditional.
        r = request(e.port, "/n/eight.bin", {"Range": "bytes=0-9,100-109"})
        assert r.status == 206 and r.h("content-type").startswith("multipart/byteranges")
        assert eight[0:10] in r.body and eight[100:110] in r.body
        r = request(e.port, "/n/eight.bin", {"Range": "bytes=%d-" % (n + 10)})
        assert r.status == 416 and r.h("content-range") == "bytes */%d" % n
        r = request(e.port, "/n/eight.bin", {"If-None-Match": first.h("etag")})
        assert r.status == 304 and r.body == b""
        assert e.metrics()["eddy_snapshot_hits_total"] == snap1, "none of those from a snapshot"
        assert len(ng.requests()) == before, "all of it from the cache"
        log = lambda: [l for l in open(e.logpath).read().splitlines() if "/n/eight.bin" in l and " HIT " in l]
        wait_for(lambda: len(log()) >= 35, 5, what="the hits logged")
        assert len(log()) >= 35, "every hit, from either loop, is in the access log (%d)" % len(log())
        # A purge is seen by the very next request on any loop: the origin is asked again.
        p = request(e.admin, "/api/resources/" + urllib.parse.quote("/n/eight.bin", safe=""), method="DELETE")
        assert p.status == 200, p.body
        r = request(e.port, "/n/eight.bin", {"Range": "bytes=10-19"})
        assert r.status == 206 and r.body == eight[10:20]
        assert not r.h("cache-status").startswith("eddy; hit"), r.h("cache-status")
        # nginx logs a request once it has sent it, which may be after eddy answered from it.
        wait_for(lambda: len(ng.requests()) > before, 5, what="the origin's log of the fetch")
    finally:
        assert e.stop() == 0


def test_a_partly_stored_resource_answers_its_stored_spans_on_any_loop(origins, tmp_path, eight):
    """A player's seek into a large file leaves it partly stored. A span within the stored bytes is
    answered from the snapshot on whichever loop took it, as the home loop answers it (206, the
    bytes, no origin request); a span reaching into a hole, and the whole body, go home and are
    filled from the origin, with the right bytes."""
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2"])
    try:
        n, lo, hi = len(eight), 4 * MiB, 4 * MiB + 300_000
        r = request(e.port, "/n/eight.bin", {"Range": "bytes=%d-%d" % (lo, hi)})
        assert r.status == 206 and r.body == eight[lo:hi + 1]
        wait_for(lambda: not e.fills(), 10, what="the range's fill to end")
        got = request(e.admin, "/api/resources/" + urllib.parse.quote("/n/eight.bin", safe=""))
        assert got.status == 200, got.body
        j = json.loads(got.body)
        assert j["complete"] is False and j["holes"][-1][1] == n, j
        a, b = next((a, b) for a, b in j["ranges"] if a <= lo and hi < b)
        before, snap0, t0 = len(ng.requests()), e.metrics()["eddy_snapshot_hits_total"], time.monotonic()
        for i in range(30):  # a connection each: both loops answer
            x = a + (i * 104_729) % (b - a - 16384)
            r = request(e.port, "/n/eight.bin", {"Range": "bytes=%d-%d" % (x, x + 16383)})
            assert r.status == 206 and r.body == eight[x:x + 16384], i
            assert r.h("content-range") == "bytes %d-%d/%d" % (x, x + 16383, n)
            assert r.h("cache-status").startswith("eddy; hit; ttl="), r.h("cache-status")
        # As for a complete resource: at most one request per second (and one per loop) went home.
        snap1 = e.metrics()["eddy_snapshot_hits_total"]
        assert snap1 - snap0 >= max(5, 30 - int(time.monotonic() - t0) - 3), (snap0, snap1)
        assert len(ng.requests()) == before, "all of it from the cache"
        # Into the hole after the stored bytes: home, and the origin fills it.
        r = request(e.port, "/n/eight.bin", {"Range": "bytes=%d-%d" % (b - 100, b + 100)})
        assert r.status == 206 and r.body == eight[b - 100:b + 101]
        # nginx logs a request once it has sent it, which may be after eddy answered from it.
        wait_for(lambda: len(ng.requests()) > before, 5, what="the origin's log of the fetch")
        # The whole body: home, every byte.
        r = request(e.port, "/n/eight.bin")
        assert r.status == 200 and sha(r.body) == sha(eight)
        assert e.metrics()["eddy_snapshot_hits_total"] == snap1, "neither from a snapshot"
    finally:
        assert e.stop() == 0


def test_a_span_stored_after_the_snapshot_was_published_is_answered_from_it_at_once(origins, tmp_path, eight):
    """A player seeks again into a file still partly stored: the new span is fetched, and from its
    next hit at home on, the snapshot answers it, without waiting for the entry published before
    the seek (which did not hold the span) to expire."""
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2"])
    try:
        a, b = 1 * MiB, 6 * MiB
        span_a, span_b = {"Range": "bytes=%d-%d" % (a, a + 16383)}, {"Range": "bytes=%d-%d" % (b, b + 16383)}
        r = request(e.port, "/n/eight.bin", span_a)
        assert r.status == 206 and r.body == eight[a:a + 16384]
        wait_for(lambda: not e.fills(), 10, what="the first seek's fill to end")
        for _ in range(2):  # a plain hit at home publishes the snapshot of what is stored now
            assert request(e.port, "/n/eight.bin", span_a).body == eight[a:a + 16384]
        r = request(e.port, "/n/eight.bin", span_b)  # the next seek: home, and the origin
        assert r.status == 206 and r.body == eight[b:b + 16384]
        wait_for(lambda: not e.fills(), 10, what="the second seek's fill to end")
        r = request(e.port, "/n/eight.bin", span_b)  # a plain hit at home: published again
        assert r.status == 206 and r.body == eight[b:b + 16384]
        before, snap0 = len(ng.requests()), e.metrics()["eddy_snapshot_hits_total"]
        for _ in range(5):
            r = request(e.port, "/n/eight.bin", span_b)
            assert r.status == 206 and r.body == eight[b:b + 16384]
            assert r.h("content-range") == "bytes %d-%d/%d" % (b, b + 16383, len(eight))
        # All five from the snapshot; one may go home if a second passed (the entry's lifetime)
        # on a slow machine. Before, they all went home until the old entry expired.
        assert e.metrics()["eddy_snapshot_hits_total"] - snap0 >= 4, snap0
        assert len(ng.requests()) == before, "from the cache"
    finally:
        assert e.stop() == 0


def test_a_partly_stored_resource_gone_stale_is_not_answered_from_its_snapshot(origins, tmp_path):
    """A partly stored resource's snapshot lives no longer than its freshness: once the stored span
    is stale and the origin's file changed, requests get the new version's bytes (never a mix),
    and keep getting them."""
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2"])
    path = os.path.join(fo.www, "partstale.bin")
    old, new = os.urandom(8 * MiB), os.urandom(8 * MiB)
    try:
        open(path, "wb").write(old)
        os.utime(path, (1_000_000_000, 1_000_000_000))
        url, lo = "/f/partstale.bin?cc=max-age=2", 4 * MiB
        span = {"Range": "bytes=%d-%d" % (lo, lo + 16383)}
        # Stored, then answered from the cache (and its snapshot) while fresh. Each request is a new
        # connection, which the kernel's port hash gives to either loop: 20 make it all but certain
        # that some land away from the resource's home. A loop publishes its counts every 0.1 s.
        for _ in range(20):
            r = request(e.port, url, span)
            assert r.status == 206 and r.body == old[lo:lo + 16384]
        got = json.loads(request(e.admin, "/api/resources/" + urllib.parse.quote(url, safe="")).body)
        assert got["complete"] is False, got
        wait_for(lambda: e.metrics()["eddy_snapshot_hits_total"] >= 1, 2, what="a hit answered from the snapshot")
        open(path, "wb").write(new)
        os.utime(path, (1_100_000_000, 1_100_000_000))

        def fresh_bytes():
            r = request(e.port, url, span)
            assert r.status == 206 and r.body in (old[lo:lo + 16384], new[lo:lo + 16384]), "never a mix"
            return r.body == new[lo:lo + 16384]
        wait_for(fresh_bytes, 15, what="the new version once the stored one is stale")
        for _ in range(10):
            r = request(e.port, url, span)
            assert r.status == 206 and r.body == new[lo:lo + 16384]
    finally:
        assert e.stop() == 0
        os.unlink(path)


def _send_get(port, path, headers=""):
    """A connection that asks for `path` and reads nothing yet (a small receive buffer)."""
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n" % (path, headers)).encode())
    return s


def _read_reply(s, timeout=60):
    """Status, fields and the whole body (Content-Length) of the reply on `s`."""
    s.settimeout(timeout)
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        assert chunk, "connection closed before the head"
        buf += chunk
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    fields = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:])}
    want = int(fields["content-length"])
    while len(body) < want:
        chunk = s.recv(1 << 20)
        assert chunk, "short body: %d of %d" % (len(body), want)
        body += chunk
    s.close()
    return int(lines[0].split()[1]), fields, body


def test_eviction_does_not_punch_holes_under_a_snapshot_answer(origins, tmp_path):
    """A client still reading a large hit answered from a snapshot gets every byte while the cache,
    over its size, frees blocks of that resource (kept in use by an exchange reading its tail):
    the snapshot's send protects the file as a response's ticket does."""
    ng, fo, _ = origins
    path = os.path.join(ng.www, "punch.bin")
    make_file(path, 16 * MiB, 77)
    make_file(os.path.join(ng.www, "punch2.bin"), 16 * MiB, 78)
    body = open(path, "rb").read()
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2", "--max-size", "24M"])
    try:
        first = e.get("/n/punch.bin")
        assert sha(first.body) == sha(body)
        etag = first.h("etag")

        # A hit the exchange answers publishes the file for the next second: ask until one does
        # (a one-byte range, answered at once), then start the reader within that second.
        def to_the_exchange():
            snap0 = e.metrics()["eddy_snapshot_hits_total"]
            assert request(e.port, "/n/punch.bin", {"Range": "bytes=0-0"}).status == 206
            return e.metrics()["eddy_snapshot_hits_total"] == snap0
        wait_for(to_the_exchange, 10, what="a request that went to the exchange")
        snap0 = e.metrics()["eddy_snapshot_hits_total"]
        reader = _send_get(e.port, "/n/punch.bin")
        wait_for(lambda: e.metrics()["eddy_snapshot_hits_total"] > snap0, 5, what="the reader answered")
        assert e.metrics()["eddy_snapshot_hits_total"] == snap0 + 1, "answered from the snapshot"
        # An exchange reading the last 4 MiB keeps the resource in use; what it does not need
        # is evictable by the block, and a second 16 MiB object takes the cache over 24 MiB.
        taken = e.metrics()["eddy_requests_total"]
        tail = _send_get(e.port, "/n/punch.bin", "Range: bytes=%d-\r\nIf-Range: %s\r\n" % (12 * MiB, etag))
        wait_for(lambda: e.metrics()["eddy_requests_total"] > taken, 5, what="the tail's exchange started")
        assert e.get("/n/punch2.bin").status == 200
        wait_for(lambda: e.metrics()["eddy_cache_bytes"] <= 24 * MiB, 5, what="the cache evicted back to 24 MiB")
        status, fields, got = _read_reply(reader)
        assert status == 200 and len(got) == len(body)
        assert sha(got) == sha(body), "zeros where blocks were punched under the reader"
        status, fields, got = _read_reply(tail)
        assert status == 206 and got == body[12 * MiB:]
    finally:
        assert e.stop() == 0


def test_playlists_are_answered_on_the_loop_that_took_them(origins, tmp_path, streams):
    """A playlist hit is answered from the snapshot as the home loop sends it: rewritten for the
    request's URL form, whole whatever the Range, with the same fields. A live playlist's answers
    carry no ttl (the live rule decides), and none is older than half its target duration."""
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2"])
    try:
        for path in ["/n/hls/fmp4/master.m3u8", "/n/hls/fmp4/hi/index.m3u8"]:
            first = request(e.port, path)
            assert first.status == 200 and b"#EXTM3U" in first.body
            snap0 = e.metrics()["eddy_snapshot_hits_total"]
            fields = None
            for i in range(24):
                r = request(e.port, path, {"Range": "bytes=0-9"} if i % 4 == 3 else None)
                assert r.status == 200 and r.body == first.body, (path, i)
                assert r.h("cache-status").startswith("eddy; hit; ttl="), r.h("cache-status")
                assert r.h("accept-ranges") == "none" and r.h("etag") is None
                got = sorted((k, v) for k, v in r.headers.items() if k not in ("date", "age", "cache-status"))
                assert fields is None or got == fields, (got, fields)
                fields = got
            assert e.metrics()["eddy_snapshot_hits_total"] - snap0 >= 12, path
        # A live playlist: target duration 2 s, so a stored copy answers for 1 s after the origin.
        d = os.path.join(ng.www, "hls", "wlive")
        os.makedirs(d, exist_ok=True)

        def write(seq):
            lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:%d" % seq, "#" + "v" * seq]
            for i in range(seq, seq + 3):
                lines += ["#EXTINF:2.0,", "seg%d.ts" % i]
            open(os.path.join(d, "index.m3u8.tmp"), "w").write("\n".join(lines) + "\n")
            os.replace(os.path.join(d, "index.m3u8.tmp"), os.path.join(d, "index.m3u8"))
            return time.monotonic()

        written = {0: write(0)}
        snap0 = e.metrics()["eddy_snapshot_hits_total"]
        end, seq = time.monotonic() + 5, 0
        while time.monotonic() < end:
            if time.monotonic() - written[seq] > 0.7:
                seq += 1
                written[seq] = write(seq)
            t = time.monotonic()
            r = request(e.port, "/n/hls/wlive/index.m3u8")
            assert r.status == 200
            got = int(re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", r.body.decode()).group(1))
            if got + 1 in written:  # replaced at the origin: not longer than 1 s (+ slack) before asking
                assert written[got + 1] >= t - 1.0 - 0.15, ("older than half the target", got, r.h("cache-status"))
            assert "ttl=" not in r.h("cache-status"), r.h("cache-status")
            time.sleep(0.02)  # the subject: a player polling the live playlist
        assert e.metrics()["eddy_snapshot_hits_total"] - snap0 >= 10
    finally:
        assert e.stop() == 0


def loop_fetches(eddy):
    """Upstream requests each loop made, from /metrics, by loop index."""
    m = eddy.metrics()
    return {int(k.split('"')[1]): v for k, v in m.items() if k.startswith("eddy_loop_upstream_fetches_total")}


def test_pass_through_runs_on_the_loop_that_took_it(origins, tmp_path):
    """Requests that need no resource (an unsafe method, credentials) are passed through by the
    loop that took them, with its own curl handle: the origin gets each once with its body, the
    client gets the origin's answer, the counters add up over the loops, and an unsafe method
    answered on a worker still invalidates what the home loop stored (RFC 9111 section 4.4)."""
    ng, fo, data = origins
    inval = random_file(fo, "worker-inval.bin", 30_000)
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2"])
    try:
        m0 = e.metrics()
        for i in range(24):
            body = os.urandom(1000 + i)
            c = http.client.HTTPConnection("127.0.0.1", e.port, timeout=30)
            c.request("POST", "/f/post/%d" % i, body=body, headers={"Content-Type": "application/octet-stream"})
            r = c.getresponse()
            got = json.loads(r.read())
            c.close()
            assert r.status == 200 and got == {"method": "POST", "length": len(body), "sha256": sha(body)}, got
            assert "fwd=bypass" in r.getheader("Cache-Status") and "eddy" in r.getheader("Via")
            r = request(e.port, "/f/worker-inval.bin?a=%d" % i, {"Authorization": "Bearer x"})
            assert r.status == 200 and r.body == inval and "detail=authorization" in r.h("cache-status")

        def counted():  # the workers publish their counts every 0.1 s
            m = e.metrics()
            return all(m[k] - m0[k] >= 48 for k in ["eddy_bypass_total", "eddy_upstream_fetches_total", "eddy_requests_total"]) and m
        m = wait_for(counted, 5, what="the 48 requests counted")
        assert m["eddy_bypass_total"] - m0["eddy_bypass_total"] == 48
        assert m["eddy_upstream_fetches_total"] - m0["eddy_upstream_fetches_total"] == 48
        assert m["eddy_requests_total"] - m0["eddy_requests_total"] == 48
        fetches = loop_fetches(e)
        assert sorted(fetches) == [0, 1] and all(n >= 1 for n in fetches.values()), fetches
        assert sum(fetches.values()) == m["eddy_upstream_fetches_total"]
        lines = lambda: [l for l in open(e.logpath).read().splitlines() if "/f/post/" in l]
        wait_for(lambda: len(lines()) >= 24, 5, what="the pass-throughs logged")
        assert len(lines()) == 24, "every pass-through, from either loop, is in the access log"
        # Invalidation: a stored response, then an unsafe method on a new connection (either
        # loop), then the next GET must go to the origin.
        for i in range(6):
            assert request(e.port, "/f/worker-inval.bin").status == 200
            r = request(e.port, "/f/worker-inval.bin")
            assert r.status == 200 and r.h("cache-status").startswith("eddy; hit"), r.h("cache-status")
            assert request(e.port, "/f/worker-inval.bin", method="DELETE").status == 200
            r = request(e.port, "/f/worker-inval.bin")
            assert r.status == 200 and r.body == inval
            assert not r.h("cache-status").startswith("eddy; hit"), (i, r.h("cache-status"))
        assert m["eddy_invalidations_total"] < e.metrics()["eddy_invalidations_total"]
    finally:
        assert e.stop() == 0


def test_tunnels_run_on_every_loop_and_a_drain_closes_them(origins, tmp_path):
    """With allow_connect, eddy keeps its loops: each CONNECT tunnel runs on the loop that took
    its connection, relays byte-exact, and a SIGTERM closes the tunnels on every loop (they do
    not hold the drain)."""
    from test_connect import connect, echo_server
    ng, fo, _ = origins
    with echo_server() as (port, stats):
        conf = tmp_path / "eddy.yaml"
        conf.write_text("allow_connect: true\nconnect_ports: [%d]\n" % port)
        e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2", "--config", str(conf), "--allow-host", "127.0.0.1"])
        socks = []
        try:
            assert e.metrics()["eddy_event_loops"] == 2
            for i in range(12):
                s, line, rest = connect(e.port, "127.0.0.1:%d" % port)
                assert line.startswith("HTTP/1.1 200"), line
                payload = os.urandom(50_000 + i)
                s.sendall(payload)
                got = bytearray(rest)
                while len(got) < len(payload):
                    b = s.recv(65536)
                    assert b, "tunnel closed early"
                    got += b
                assert bytes(got) == payload, i
                socks.append(s)
            # The workers publish their counts every 0.1 s.
            wait_for(lambda: sum(loop_requests(e).values()) >= 12, 5, what="the 12 tunnels counted")
            spread = loop_requests(e)
            assert all(n >= 1 for n in spread.values()), "tunnels on every loop: %s" % spread
            m = e.metrics()
            assert m["eddy_connect_tunnels_total"] == 12 and m["eddy_connect_active"] == 12, m
            t0 = time.monotonic()
            e.proc.send_signal(signal.SIGTERM)
            assert e.proc.wait(15) == 0
            assert time.monotonic() - t0 < 10, "open tunnels did not hold the drain"
            for s in socks:  # each tunnel was closed by eddy
                s.settimeout(5)
                while s.recv(65536):
                    pass
        finally:
            for s in socks:
                s.close()
            e.stop()


def test_every_loop_is_home_to_a_share_of_the_resources(origins, tmp_path):
    """Each loop is the home of the resources whose keys hash to it (their coordinator, fills and
    cache stripe): 40 cold resources, whichever loop took their requests, are fetched by both
    loops' curl handles, each once. The stripes share one budget: a 2 MiB cache of 4 MiB of resources
    stays within it while both loops fill and evict. The layout on disk does not depend on the
    loops: after a restart with one loop, what is still stored is a hit."""
    ng, fo, _ = origins
    files = {"home-%d.bin" % i: random_file(fo, "home-%d.bin" % i, 100_000) for i in range(40)}
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2", "--max-size", "2M"])
    try:
        before = loop_fetches(e)
        for name, body in files.items():
            r = request(e.port, "/f/" + name)
            assert r.status == 200 and r.body == body, name
        fetches = loop_fetches(e)
        assert all(fetches[i] - before.get(i, 0) >= 5 for i in (0, 1)), (before, fetches)
        assert sum(fetches.values()) - sum(before.values()) == 40
        paths = fo.stats()["paths"]
        assert all(paths["/" + name]["requests"] == 1 for name in files), paths
        m = e.metrics()
        assert m["eddy_cache_bytes"] <= 2 * MiB and m["eddy_evictions_total"] >= 15, m
    finally:
        e.stop()
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "1", "--max-size", "2M"])
    try:
        hits = 0
        for name in list(files)[-5:]:
            r = request(e.port, "/f/" + name)
            assert r.status == 200 and r.body == files[name]
            hits += r.h("cache-status").startswith("eddy; hit")
        assert hits == 5, "the five most recent resources are still stored, whichever loop stored them"
        assert all(fo.stats()["paths"]["/" + n]["requests"] == 1 for n in list(files)[-5:])
    finally:
        e.stop()


def test_resource_listing_pages_through_every_home(origins, tmp_path):
    """GET /api/resources lays what every home holds in memory (newer than the index, or not
    committed yet) over the index: paging by 7 over 30 resources spread over two homes, at once
    after they were fetched, lists each once, in key order, and a purge by prefix empties it."""
    ng, fo, _ = origins
    names = ["list-%02d.bin" % i for i in range(30)]
    for n in names:
        random_file(fo, n, 2_000)
    e = Eddy(str(tmp_path), ng, fo, extra=["--workers", "2"])
    try:
        for n in names:
            assert request(e.port, "/f/" + n).status == 200
        prefix = "http://127.0.0.1:%d/list-" % fo.port
        seen, cursor = [], None
        for _ in range(10):
            q = "/api/resources?limit=7&prefix=" + urllib.parse.quote(prefix, safe="")
            r = request(e.admin, q + ("&cursor=" + urllib.parse.quote(cursor) if cursor else ""))
            assert r.status == 200, r.body
            page = json.loads(r.body)
            seen += [x["key"] for x in page["resources"]]
            cursor = page["next_cursor"]
            if not cursor:
                break
        assert seen == sorted("http://127.0.0.1:%d/%s" % (fo.port, n) for n in names), seen
        r = request(e.admin, "/api/resources?prefix=" + urllib.parse.quote(prefix, safe=""), method="DELETE")
        assert r.status == 200 and json.loads(r.body) == {"purged": 30, "pinned_kept": 0}, r.body
        r = request(e.admin, "/api/resources?prefix=" + urllib.parse.quote(prefix, safe=""))
        assert json.loads(r.body)["resources"] == []
    finally:
        e.stop()
