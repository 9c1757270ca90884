"""HTTP semantics through eddy, one behaviour each, against the project's fault origin setting the
headers each test needs: RFC 9111 freshness and Age, RFC 9213 targeted fields, RFC 5861 stale
directives, header forwarding (RFC 9110 section 7.6.1), transfer codings. Every test uses its own
file, so the origin's per-path request counts are its own."""
import contextlib, http.client, json, os, time, urllib.parse
from conftest import Eddy, request, sha, wait_for


@contextlib.contextmanager
def configured(origins, tmp_path, yaml):
    """An eddy of its own with `yaml` as its config file, stopped on leaving."""
    ng, fo, _ = origins
    conf = tmp_path / "eddy.yaml"
    conf.write_text(yaml)
    e = Eddy(str(tmp_path), ng, fo, extra=["--config", str(conf)])
    try:
        yield e
    finally:
        e.stop()


def put(fo, name, size=5000, seed=7, age_days=None):
    data = bytes((i * seed + 11) % 251 for i in range(size))
    path = os.path.join(fo.www, name)
    with open(path, "wb") as f:
        f.write(data)
    if age_days is not None:
        t = time.time() - age_days * 86400
        os.utime(path, (t, t))
    return data


def url(name, *pairs):
    """/f/<name>?... with the fault origin's parameters (h= may repeat)."""
    return "/f/%s?%s" % (name, urllib.parse.urlencode(pairs)) if pairs else "/f/" + name


def origin_requests(fo, name):
    return fo.stats()["paths"].get("/" + name, {}).get("requests", 0)


def last_request(fo, name):
    return json.loads(request(fo.port, "/_last?path=/" + name).body)


def fail(fo, name, how):
    request(fo.port, "/_set?" + urllib.parse.urlencode({"path": "/" + name, "fail": how}))


@contextlib.contextmanager
def stale_and_failing(e, fo, how, *files):
    """Each (name, cache-control) stored through eddy `e`, then stale (2.2 s later; give lifetimes
    of 1 s) while the origin fails `how` for it, until the block ends. Yields [(url, body)]."""
    stored = []
    for name, cc in files:
        data = put(fo, name)
        u = url(name, ("cc", cc))
        assert e.get(u).status == 200
        stored.append((u, data))
    time.sleep(2.2)  # the subject: past the lifetimes
    for name, _ in files:
        fail(fo, name, how)
    try:
        yield stored
    finally:
        for name, _ in files:
            fail(fo, name, "")


def test_age_grows_from_the_upstream_value(eddy, origins):
    _, fo, _ = origins
    data = put(fo, "age1.bin")
    u = url("age1.bin", ("cc", "max-age=3600"), ("h", "Age: 100"))
    r = eddy.get(u)
    assert r.status == 200 and sha(r.body) == sha(data)
    assert 100 <= int(r.h("Age")) <= 102, r.h("Age")
    time.sleep(2.1)  # the subject: the Age grows by 2
    r = eddy.get(u)
    assert "hit" in r.h("Cache-Status") and 102 <= int(r.h("Age")) <= 104, (r.h("Age"), r.h("Cache-Status"))
    assert origin_requests(fo, "age1.bin") == 1


def test_an_upstream_age_beyond_max_age_is_stale_at_once(eddy, origins):
    _, fo, _ = origins
    put(fo, "age2.bin")
    u = url("age2.bin", ("cc", "max-age=3600"), ("h", "Age: 7200"))
    assert eddy.get(u).status == 200
    r = eddy.get(u)
    # Revalidated: the origin's answer is named (RFC 9211 section 2.4).
    assert r.status == 200 and "fwd=stale; fwd-status=304" in r.h("Cache-Status"), r.h("Cache-Status")
    assert origin_requests(fo, "age2.bin") == 2


def test_an_origins_huge_age_is_capped_not_a_crash(eddy, origins):
    # 40 digits, and a head that takes over a second: before the fix, Age + the request's delay
    # overflowed and the process trapped.
    _, fo, _ = origins
    data = put(fo, "age3.bin")
    r = eddy.get(url("age3.bin", ("cc", "max-age=3600"), ("h", "Age: " + "6" * 40), ("head_delay", "1.2")))
    assert r.status == 200 and sha(r.body) == sha(data)
    assert int(r.h("Age")) == 2 ** 31 - 1, r.h("Age")
    assert eddy.get("/f/age3.bin").status == 200 and eddy.proc.poll() is None


def test_invalid_expires_forms_are_already_expired(eddy, origins):
    _, fo, _ = origins
    future = time.strftime("%a, %d %b %Y %H:%M:%S", time.gmtime(time.time() + 3600))
    forms = [future + " AEST", time.strftime("%a, %d %b %y %H:%M:%S GMT", time.gmtime(time.time() + 3600)),
             future.replace(",", "") + " GMT", future.replace(", ", ",  ") + " GMT",
             time.strftime("%a, %d-%b-%Y %H:%M:%S GMT", time.gmtime(time.time() + 3600)),
             future.replace(" 0", " ", 1) + " GMT" if " 0" in future else future + "  GMT"]
    for i, form in enumerate(forms):
        name = "exp%d.bin" % i
        put(fo, name)
        u = url(name, ("cc", "none"), ("h", "Expires: " + form))
        assert eddy.get(u).status == 200 and eddy.get(u).status == 200
        assert origin_requests(fo, name) == 2, (form, "an invalid Expires must not make the response fresh")
    put(fo, "expok.bin")
    u = url("expok.bin", ("cc", "none"), ("h", "Expires: " + future + " GMT"))
    assert eddy.get(u).status == 200 and eddy.get(u).status == 200
    assert origin_requests(fo, "expok.bin") == 1, "a valid future Expires is fresh"
    put(fo, "exptwo.bin")
    u = url("exptwo.bin", ("cc", "none"), ("h", "Expires: " + future + " GMT"), ("h", "Expires: " + future + " GMT"))
    assert eddy.get(u).status == 200 and eddy.get(u).status == 200
    assert origin_requests(fo, "exptwo.bin") == 2, "two Expires lines are invalid"


def test_s_maxage_is_never_served_stale_but_max_age_is(eddy, origins):
    _, fo, _ = origins
    with stale_and_failing(eddy, fo, "drop", ("smax.bin", "s-maxage=1"), ("plainmax.bin", "max-age=1")) as stored:
        (strict, _), (lax, data) = stored
        assert eddy.get(strict).status in (502, 504), "s-maxage implies proxy-revalidate (RFC 9111 s5.2.2.10)"
        r = eddy.get(lax)
        assert r.status == 200 and sha(r.body) == sha(data) and "stale" in r.h("Cache-Status")


def test_cdn_cache_control_wins_over_cache_control(eddy, origins):
    _, fo, _ = origins
    put(fo, "cdn1.bin")
    put(fo, "cdn2.bin")
    no_store = url("cdn1.bin", ("cc", "max-age=3600"), ("h", "CDN-Cache-Control: no-store"))
    fresh = url("cdn2.bin", ("cc", "no-cache"), ("h", "CDN-Cache-Control: max-age=3600"))
    for u in (no_store, fresh):
        assert eddy.get(u).status == 200 and eddy.get(u).status == 200
    assert origin_requests(fo, "cdn1.bin") == 2, "CDN-Cache-Control: no-store is not stored"
    assert origin_requests(fo, "cdn2.bin") == 1, "CDN-Cache-Control: max-age makes it fresh despite no-cache"
    r = eddy.get(fresh)
    assert "hit" in r.h("Cache-Status")


def test_stale_while_revalidate_serves_at_once_and_refreshes_once(eddy, origins):
    _, fo, _ = origins
    data = put(fo, "swr.bin")
    u = url("swr.bin", ("cc", "max-age=2, stale-while-revalidate=60"))
    assert eddy.get(u).status == 200
    time.sleep(3.2)  # the subject: past max-age
    r = eddy.get(u)
    assert r.status == 200 and sha(r.body) == sha(data)
    assert "stale-while-revalidate" in r.h("Cache-Status"), r.h("Cache-Status")
    wait_for(lambda: origin_requests(fo, "swr.bin") >= 2 and not [f for f in eddy.fills() if "swr.bin" in f["url"]], 10,
             what="the background revalidation done")
    assert origin_requests(fo, "swr.bin") == 2, "one background revalidation"
    r = eddy.get(u)
    assert "hit" in r.h("Cache-Status") and "stale" not in r.h("Cache-Status"), r.h("Cache-Status")
    assert origin_requests(fo, "swr.bin") == 2


def test_stale_if_error_serves_the_stored_copy_on_a_5xx(origins, tmp_path):
    _, fo, _ = origins
    # serve_stale_on_error 0: only the response's own stale-if-error.
    with configured(origins, tmp_path, "serve_stale_on_error: 0\n") as e, \
         stale_and_failing(e, fo, "503", ("sie.bin", "max-age=1, stale-if-error=60"), ("nosie.bin", "max-age=1")) as stored:
        (allowed, data), (plain, _) = stored
        r = e.get(allowed)
        assert r.status == 200 and sha(r.body) == sha(data), "stale-if-error (RFC 5861 s4)"
        assert e.get(plain).status >= 500, "no stale-if-error and serve_stale_on_error 0: the error"


def test_heuristic_freshness_follows_last_modified(eddy, origins):
    _, fo, _ = origins
    put(fo, "heur-old.bin", age_days=30)
    put(fo, "heur-new.bin")
    old, new = url("heur-old.bin", ("cc", "none")), url("heur-new.bin", ("cc", "none"))
    for u in (old, new):
        assert eddy.get(u).status == 200 and eddy.get(u).status == 200
    assert origin_requests(fo, "heur-old.bin") == 1, "10% of 30 days, capped at a day: fresh"
    assert origin_requests(fo, "heur-new.bin") == 2, "modified just now: no heuristic lifetime"


def test_an_unknown_transfer_coding_is_a_502(eddy, origins):
    _, fo, _ = origins
    put(fo, "te.bin")
    r = eddy.get(url("te.bin", ("te", "x-custom")))
    assert r.status == 502 and b"transfer coding" in r.body, (r.status, r.body[:200])
    r = eddy.get(url("te.bin", ("te", "x-custom")), {"Authorization": "Bearer t"})  # the pass-through path
    assert r.status == 502


def test_client_request_fields_reach_the_origin_but_connection_named_ones_do_not(eddy, origins):
    _, fo, _ = origins
    put(fo, "fwd.bin")
    r = eddy.get(url("fwd.bin"), {"Cookie": "session=abc", "Referer": "http://player.example/", "X-Custom": "yes",
                                  "Connection": "X-Drop", "X-Drop": "secret", "Accept-Encoding": "gzip"})
    assert r.status == 200
    got = {k.lower(): v for k, v in last_request(fo, "fwd.bin")["headers"]}
    assert got.get("referer") == "http://player.example/" and got.get("x-custom") == "yes"
    assert "cookie" not in got, "a shared fill carries no cookie by default (cookies:, as CloudFront)"
    assert "x-drop" not in got, "named in Connection: hop-by-hop (RFC 9110 s7.6.1)"
    assert "accept-encoding" not in got, "a fill asks for the identity bytes every client gets"
    assert got.get("x-forwarded-for") == "127.0.0.1" and got.get("forwarded") == "for=127.0.0.1;proto=http", got
    # A pass-through request (its answer reaches this client alone) carries every end-to-end field.
    r = eddy.get(url("fwd.bin"), {"Cookie": "session=abc", "Authorization": "Bearer t", "X-Forwarded-Host": "a.example"})
    assert r.status == 200
    got = {k.lower(): v for k, v in last_request(fo, "fwd.bin")["headers"]}
    assert got.get("cookie") == "session=abc" and got.get("x-forwarded-host") == "a.example", got


def test_an_untrusted_client_chain_is_replaced(eddy, origins):
    _, fo, _ = origins
    put(fo, "xff.bin")
    assert eddy.get(url("xff.bin"), {"X-Forwarded-For": "6.6.6.6", "Authorization": "Bearer t"}).status == 200
    got = {k.lower(): v for k, v in last_request(fo, "xff.bin")["headers"]}
    assert got.get("x-forwarded-for") == "127.0.0.1" and got.get("authorization") == "Bearer t"


def test_response_fields_named_in_connection_are_dropped(eddy, origins):
    _, fo, _ = origins
    put(fo, "rconn.bin")
    u = url("rconn.bin", ("h", "Connection: X-Hop"), ("h", "X-Hop: 1"), ("h", "X-Keep: 2"))
    for _ in range(2):  # stored, then replayed
        r = eddy.get(u)
        assert r.status == 200 and r.h("X-Keep") == "2" and r.h("X-Hop") is None


def send(port, method, path, body=b"", headers=None, chunked=False):
    """One request with a body (Content-Length, or chunked in 3 pieces)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    h = dict(headers or {})
    if chunked:
        h["Transfer-Encoding"] = "chunked"
        third = max(1, len(body) // 3)
        parts = [body[i:i + third] for i in range(0, len(body), third)]
        c.request(method, path, body=iter(parts), headers=h, encode_chunked=True)
    else:
        c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    out = (r.status, {k.lower(): v for k, v in r.getheaders()}, r.read())
    c.close()
    return out


def test_post_and_put_bodies_reach_the_origin_and_their_answers_come_back(eddy, origins):
    _, fo, _ = origins
    body = bytes(range(256)) * 4000  # 1 MB with every byte value, zeros included
    for method, chunked in [("POST", False), ("PUT", True), ("PATCH", False)]:
        st, h, out = send(eddy.port, method, "/f/upload-%s" % method.lower(), body, {"Content-Type": "application/octet-stream"},
                          chunked=chunked)
        assert st == 200, (method, st, out[:200])
        got = json.loads(out)
        assert got == {"method": method, "length": len(body), "sha256": sha(body)}, (method, got)
        assert "fwd=bypass" in h["cache-status"]
    st, _, out = send(eddy.port, "DELETE", "/f/upload-post")
    assert st == 200 and json.loads(out)["method"] == "DELETE"
    st, _, out = send(eddy.port, "OPTIONS", "/f/upload-post")
    assert st == 200 and json.loads(out)["method"] == "OPTIONS"


def test_a_put_invalidates_the_stored_response(eddy, origins):
    _, fo, _ = origins
    put(fo, "inval.bin")
    put(fo, "inval-loc.bin")
    assert eddy.get(url("inval.bin")).status == 200 and eddy.get(url("inval-loc.bin")).status == 200
    assert "hit" in eddy.get(url("inval.bin")).h("Cache-Status")
    assert origin_requests(fo, "inval.bin") == 1
    st, _, _ = send(eddy.port, "PUT", "/f/inval.bin", b"new body")
    assert st == 200 and origin_requests(fo, "inval.bin") == 2
    r = eddy.get(url("inval.bin"))
    assert r.status == 200 and "hit" not in r.h("Cache-Status"), "RFC 9111 s4.4: the target is invalidated"
    assert origin_requests(fo, "inval.bin") == 3 and last_request(fo, "inval.bin")["method"] == "GET"
    assert eddy.metrics()["eddy_invalidations_total"] >= 1


def test_the_get_after_a_put_is_never_a_hit_on_any_loop(eddy, origins):
    """RFC 9111 s4.4, as a client sees it: once the PUT's answer has arrived, the next GET, on
    whichever loop it lands, is not answered from what was stored (nor from a snapshot of it)
    before. Repeated, because the PUT and the GET may land on any two loops."""
    _, fo, _ = origins
    data = put(fo, "inval-loops.bin", size=20000)
    for i in range(10):
        assert sha(eddy.get(url("inval-loops.bin")).body) == sha(data)
        assert "hit" in eddy.get(url("inval-loops.bin")).h("Cache-Status")
        st, _, _ = send(eddy.port, "PUT", "/f/inval-loops.bin", b"new body")
        assert st == 200
        r = eddy.get(url("inval-loops.bin"))
        assert r.status == 200 and "hit" not in r.h("Cache-Status"), (i, r.h("Cache-Status"))
        assert sha(r.body) == sha(data)


def test_a_request_body_over_max_body_size_is_413(origins, tmp_path):
    _, fo, _ = origins
    with configured(origins, tmp_path, "max_body_size: 64K\n") as e:
        st, _, _ = send(e.port, "POST", "/f/upload-big", b"x" * (200 << 10))
        assert st == 413
        st, _, out = send(e.port, "POST", "/f/upload-small", b"x" * (10 << 10))
        assert st == 200 and json.loads(out)["length"] == 10 << 10


def test_a_404_is_stored_for_negative_ttl_and_ranges_do_not_apply_to_it(origins, tmp_path):
    _, fo, _ = origins
    with configured(origins, tmp_path, "negative_ttl: 2\n") as e:
        r = e.get("/f/neg404.bin")
        assert r.status == 404 and "stored" in r.h("Cache-Status"), r.h("Cache-Status")
        r = e.get("/f/neg404.bin", {"Range": "bytes=10-20"})
        assert r.status == 404 and r.h("Content-Range") is None and "hit" in r.h("Cache-Status"), (r.status, r.h("Cache-Status"))
        assert origin_requests(fo, "neg404.bin") == 1
        data = put(fo, "neg404.bin")
        assert e.get("/f/neg404.bin").status == 404, "still within negative_ttl"
        time.sleep(2.2)  # the subject: past negative_ttl
        r = e.get("/f/neg404.bin")
        assert r.status == 200 and sha(r.body) == sha(data), r.status
        assert origin_requests(fo, "neg404.bin") == 2
        r = e.get("/f/neg404.bin")
        assert r.status == 200 and "hit" in r.h("Cache-Status") and sha(r.body) == sha(data)


def test_a_410_with_max_age_is_stored_and_its_body_replayed(eddy, origins):
    _, fo, _ = origins
    u = url("gone.bin", ("status", "410"), ("cc", "max-age=600"))
    first = eddy.get(u)
    second = eddy.get(u)
    assert first.status == second.status == 410
    assert first.body == second.body == b"status 410 for /gone.bin\n"
    assert "hit" in second.h("Cache-Status") and second.h("Cache-Control") == "max-age=600"
    assert origin_requests(fo, "gone.bin") == 1


def test_a_stored_301_keeps_its_location_mapped_to_eddy(eddy, origins):
    _, fo, _ = origins
    u = url("moved.bin", ("status", "301"), ("h", "Location: /moved-here.bin"))
    for i in range(2):
        r = eddy.get(u)
        assert r.status == 301 and r.h("Location") == "/f/moved-here.bin", (r.status, r.h("Location"))
        assert ("hit" in r.h("Cache-Status")) == (i == 1), r.h("Cache-Status")
    assert origin_requests(fo, "moved.bin") == 1


def test_a_302_is_stored_only_with_explicit_freshness_and_a_503_never(eddy, origins):
    _, fo, _ = origins
    for name, pairs, expected in [("r302plain.bin", [("status", "302"), ("cc", "none")], 2),
                                  ("r302fresh.bin", [("status", "302"), ("cc", "max-age=60")], 1),
                                  ("e503.bin", [("status", "503"), ("cc", "max-age=60")], 2)]:
        u = url(name, ("h", "Location: /elsewhere.bin"), *pairs)
        statuses = [eddy.get(u).status for _ in range(2)]
        assert statuses == [int(pairs[0][1])] * 2, (name, statuses)
        assert origin_requests(fo, name) == expected, name
