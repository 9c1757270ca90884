"""CONNECT tunnels (RFC 9110 section 9.3.6): off by default; when on, only to hosts admitted by
--allow-host and ports in connect_ports; a blind relay with flow control and half close, counted
in the metrics. Targets are a TLS nginx and an echo server of this file's own, both on loopback."""
import contextlib, hashlib, http.client, os, socket, ssl, threading, time
from conftest import Eddy, sha, wait_for


@contextlib.contextmanager
def echo_server():
    """A loopback TCP server that echoes each connection's bytes back, then closes its side when
    the client has closed its own (a half close). Yields (port, stats)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    stats = {"connections": 0, "closed": 0}
    stop = threading.Event()

    def serve(c):
        with c:
            while True:
                b = c.recv(65536)
                if not b:
                    break
                c.sendall(b)
            c.shutdown(socket.SHUT_WR)
        stats["closed"] += 1

    def accept():
        srv.settimeout(0.2)
        while not stop.is_set():
            try:
                c, _ = srv.accept()
            except socket.timeout:
                continue
            stats["connections"] += 1
            threading.Thread(target=serve, args=(c,), daemon=True).start()

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        yield srv.getsockname()[1], stats
    finally:
        stop.set()
        t.join(5)
        srv.close()


@contextlib.contextmanager
def tunnel_eddy(origins, tmp_path, ports, allow, idle=300):
    ng, fo, _ = origins
    conf = tmp_path / "eddy.yaml"
    conf.write_text("allow_connect: true\nconnect_ports: [%s]\nconnect_idle_timeout: %d\n" % (", ".join(map(str, ports)), idle))
    extra = ["--config", str(conf)]
    for a in allow:
        extra += ["--allow-host", a]
    e = Eddy(str(tmp_path), ng, fo, extra=extra)
    try:
        yield e
    finally:
        e.stop()


def connect(port, target, early=b""):
    """Sends CONNECT for `target` (plus `early` bytes right behind the head); returns the socket
    and the status line, with anything read past the head."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target.encode(), target.encode()) + early)
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(4096)
        if not b:
            break
        head += b
    line, _, rest = head.partition(b"\r\n")
    return s, line.decode(), head.partition(b"\r\n\r\n")[2]


def read_all(s):
    out = bytearray()
    while True:
        b = s.recv(65536)
        if not b:
            return bytes(out)
        out += b


def test_connect_off_by_default_is_405(eddy):
    s, line, _ = connect(eddy.port, "localhost:443")
    s.close()
    assert line.startswith("HTTP/1.1 405"), line
    assert eddy.metrics()["eddy_connect_refused_total"] == 1


def test_https_through_tunnel_is_byte_exact(origins, tls_origin, tmp_path):
    port, ca, log, data = tls_origin
    with tunnel_eddy(origins, tmp_path, [port], ["localhost"]) as e:
        ctx = ssl.create_default_context(cafile=ca)
        c = http.client.HTTPSConnection("127.0.0.1", e.port, context=ctx, timeout=30)
        c.set_tunnel("localhost", port)
        for name in ["medium.bin", "small.bin"]:  # two requests on one tunnel
            c.request("GET", "/" + name)
            r = c.getresponse()
            body = r.read()
            assert r.status == 200 and sha(body) == sha(data[name])
        c.close()
        wait_for(lambda: e.metrics()["eddy_connect_active"] == 0, 10, what="the tunnel closed")
        m = e.metrics()
        assert m["eddy_connect_tunnels_total"] == 1 and m["eddy_connect_active"] == 0
        assert m["eddy_connect_bytes_down_total"] > len(data["medium.bin"]) + len(data["small.bin"])
        assert m["eddy_cache_bytes"] == 0  # blind: nothing stored
        assert " 200 " in e.access_log().splitlines()[-1]


def test_early_bytes_large_echo_and_half_close(origins, tmp_path):
    with echo_server() as (port, stats), tunnel_eddy(origins, tmp_path, [port], ["127.0.0.1"]) as e:
        # Bytes sent right behind the head reach the target first.
        s, line, rest = connect(e.port, "127.0.0.1:%d" % port, early=b"hello ")
        assert line.startswith("HTTP/1.1 200"), line
        payload = os.urandom(24 << 20)
        got = bytearray(rest)

        def reader():
            while True:
                b = s.recv(1 << 16)
                if not b:
                    return
                got.extend(b)
        t = threading.Thread(target=reader)
        t.start()
        s.sendall(payload)
        s.shutdown(socket.SHUT_WR)  # half close: the echo of everything still comes back
        t.join(60)
        s.close()
        assert not t.is_alive()
        assert hashlib.sha256(bytes(got)).hexdigest() == hashlib.sha256(b"hello " + payload).hexdigest()
        wait_for(lambda: stats["closed"] == 1 and e.metrics()["eddy_connect_active"] == 0, 10, what="the tunnel closed at both ends")
        m = e.metrics()
        assert m["eddy_connect_active"] == 0 and stats["closed"] == 1
        assert m["eddy_connect_bytes_up_total"] == len(payload) + 6
        assert m["eddy_connect_bytes_down_total"] == len(payload) + 6


def test_slow_client_bounds_memory_and_client_close_ends_tunnel(origins, tls_origin, tmp_path):
    port, ca, _, data = tls_origin
    with tunnel_eddy(origins, tmp_path, [port], ["localhost"]) as e:
        ctx = ssl.create_default_context(cafile=ca)
        raw, line, _ = connect(e.port, "localhost:%d" % port)
        assert line.startswith("HTTP/1.1 200"), line
        s = ctx.wrap_socket(raw, server_hostname="localhost")
        rss = lambda: int(open("/proc/%d/status" % e.proc.pid).read().split("VmRSS:")[1].split()[0]) << 10
        before = rss()
        s.sendall(b"GET /medium.bin HTTP/1.1\r\nHost: localhost\r\n\r\n")
        s.recv(1000)  # the response has started; now stop reading for a while
        time.sleep(1.5)  # the subject: a client that does not read
        # 20 MB are on their way; eddy holds about Tunnel.highWater of them, the kernel's socket
        # buffers a few MB more, and the rest waits at the origin.
        grew = rss() - before
        print("rss growth", grew)
        assert grew < 4 << 20, grew
        assert e.metrics()["eddy_connect_active"] == 1
        s.close()
        wait_for(lambda: e.metrics()["eddy_connect_active"] == 0, 10, what="the tunnel closed")
        # Eddy still serves plain requests after the tunnel.
        assert e.get("/n/small.bin").status == 200


def test_refusals_create_no_connection(origins, tmp_path):
    with echo_server() as (port, stats), tunnel_eddy(origins, tmp_path, [port], ["127.0.0.1", "*.example"]) as e:
        cases = [
            ("127.0.0.1:%d" % (port + 1 if port < 65535 else port - 1), "403"),  # port not in connect_ports
            ("localhost:%d" % port, "403"),  # host not admitted
            ("a.example:%d" % port, "502"),  # admitted by wildcard, does not resolve
            ("127.0.0.1", "400"),  # no port
            ("/x", "400"),
        ]
        for target, status in cases:
            s, line, _ = connect(e.port, target)
            s.close()
            assert line.startswith("HTTP/1.1 " + status), (target, line)
        assert stats["connections"] == 0
        m = e.metrics()
        assert m["eddy_connect_refused_total"] == 4 and m["eddy_connect_failures_total"] == 1
        assert m["eddy_connect_tunnels_total"] == 0


def test_wildcard_does_not_reach_loopback(origins, tmp_path):
    with echo_server() as (port, stats), tunnel_eddy(origins, tmp_path, [port], ["*"]) as e:
        for target in ["127.0.0.1:%d" % port, "localhost:%d" % port]:
            s, line, _ = connect(e.port, target)
            s.close()
            assert line.startswith("HTTP/1.1 403"), (target, line)
        assert stats["connections"] == 0


def test_unreachable_target_is_502_and_idle_tunnel_closes(origins, tmp_path):
    with echo_server() as (port, stats):
        dead = socket.socket()
        dead.bind(("127.0.0.1", 0))
        dead_port = dead.getsockname()[1]  # bound, not listening: connection refused
        with tunnel_eddy(origins, tmp_path, [port, dead_port], ["127.0.0.1"], idle=1) as e:
            s, line, _ = connect(e.port, "127.0.0.1:%d" % dead_port)
            s.close()
            assert line.startswith("HTTP/1.1 502"), line
            s, line, _ = connect(e.port, "127.0.0.1:%d" % port)
            assert line.startswith("HTTP/1.1 200"), line
            t0 = time.time()
            s.settimeout(10)
            assert read_all(s) == b""  # closed by eddy for idleness
            assert time.time() - t0 < 5
            s.close()
        dead.close()
