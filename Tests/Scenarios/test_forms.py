"""URL forms, the host policy, and bad input."""
import socket, time
from conftest import Eddy, request, wait_for


def raw(port, data, timeout=5):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(data)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
            if b"\r\n\r\n" in out:
                break
    except socket.timeout:
        pass
    s.close()
    return out


def test_url_prefix_form_needs_allow_host(eddy, origins):
    ng, _, data = origins
    r = eddy.get("/http://127.0.0.1:%d/small.bin" % ng.port)
    assert r.status == 403


def test_url_prefix_and_forward_forms_with_explicit_host(origins, tmp_path):
    ng, fo, data = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--allow-host", "127.0.0.1:%d" % ng.port])
    try:
        r = e.get("/http://127.0.0.1:%d/small.bin" % ng.port)
        assert r.status == 200 and r.body == data["small.bin"]
        r = e.get("http://127.0.0.1:%d/small.bin" % ng.port)  # absolute-form, as a forward proxy
        assert r.status == 200 and r.body == data["small.bin"]
        assert r.h("cache-status").startswith("eddy; hit"), "both forms share one cache key"
    finally:
        e.stop()


def test_wildcard_allow_refuses_loopback(origins, tmp_path):
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--allow-host", "*"])
    try:
        assert e.get("/http://127.0.0.1:%d/small.bin" % ng.port).status == 403
        assert e.get("/http://localhost:%d/small.bin" % ng.port).status == 403
    finally:
        e.stop()


def test_connect_is_405(eddy):
    out = raw(eddy.port, b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 405") and b"allow_connect" in out, out[:120]


def test_trace_is_405_with_allow(eddy):
    r = eddy.get("/n/small.bin", method="TRACE")
    assert r.status == 405 and "POST" in r.h("allow") and "TRACE" not in r.h("allow")


def test_unknown_path_is_404_with_reason(eddy):
    r = eddy.get("/nowhere/x")
    assert r.status == 404 and b"no origin" in r.body


def test_malformed_request_line_is_400(eddy):
    assert raw(eddy.port, b"GARBAGE\r\n\r\n").startswith(b"HTTP/1.1 400")


def test_long_uri_is_414(eddy):
    r = eddy.get("/n/" + "a" * 9000)
    assert r.status == 414


def test_huge_headers_are_refused(eddy):
    out = raw(eddy.port, b"GET /n/small.bin HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")
    assert out == b"" or out.split(b" ")[1].startswith(b"4"), out[:60]
    assert eddy.get("/n/small.bin").status == 200, "the process survives"


def test_via_on_requests_and_responses(eddy, origins):
    ng = origins[0]
    start = len(ng.requests())
    r = eddy.get("/n/small.bin?via")
    assert "1.1 eddy" in r.h("via")
    seen = [via for _, _, via, uri in ng.requests()[start:] if uri == "/small.bin?via"]
    assert seen == ["1.1 eddy"], seen


def test_sigterm_lets_a_response_in_flight_finish(eddy, origins):
    import threading, signal
    _, fo, data = origins
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", eddy.get("/f/medium.bin?rate=8000000", timeout=30)))
    t.start()
    wait_for(lambda: [f for f in eddy.fills() if "medium.bin" in f["url"] and f["bytes"] >= 4_000_000], 20,
             what="the response under way")
    eddy.proc.send_signal(signal.SIGTERM)
    t.join(30)
    assert eddy.proc.wait(30) == 0
    assert out["r"].status == 200 and out["r"].body == data["medium.bin"], "drained, not cut"


def test_idle_connection_is_closed_after_the_timeout(origins, tmp_path):
    ng, fo, _ = origins
    cfg = tmp_path / "eddy.yaml"
    cfg.write_text("idle_timeout: 1\n")
    e = Eddy(str(tmp_path), ng, fo, extra=["--config", str(cfg)])
    try:
        s = socket.create_connection(("127.0.0.1", e.port), timeout=5)
        t0 = time.monotonic()
        assert s.recv(10) == b"", "closed by eddy"
        assert time.monotonic() - t0 < 4
        s.close()
    finally:
        e.stop()


def test_access_log_line(eddy, origins):
    eddy.get("/n/small.bin", {"User-Agent": "pytest-agent"})
    eddy.get("/n/small.bin", {"Range": "bytes=0-9"})
    lines = eddy.access_log().splitlines()
    assert '"GET /n/small.bin HTTP/1.1" 200' in lines[0] and '"pytest-agent"' in lines[0]
    parts = lines[1].split()
    assert parts[-4] == "HIT" and parts[-3] == "10" and parts[-2] == "0"
