"""Vary (RFC 9111 section 4.1) through eddy: each variant stored under its own key, selected by the
request's values of the fields the origin named, at most max_variants per URL, Vary: * never
reused, invalidation of every variant, and the variants kept across a restart. The fault origin's
`vary=F` mode answers a body made from the request's values of F, so a wrong variant shows in
its sha256."""
import concurrent.futures, hashlib
from conftest import sha
from test_http_semantics import configured, origin_requests, send, url


def expected(fields, headers, size=300000):
    seed = "|".join("%s=%s" % (f, headers.get(f, "<absent>")) for f in fields.split(","))
    body = (seed.encode() + b"\n") * (size // (len(seed) + 1) + 1)
    return body[:size]


def get(e, name, fields, headers, extra=()):
    return e.get(url(name, ("vary", fields), *extra), headers)


def test_each_variant_is_stored_and_served_to_its_own_requests(eddy, origins):
    _, fo, _ = origins
    fr, en = {"Accept-Language": "fr"}, {"Accept-Language": "en"}
    for h, n in [(fr, 1), (en, 2), ({}, 3)]:
        r = get(eddy, "v1", "Accept-Language", h)
        assert r.status == 200 and sha(r.body) == sha(expected("Accept-Language", h)), h
        assert "hit" not in r.h("Cache-Status") and origin_requests(fo, "v1") == n
    for h in [fr, en, {}, {"Accept-Language": " fr "}]:
        r = get(eddy, "v1", "Accept-Language", h)
        assert r.status == 200 and r.h("Cache-Status").startswith("eddy; hit"), (h, r.h("Cache-Status"))
        assert sha(r.body) == sha(expected("Accept-Language", {"Accept-Language": h.get("Accept-Language", "<absent>").strip()} if h else {}))
        assert r.h("Vary") == "Accept-Language"
    r = get(eddy, "v1", "Accept-Language", {**en, "Range": "bytes=100000-199999"})
    assert r.status == 206 and r.body == expected("Accept-Language", en)[100000:200000]
    assert r.h("Cache-Status").startswith("eddy; hit")
    assert origin_requests(fo, "v1") == 3


def test_two_fields_select_together(eddy, origins):
    _, fo, _ = origins
    hs = [{"X-A": "1", "X-B": "1"}, {"X-A": "1", "X-B": "2"}, {"X-A": "2", "X-B": "1"}]
    for h in hs:
        assert sha(get(eddy, "v2", "X-A,X-B", h).body) == sha(expected("X-A,X-B", h))
    for h in hs:
        r = get(eddy, "v2", "X-A,X-B", h)
        assert r.h("Cache-Status").startswith("eddy; hit") and sha(r.body) == sha(expected("X-A,X-B", h))
    assert origin_requests(fo, "v2") == 3


def test_concurrent_requests_for_different_variants_each_get_their_own(eddy, origins):
    """They coalesce on the first discovery; once its head says Vary, the others look up their own
    variant and fetch it: no client gets another's body."""
    _, fo, _ = origins
    langs = ["fr", "en", "de", "fr", "en", "de"]
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        rs = list(pool.map(lambda l: get(eddy, "v3", "Accept-Language", {"Accept-Language": l}, [("head_delay", "0.5")]), langs))
    for l, r in zip(langs, rs):
        assert r.status == 200 and sha(r.body) == sha(expected("Accept-Language", {"Accept-Language": l})), l
    assert 3 <= origin_requests(fo, "v3") <= 6
    for l in ["fr", "en", "de"]:
        r = get(eddy, "v3", "Accept-Language", {"Accept-Language": l}, [("head_delay", "0.5")])
        assert r.h("Cache-Status").startswith("eddy; hit")


def test_vary_star_is_never_reused(eddy, origins):
    _, fo, _ = origins
    for n in (1, 2):
        r = get(eddy, "v4", "*", {})
        assert r.status == 200 and "fwd=bypass" in r.h("Cache-Status") and origin_requests(fo, "v4") == n


def test_at_most_max_variants_are_kept_least_recently_used_first_out(origins, tmp_path):
    _, fo, _ = origins
    with configured(origins, tmp_path, "max_variants: 2\n") as e:
        a, b, c = ({"Accept-Language": l} for l in "abc")
        for h in (a, b):
            assert get(e, "v5", "Accept-Language", h).status == 200
        assert get(e, "v5", "Accept-Language", a).h("Cache-Status").startswith("eddy; hit")  # b is now the oldest
        assert get(e, "v5", "Accept-Language", c).status == 200
        assert origin_requests(fo, "v5") == 3
        assert get(e, "v5", "Accept-Language", a).h("Cache-Status").startswith("eddy; hit")
        assert get(e, "v5", "Accept-Language", c).h("Cache-Status").startswith("eddy; hit")
        r = get(e, "v5", "Accept-Language", b)
        assert "hit" not in r.h("Cache-Status") and sha(r.body) == sha(expected("Accept-Language", b))
        assert origin_requests(fo, "v5") == 4
        assert e.metrics()["eddy_variants_retired_total"] >= 1


def test_an_unsafe_request_invalidates_every_variant(eddy, origins):
    _, fo, _ = origins
    target = url("v6", ("vary", "Accept-Language"))
    for l in ("fr", "en"):
        assert eddy.get(target, {"Accept-Language": l}).status == 200
    st, _, _ = send(eddy.port, "POST", target, b"x")
    assert st == 200
    before = origin_requests(fo, "v6")
    for l in ("fr", "en"):
        r = eddy.get(target, {"Accept-Language": l})
        assert "hit" not in r.h("Cache-Status") and sha(r.body) == sha(expected("Accept-Language", {"Accept-Language": l}))
    assert origin_requests(fo, "v6") == before + 2


def test_variants_are_found_again_after_a_restart(eddy, origins):
    _, fo, _ = origins
    for l in ("fr", "en"):
        assert get(eddy, "v7", "Accept-Language", {"Accept-Language": l}).status == 200
    assert eddy.stop() == 0
    eddy.start()
    for l in ("fr", "en"):
        r = get(eddy, "v7", "Accept-Language", {"Accept-Language": l})
        assert r.h("Cache-Status").startswith("eddy; hit") and sha(r.body) == sha(expected("Accept-Language", {"Accept-Language": l}))
    assert origin_requests(fo, "v7") == 2
