"""Origins that lie about framing (issue 57): two Content-Lengths, a Content-Length beside chunked,
a length shorter or longer than the body, a body that looks like a response. Whatever the origin
does, a client reads exactly one response per request, each either the origin's bytes as that
response or an error, on cacheable and pass-through paths, with keep-alive and pipelined
clients; a lie is never stored. `lying_origin.py` writes the raw bytes."""
import socket, time
import pytest
from conftest import Eddy
from lying_origin import LyingOrigin

INJECTED = b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\nCache-Control: max-age=60\r\n\r\nINJECTED"
CLEAN = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nCache-Control: max-age=60\r\n\r\nclean"


@pytest.fixture(scope="module")
def lo():
    o = LyingOrigin()
    o.script("/clean", CLEAN)
    yield o
    o.stop()


@pytest.fixture(scope="module")
def ed(origins, lo, tmp_path_factory):
    ng, fo, _ = origins
    e = Eddy(str(tmp_path_factory.mktemp("lying")), ng, fo, extra=["--origin", f"/l/=http://127.0.0.1:{lo.port}"])
    yield e
    e.stop()


def read_responses(sock, methods, timeout=15):
    """Reads one response per request method in `methods`, framed as RFC 9112 section 6.3 says,
    then whatever else arrives before the connection closes or goes quiet for a second. Returns
    ([(status, headers, body, complete)], leftover bytes, closed)."""
    sock.settimeout(timeout)
    buf, out, closed = b"", [], False

    def more(wait=timeout):
        nonlocal buf, closed
        sock.settimeout(wait)
        try:
            d = sock.recv(65536)
        except socket.timeout:
            return False
        except ConnectionResetError:
            d = b""
        if not d:
            closed = True
            return False
        buf += d
        return True

    for method in methods:
        while b"\r\n\r\n" not in buf:
            if not more():
                return out, buf, closed
        head, buf = buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        h = {}
        for l in lines[1:]:
            k, v = l.split(":", 1)
            h.setdefault(k.strip().lower(), []).append(v.strip())
        body, complete = b"", True
        if method == "HEAD" or status in (204, 304):
            pass
        elif "content-length" in h:
            assert len(h["content-length"]) == 1, h  # eddy declares one length
            n = int(h["content-length"][0])
            while len(buf) < n and (more() or False):
                pass
            body, buf, complete = buf[:n], buf[n:], len(buf) >= n
        elif h.get("transfer-encoding") == ["chunked"]:
            while True:
                while b"\r\n" not in buf:
                    if not more():
                        return out + [(status, h, body, False)], buf, closed
                size_line, rest = buf.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                while len(rest) < size + 2:
                    if not more():
                        return out + [(status, h, body, False)], buf, closed
                    size_line, rest = buf.split(b"\r\n", 1)
                body += rest[:size]
                buf = rest[size + 2:]
                if size == 0:
                    break
        else:
            while more():
                pass
            body, buf = buf, b""
        out.append((status, h, body, complete))
        if closed:
            break
    while not closed and more(1.0):
        pass
    return out, buf, closed


def exchange(port, path, second="/l/clean", pipelined=False, headers=""):
    """GET `path` then GET `second` on one keep-alive connection (pipelined: both sent at once)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=15)
    try:
        req = lambda p: ("GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n" % (p, headers)).encode()
        if pipelined:
            s.sendall(req(path) + req(second))
            return read_responses(s, ["GET", "GET"])
        s.sendall(req(path))
        first, left, closed = read_responses(s, ["GET"])
        if closed or left:
            return first, left, closed
        s.sendall(req(second))
        rest, left, closed = read_responses(s, ["GET"])
        return first + rest, left, closed
    finally:
        s.close()


LIES = {
    # Content-Length 2, then one framing the body and a whole second response behind it.
    "two-lengths": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: %d\r\nCache-Control: max-age=60\r\n\r\nok"
                   % (2 + len(INJECTED)) + INJECTED,
    "length-list": b"HTTP/1.1 200 OK\r\nContent-Length: 2, %d\r\nCache-Control: max-age=60\r\n\r\nok" % (2 + len(INJECTED)) + INJECTED,
    # A length beside chunked: curl frames by the chunks, the length would frame the client.
    "length-and-chunked": b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n"
                          b"Cache-Control: max-age=60\r\n\r\n2\r\nok\r\n0\r\n\r\n",
    "bad-length": b"HTTP/1.1 200 OK\r\nContent-Length: 2x\r\nCache-Control: max-age=60\r\n\r\nok" + INJECTED,
}


@pytest.mark.parametrize("lie", sorted(LIES))
@pytest.mark.parametrize("path_kind", ["cacheable", "pass-through"])
@pytest.mark.parametrize("pipelined", [False, True])
def test_a_response_framed_two_ways_is_a_502_and_the_next_response_is_the_clean_one(ed, lo, lie, path_kind, pipelined):
    path = "/%s-%s-%s" % (lie, path_kind, pipelined)
    lo.script(path, LIES[lie])
    # The pass-through path: a request with credentials is never served from the cache.
    headers = "Authorization: Bearer t\r\n" if path_kind == "pass-through" else ""
    got, left, _ = exchange(ed.port, "/l" + path, pipelined=pipelined, headers=headers)
    assert [g[0] for g in got] == [502, 200], got
    assert got[1][2] == b"clean" and b"INJECTED" not in left and left == b"", (got, left)
    assert "framed two ways" in got[0][2].decode() or "Content-Length" in got[0][2].decode(), got[0][2]
    # Nothing was stored: the origin is asked again, and answers the same refusal.
    again, _, _ = exchange(ed.port, "/l" + path, headers=headers)
    assert again[0][0] == 502 and lo.seen(path) >= 2, (again, lo.seen(path))


def test_repeats_of_one_length_are_that_length(ed, lo):
    lo.script("/twice", b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\nContent-Length: 4, 4\r\nCache-Control: max-age=60\r\n\r\nfour")
    for n in (1, 2):  # stored, then a hit
        got, left, _ = exchange(ed.port, "/l/twice", pipelined=True)
        assert [(g[0], g[2]) for g in got] == [(200, b"four"), (200, b"clean")] and left == b"", (n, got, left)
    assert lo.seen("/twice") == 1


@pytest.mark.parametrize("path_kind", ["cacheable", "pass-through"])
@pytest.mark.parametrize("pipelined", [False, True])
def test_a_body_longer_than_its_length_never_reaches_the_next_response(ed, lo, path_kind, pipelined):
    path = "/long-%s-%s" % (path_kind, pipelined)
    lo.script(path, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nCache-Control: max-age=60\r\n\r\nok" + INJECTED)
    headers = "Authorization: Bearer t\r\n" if path_kind == "pass-through" else ""
    got, left, _ = exchange(ed.port, "/l" + path, pipelined=pipelined, headers=headers)
    assert [(g[0], g[2]) for g in got] == [(200, b"ok"), (200, b"clean")] and left == b"", (got, left)


@pytest.mark.parametrize("path_kind", ["cacheable", "pass-through"])
@pytest.mark.parametrize("pipelined", [False, True])
def test_a_body_shorter_than_its_length_ends_the_connection(ed, lo, path_kind, pipelined):
    path = "/short-%s-%s" % (path_kind, pipelined)
    body = b"only nine"
    lo.script(path, b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nCache-Control: max-age=60\r\n\r\n" + body)
    headers = "Authorization: Bearer t\r\n" if path_kind == "pass-through" else ""
    t0 = time.monotonic()
    got, left, closed = exchange(ed.port, "/l" + path, pipelined=pipelined, headers=headers)
    # Either the head went out and the body stops short with the connection closed, or (when the
    # cut came before the head) a 502; never a second response read from the rest.
    assert got and closed, (got, left, closed)
    status, h, got_body, complete = got[0]
    if status == 200:
        assert not complete and body.startswith(got_body) and len(got) == 1 and left == b"", got
    else:
        assert status == 502 and (len(got) == 1 or got[1][2] == b"clean"), got
    assert time.monotonic() - t0 < 15


@pytest.mark.parametrize("path_kind", ["cacheable", "pass-through"])
def test_a_body_that_looks_like_a_response_is_only_a_body(ed, lo, path_kind):
    path = "/lookalike-" + path_kind
    lo.script(path, b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nCache-Control: max-age=60\r\n\r\n" % len(INJECTED) + INJECTED)
    headers = "Authorization: Bearer t\r\n" if path_kind == "pass-through" else ""
    for n in (1, 2):
        got, left, _ = exchange(ed.port, "/l" + path, pipelined=True, headers=headers)
        assert [(g[0], g[2]) for g in got] == [(200, INJECTED), (200, b"clean")] and left == b"", (n, got, left)
