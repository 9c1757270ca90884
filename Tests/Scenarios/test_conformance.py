"""The cases of the public HTTP caching conformance suite (cache-tests.fyi) that eddy once failed,
rewritten against a scripted origin (scripted_origin.py): each names the suite's test id it
stands for. A case counts the requests the origin saw: "cached" is one, "not cached" two, and
a client miss that costs the origin two requests (the suite's "retry") fails."""
import http.client, os, socket, subprocess, threading, time
import pytest
from conftest import Eddy, ff, make_file, sha, wait_for
from scripted_origin import Answer, ScriptedOrigin, http_date


@pytest.fixture(scope="module")
def so():
    o = ScriptedOrigin()
    yield o
    o.stop()


@pytest.fixture(scope="module")
def ed(origins, so, tmp_path_factory):
    ng, fo, _ = origins
    # The suite's interim case asks for 103 forwarding, which eddy does only when told.
    e = Eddy(str(tmp_path_factory.mktemp("conformance")), ng, fo,
             extra=["--origin", f"/s/=http://127.0.0.1:{so.port}", "--early-hints"])
    yield e
    e.stop()


def get(e, path, headers=None, method="GET", body=None):
    return get_any(e, "/s" + path, headers, method, body)


def get_any(e, target, headers=None, method="GET", body=None):
    c = http.client.HTTPConnection("127.0.0.1", e.port, timeout=30)
    c.request(method, target, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, data


def fresh(body="hello", *extra):
    return Answer(200, [("Cache-Control", "max-age=3600"), *extra], body)


# age-parse-suffix: of a list-based Age the first member counts (RFC 9111 section 5.1), so
# "7200, 0" with max-age=3600 is stale. age-parse-suffix-twoline and the "3000abc": an Age
# with trailing garbage is invalid and ignored; the response is as fresh as its Date says.
@pytest.mark.parametrize("age,cached", [("7200, 0", False), ("7200,0", False), ("7200abc", True), ("7200", False),
                                        ("0, 0", True), ("0, 7200", True)])
def test_age_parse(ed, so, age, cached):
    path = "/age-%s" % age.replace(",", "c").replace(" ", "s")
    so.script(path, fresh("aged", ("Age", age)))
    assert get(ed, path)[0] == 200
    assert get(ed, path)[2] == b"aged"
    assert len(so.seen(path)) == (1 if cached else 2), age


# headers-store-Content-Range: a stored 200's Content-Range is replayed as the origin sent it.
def test_headers_store_content_range(ed, so):
    so.script("/cr", fresh("whole", ("Content-Range", "ananananananana")))
    for n in (1, 2):
        status, h, body = get(ed, "/cr")
        assert (status, body, h.get("content-range")) == (200, b"whole", "ananananananana"), n
    assert len(so.seen("/cr")) == 1


# cdn-cc-invalid-sh-type-unknown, cdn-cc-invalid-sh-type-wrong: a CDN-Cache-Control that is not a
# valid Structured Field Dictionary, or whose max-age is not an Integer, is ignored as a whole
# (RFC 9213 section 2.1), and Cache-Control: no-store then applies. Valid ones still work.
@pytest.mark.parametrize("value,cached", [
    ("max-age=10000, &&&&&", False), ('max-age="10000"', False), ("max-age =100", False),
    ("max-age=10.5", False), ("max-age=10000", True), ("foobar, max-age=3600", True),
    ("max-age=99999999999", True)])
def test_cdn_cache_control_validity(ed, so, value, cached):
    path = "/cdn-%d" % abs(hash(value))
    so.script(path, Answer(200, [("CDN-Cache-Control", value), ("Cache-Control", "no-store")], "cdn"))
    get(ed, path)
    assert get(ed, path)[2] == b"cdn"
    assert len(so.seen(path)) == (1 if cached else 2), value


# invalidate-M-SEARCH and invalidate-M-SEARCH-failed: an extension method (a token with "-") is
# forwarded with its body (RFC 9110 section 9.1) and invalidates the target after a non-error
# answer (RFC 9111 section 4.4), not after a 5xx.
@pytest.mark.parametrize("status", [200, 500])
def test_invalidate_extension_method(ed, so, status):
    path = "/msearch-%d" % status
    so.script(path, fresh("v1"), Answer(status, [], "searched"), fresh("v2"))
    assert get(ed, path)[2] == b"v1" and get(ed, path)[2] == b"v1"
    s, _, body = get(ed, path, method="M-SEARCH", body=b"abc", headers={"Content-Type": "text/plain"})
    assert (s, body) == (status, b"searched")
    seen = so.seen(path)
    assert [r["method"] for r in seen] == ["GET", "M-SEARCH"] and seen[1]["body"] == b"abc"
    assert get(ed, path)[2] == (b"v2" if status < 500 else b"v1")
    assert len(so.seen(path)) == (3 if status < 500 else 2)


def varying(fields, body):
    hs = [("Expires", http_date(5000)), ("Last-Modified", http_date(-3000)), ("Vary", fields)]
    return Answer(200, hs, body)


# vary-no-match, vary-omit, vary-2-no-match, vary-2-match-omit, vary-3-no-match, vary-3-order:
# the second request selects another variant: one origin request for it, not two.
@pytest.mark.parametrize("case,fields,first,second", [
    ("vary-no-match", "Foo", {"Foo": "1"}, {"Foo": "2"}),
    ("vary-omit", "Foo", {"Foo": "1"}, {}),
    ("vary-2-no-match", "Foo, Bar", {"Foo": "1", "Bar": "abc"}, {"Foo": "2", "Bar": "abc"}),
    ("vary-2-match-omit", "Foo, Bar", {"Foo": "1"}, {}),
    ("vary-3-no-match", "Foo, Bar, Baz", {"Foo": "1", "Bar": "abc", "Baz": "789"}, {"Foo": "2", "Bar": "abc", "Baz": "789"}),
    ("vary-3-order", "Foo, Bar, Baz", {"Foo": "1", "Bar": "abc4", "Baz": "789"}, {"Foo": "1", "Bar": "abc", "Baz": "789"})])
def test_vary_new_variant_costs_one_request(ed, so, case, fields, first, second):
    path = "/" + case
    so.script(path, varying(fields, "first"), varying(fields, "second"))
    _, h1, b1 = get(ed, path, first)
    _, h2, b2 = get(ed, path, second)
    assert (b1, b2) == (b"first", b"second")
    # RFC 9211 section 2.2: a new URL is uri-miss; a stored URL whose variants do not match, vary-miss.
    assert "fwd=uri-miss" in h1["cache-status"] and "fwd=vary-miss" in h2["cache-status"], (h1, h2)
    assert len(so.seen(path)) == 2, [r["headers"].get("range") for r in so.seen(path)]
    assert get(ed, path, first)[2] == b"first" and get(ed, path, second)[2] == b"second"
    assert len(so.seen(path)) == 2


# The same cases as the real suite's origin answers them (scripts/cache-tests): the second answer
# does not repeat the first one's Vary (here: no Vary, no validators, no freshness) and is
# still the answer to the request that asked it; a second origin request for it is the suite's
# "retry" (ten vary-* tests before issue 57).
@pytest.mark.parametrize("case,fields,first,second,second_vary", [
    ("vary-no-match", "Foo", {"Foo": "1"}, {"Foo": "2"}, None),
    ("vary-omit", "Foo", {"Foo": "1"}, {}, None),
    ("vary-2-no-match", "Foo, Bar", {"Foo": "1", "Bar": "abc"}, {"Foo": "2", "Bar": "abc"}, None),
    ("vary-other-fields", "Foo", {"Foo": "1"}, {"Foo": "2", "Bar": "x"}, "Bar"),
    ("vary-3-order", "Foo, Bar, Baz", {"Foo": "1", "Bar": "abc4", "Baz": "789"}, {"Foo": "1", "Bar": "abc", "Baz": "789"}, None)])
def test_a_vary_miss_is_one_origin_request_whatever_the_new_vary_says(ed, so, case, fields, first, second, second_vary):
    path = "/changed-" + case
    so.script(path, varying(fields, "first"), Answer(200, [("Vary", second_vary)] if second_vary else [], "second"))
    assert get(ed, path, first)[2] == b"first"
    status, h, body = get(ed, path, second)
    assert (status, body) == (200, b"second") and "fwd=vary-miss" in h["cache-status"], h
    assert len(so.seen(path)) == 2, [r["headers"].get("range") for r in so.seen(path)]


def partial(start, end, total=10, *extra):
    return Answer(206, [("Cache-Control", "max-age=3600"), ("ETag", '"p1"'),
                        ("Content-Range", "bytes %d-%d/%d" % (start, end, total)), *extra],
                  "0123456789"[start:end + 1])


# partial-store-partial-reuse-partial(-byterange, -absent, -suffix): the origin answers eddy's
# Range request with another consistent extent that covers the client's; eddy serves the client
# from it and stores it, and later ranges inside it are hits.
@pytest.mark.parametrize("later,expected", [("bytes=-5", b"56789"), ("bytes=6-8", b"678"),
                                            ("bytes=6-", b"6789"), ("bytes=-1", b"9")])
def test_partial_store_partial_reuse(ed, so, later, expected):
    path = "/partial-%s" % later.replace("=", "").replace("-", "m")
    so.script(path, partial(5, 9))
    s, h, body = get(ed, path, {"Range": "bytes=-5"})
    assert (s, body, h.get("content-range")) == (206, b"56789", "bytes 5-9/10")
    s, h, body = get(ed, path, {"Range": later})
    assert (s, body) == (206, expected), later
    assert len(so.seen(path)) == 1


# partial-store-partial-complete: what a partial answer carried is kept; the next request
# fetches only the rest.
def test_partial_store_partial_complete(ed, so):
    so.script("/complete", partial(0, 4), partial(5, 9))
    s, h, body = get(ed, "/complete", {"Range": "bytes=0-4"})
    assert (s, body) == (206, b"01234")
    s, h, body = get(ed, "/complete")
    assert (s, body) == (200, b"0123456789")
    seen = so.seen("/complete")
    assert len(seen) == 2 and seen[1]["headers"]["range"][0].startswith("bytes=5-"), seen[1]["headers"].get("range")


# A 206 whose Content-Range contradicts what eddy holds (another length) or its own body, or does
# not hold the first byte asked for, is refused, and nothing of it is mixed with the stored bytes.
@pytest.mark.parametrize("second", [
    Answer(206, [("Cache-Control", "max-age=3600"), ("ETag", '"p1"'), ("Content-Range", "bytes 5-9/11")], "56789"),
    Answer(206, [("Cache-Control", "max-age=3600"), ("ETag", '"p1"'), ("Content-Range", "bytes 4-9/10")], "56789"),
    Answer(206, [("Cache-Control", "max-age=3600"), ("ETag", '"p1"'), ("Content-Range", "bytes 6-9/10")], "6789")],
    ids=["length", "own-body", "not-holding-the-first-byte"])
def test_partial_inconsistent_is_refused(ed, so, second, request):
    path = "/inconsistent-" + request.node.callspec.id
    so.script(path, partial(0, 4), second)
    assert get(ed, path, {"Range": "bytes=0-4"})[2] == b"01234"
    # Its head was sent before the origin answered (the bytes 0-4 are held and the length known),
    # so the refusal shows as a body cut short, after eddy's retries.
    with pytest.raises(http.client.IncompleteRead) as cut:
        get(ed, path, {"Range": "bytes=5-9"})
    assert cut.value.partial == b""
    assert [r["headers"]["range"] for r in so.seen(path)][1:2] == [["bytes=5-9"]]
    assert get(ed, path, {"Range": "bytes=0-4"})[2] == b"01234"


# A 206 with another validator is another representation: the client gets it whole under its
# own ETag, and the old bytes are never served with it.
def test_partial_of_another_version_replaces_the_stored_one(ed, so):
    so.script("/other-version", partial(0, 4), Answer(206, [("Cache-Control", "max-age=3600"), ("ETag", '"p2"'),
                                                            ("Content-Range", "bytes 5-9/10")], "abcde"))
    assert get(ed, "/other-version", {"Range": "bytes=0-4"})[2] == b"01234"
    s, h, body = get(ed, "/other-version", {"Range": "bytes=5-9"})
    assert (s, h["etag"], body) == (206, '"p2"', b"abcde")
    so.script("/other-version", Answer(206, [("Cache-Control", "max-age=3600"), ("ETag", '"p2"'),
                                             ("Content-Range", "bytes 0-4/10")], "vwxyz"))
    s, h, body = get(ed, "/other-version")
    assert (s, h["etag"], body) == (200, '"p2"', b"vwxyzabcde")


def raw_read(e, request):
    """Sends `request` on one connection and reads until eddy closes it. Raw, because Python's
    http.client takes a 1xx head for the final answer (it skips only 100)."""
    s = socket.create_connection(("127.0.0.1", e.port), timeout=10)
    s.sendall(request)
    data = b""
    while chunk := s.recv(65536):
        data += chunk
    s.close()
    return data


# interim-not-cached: a 103 Early Hints reaches the client before the final answer (RFC 8297),
# without its hop-by-hop fields, while the origin still thinks, and is never stored.
def test_interim_reaches_the_client(ed, so):
    so.script("/interim", Answer(200, [("Cache-Control", "max-age=3600")], "final", hold=1.0,
                                 interim=[(103, [("Link", "</a.css>; rel=preload"), ("Connection", "X-Hop"), ("X-Hop", "1")])]))
    s = socket.create_connection(("127.0.0.1", ed.port), timeout=10)
    s.sendall(b"GET /s/interim HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    early = b""
    while b"\r\n\r\n" not in early:
        early += s.recv(65536)
    t_hint = time.monotonic()
    data = early
    while chunk := s.recv(65536):
        data += chunk
    waited = time.monotonic() - t_hint
    s.close()
    hint, _, rest = data.partition(b"\r\n\r\n")
    assert hint.startswith(b"HTTP/1.1 103 "), data[:300]
    assert b"\r\nLink: </a.css>; rel=preload" in hint and b"X-Hop" not in hint, hint
    assert rest.startswith(b"HTTP/1.1 200 ") and rest.endswith(b"final"), rest[:300]
    assert waited > 0.5, "the hint came only with the final answer"  # it went out while the origin held


# Responses that coalesced on one fill each get the hint it brings: two clients wait on the same
# cold URL before the origin's hint, and each sees it ahead of the shared answer; one origin request.
def test_interim_reaches_every_coalesced_waiter(ed, so):
    so.script("/interim-shared", Answer(200, [("Cache-Control", "max-age=3600")], "shared", think=1.0, hold=0.3,
                                        interim=[(103, [("Link", "</s.css>; rel=preload")])]))
    results = [None, None]

    def read(i):
        results[i] = raw_read(ed, b"GET /s/interim-shared HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")

    threads = [threading.Thread(target=read, args=(i,)) for i in range(2)]
    threads[0].start()
    wait_for(lambda: len(so.seen("/interim-shared")) == 1, 5, what="the first request at the origin")
    threads[1].start()
    for t in threads:
        t.join(30)
    for data in results:
        assert data is not None and data.startswith(b"HTTP/1.1 103 ") and data.endswith(b"shared"), (data or b"")[:300]
    assert len(so.seen("/interim-shared")) == 1


# A client that speaks HTTP/1.0 gets no 1xx (RFC 9110 section 15.2); a pass-through request
# (POST) gets the hint too.
def test_interim_only_to_http11_and_through_pass_through(ed, so):
    so.script("/interim-10", Answer(200, [("Cache-Control", "max-age=3600")], "final",
                                    interim=[(103, [("Link", "</b.css>; rel=preload")])]))
    data = raw_read(ed, b"GET /s/interim-10 HTTP/1.0\r\nHost: x\r\n\r\n")
    assert data.startswith(b"HTTP/1.0 200") or data.startswith(b"HTTP/1.1 200"), data[:200]
    assert b" 103 " not in data
    so.script("/interim-post", Answer(200, [], "posted", interim=[(103, [("Link", "</c.css>; rel=preload")])]))
    data = raw_read(ed, b"POST /s/interim-post HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                           b"Content-Type: text/plain\r\nContent-Length: 2\r\n\r\nhi")
    assert data.startswith(b"HTTP/1.1 103 ") and b"\r\n\r\nHTTP/1.1 200 " in data and data.endswith(b"posted"), data[:300]
    assert [r["body"] for r in so.seen("/interim-post")] == [b"hi"]


# By default no 1xx head reaches the client (ffmpeg and mpv take one for the final answer and
# hang): ffprobe reads a video through eddy from an origin that sends 103 before it.
def test_interim_is_dropped_by_default_and_players_play(origins, so, tmp_path):
    ng, fo, _ = origins
    video = str(tmp_path / "hinted.mp4")
    r = ff("-f", "lavfi", "-i", "testsrc=duration=2:size=160x120:rate=10", "-c:v", "libx264", "-preset", "ultrafast", video)
    assert r.returncode == 0, r.stderr
    body = open(video, "rb").read()
    so.script("/hinted.mp4", Answer(200, [("Content-Type", "video/mp4"), ("Cache-Control", "max-age=3600")], body,
                                    interim=[(103, [("Link", "</poster.jpg>; rel=preload")])]))
    e = Eddy(str(tmp_path), ng, fo, extra=["--origin", f"/s/=http://127.0.0.1:{so.port}"])
    try:
        data = raw_read(e, b"GET /s/hinted.mp4 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert data.startswith(b"HTTP/1.1 200 ") and b" 103 " not in data.partition(b"\r\n\r\n")[0], data[:300]
        assert sha(data.partition(b"\r\n\r\n")[2]) == sha(body)
        p = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                            f"http://127.0.0.1:{e.port}/s/hinted.mp4"], capture_output=True, text=True, timeout=30)
        assert p.returncode == 0 and abs(float(p.stdout) - 2.0) < 0.2, (p.returncode, p.stdout, p.stderr)
    finally:
        e.stop()


def test_interim_is_never_stored(ed, so):
    so.script("/interim-stored", Answer(200, [("Cache-Control", "max-age=3600")], "final",
                                        interim=[(103, [("Link", "</a.css>; rel=preload")])]))
    first = raw_read(ed, b"GET /s/interim-stored HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert first.startswith(b"HTTP/1.1 103 ") and first.endswith(b"final"), first[:300]
    for _ in range(2):
        s, h, body = get(ed, "/interim-stored")
        assert (s, body) == (200, b"final") and "link" not in h
    assert len(so.seen("/interim-stored")) == 1


def raw_exchange(e, data, pause_then=None, timeout=10):
    """Sends `data` (then `pause_then` after 0.3 s) on one connection; returns all it got back
    until eddy closed it or `timeout` passed."""
    s = socket.create_connection(("127.0.0.1", e.port), timeout=timeout)
    s.sendall(data)
    if pause_then is not None:
        time.sleep(0.3)  # the subject: a body that arrives in a later segment
        s.sendall(pause_then)
    out = b""
    try:
        while chunk := s.recv(65536):
            out += chunk
    except socket.timeout:
        pass
    s.close()
    return out


# An extension method's body is read as its body, never as the next request, whether it came with
# the head or later, by length or in chunks; none of its bytes are parsed as a request. (Over
# evhttp, a chunked one got 501 and a pipelined one could too: eddy's own parser frames both.)
def test_extension_method_bodies_are_framed(ed, so):
    smuggled = b"GET /s/smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
    so.script("/ext", Answer(200, [], "ext answered"))
    so.script("/smuggled", Answer(200, [], "smuggled"))
    head = b"M-SEARCH /s/ext HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n\r\n" % len(smuggled)
    assert raw_exchange(ed, head + smuggled).startswith(b"HTTP/1.1 200")
    assert raw_exchange(ed, head, pause_then=smuggled).startswith(b"HTTP/1.1 200")
    seen = so.seen("/ext")
    assert [r["body"] for r in seen] == [smuggled, smuggled] and so.seen("/smuggled") == []
    chunked = b"M-SEARCH /s/ext HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(smuggled), smuggled)
    so.script("/after", Answer(200, [], "after"))
    out = raw_exchange(ed, chunked + b"GET /s/after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 200") and out.count(b"HTTP/1.1 200") == 2, out[:300]
    assert [r["body"] for r in so.seen("/ext")][2:] == [smuggled]
    assert len(so.seen("/after")) == 1, "the request after the chunked body is its own"
    pipelined = b"GET /s/ext HTTP/1.1\r\nHost: x\r\n\r\n" + head + smuggled
    out = raw_exchange(ed, pipelined)
    assert out.count(b"HTTP/1.1 200") == 2, out[:600]
    assert so.seen("/smuggled") == [] and [r["method"] for r in so.seen("/ext")][3:] == ["GET", "M-SEARCH"]
    assert so.seen("/ext")[-1]["body"] == smuggled

# A HEAD on a cold object fetches the first block (a GET with Range, as a HEAD's answer may not
# match the GET's) and stores it: the GET that follows costs the origin only the rest.
@pytest.mark.parametrize("size", [1000, 5 * 1024 * 1024 + 17])
def test_cold_head_wastes_no_origin_bytes(ed, origins, size):
    ng = origins[0]
    name = "head-%d.bin" % size
    make_file(os.path.join(ng.www, name), size, size % 251)
    before = ng.bytes_sent()
    s, h, body = get_any(ed, "/n/" + name, method="HEAD")
    assert (s, h["content-length"], body) == (200, str(size), b"")
    got = get_any(ed, "/n/" + name)
    assert got[0] == 200 and sha(got[2]) == sha(open(os.path.join(ng.www, name), "rb").read())
    assert ng.bytes_sent() - before == size
