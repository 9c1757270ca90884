"""Cache keys that survive signed URLs (issue 31, item 7): with a `cache_key` rule, viewers whose
CloudFront-style signatures differ share one origin fetch, the upstream request still carries the
viewer's whole URL, a download shares it too, and a stored playlist names its segments with each
viewer's own signature; without a rule (the default) every signature is its own resource."""
import json, os
import pytest
from conftest import Eddy, FaultOrigin, request, sha, wait_for
from test_downloads import api, wait_done

SIGNED = "Expires=%d&Signature=%s&Key-Pair-Id=APKA1"


@pytest.fixture
def setup(origins, tmp_path):
    """(eddy with a rule for the fault origin, the fault origin, a 3 MiB file's bytes)."""
    fo = FaultOrigin(str(tmp_path))
    data = os.urandom(3 << 20)
    open(os.path.join(fo.www, "film.bin"), "wb").write(data)
    os.makedirs(os.path.join(fo.www, "show"))
    open(os.path.join(fo.www, "show", "index.m3u8"), "w").write(
        "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg0.ts?" + SIGNED % (1, "first") + "&n=0\n"
        "#EXTINF:2,\nseg1.ts\n#EXT-X-ENDLIST\n")
    for i in range(2):
        open(os.path.join(fo.www, "show", "seg%d.ts" % i), "wb").write(os.urandom(100 << 10))
    cfg = tmp_path / "eddy.yaml"
    cfg.write_text("cache_key:\n  - { url: \"http://127.0.0.1:%d/\", ignore_query: [Expires, Signature, Key-Pair-Id] }\n" % fo.port)
    e = Eddy(str(tmp_path), origins[0], fo, ["--config", str(cfg)])
    yield e, fo, data
    e.stop()
    fo.stop()


def origin(fo, path):
    return fo.stats()["paths"].get(path, {"requests": 0, "bytes": 0})


def test_two_signatures_cost_one_fetch_with_the_rule_and_the_origin_sees_the_whole_url(setup):
    e, fo, data = setup
    a = e.get("/f/film.bin?" + SIGNED % (100, "alice"))
    assert a.status == 200 and sha(a.body) == sha(data)
    last = json.loads(request(fo.port, "/_last?path=/film.bin").body)
    assert last["target"] == "/film.bin?" + SIGNED % (100, "alice"), last
    b = e.get("/f/film.bin?" + SIGNED % (200, "bob"))
    assert b.status == 200 and sha(b.body) == sha(data)
    assert b.h("Cache-Status").startswith("eddy; hit"), b.h("Cache-Status")
    assert origin(fo, "/film.bin") == {"requests": 1, "bytes": len(data)}
    # A range from a third viewer, and a download with a fourth signature: still nothing more.
    r = e.get("/f/film.bin?" + SIGNED % (300, "carol"), headers={"Range": "bytes=100-199"})
    assert r.status == 206 and r.body == data[100:200]
    status, j = api(e, "POST", "/api/downloads", {"url": "/f/film.bin?" + SIGNED % (400, "dave")})
    assert status == 201 and j["kind"] == "file", j
    j = wait_done(e, j["id"])
    assert j["bytes_done"] == len(data) and j["pinned_bytes"] == len(data), j
    assert origin(fo, "/film.bin") == {"requests": 1, "bytes": len(data)}
    # Parameters the rule does not name stay in the key.
    assert e.get("/f/film.bin?" + SIGNED % (500, "erin") + "&quality=hd").status == 200
    assert origin(fo, "/film.bin")["requests"] == 2


def test_without_a_rule_each_signature_is_its_own_fetch(setup, origins):
    e, fo, data = setup
    ng = origins[0]
    open(os.path.join(ng.www, "signed-film.bin"), "wb").write(data)
    before = sum(1 for x in ng.requests() if x[3].startswith("/signed-film.bin"))
    for who in ("alice", "bob"):
        r = e.get("/n/signed-film.bin?" + SIGNED % (1, who))
        assert r.status == 200 and sha(r.body) == sha(data)
    fetched = [x for x in ng.requests() if x[3].startswith("/signed-film.bin")][before:]
    assert len(fetched) == 2 and sum(x[1] for x in fetched) == 2 * len(data), fetched


def test_a_stored_playlist_names_segments_with_each_viewers_own_signature(setup):
    e, fo, data = setup
    for who in ("alice", "bob"):
        r = e.get("/f/show/index.m3u8?" + SIGNED % (7, who))
        assert r.status == 200
        text = r.body.decode()
        # The segment the origin signed (for nobody in particular) carries this viewer's signature;
        # the unsigned one stays unsigned.
        assert ("/f/show/seg0.ts?" + SIGNED % (7, who) + "&n=0") in text, text
        assert "/f/show/seg1.ts\n" in text, text
        seg = e.get("/f/show/seg0.ts?" + SIGNED % (7, who) + "&n=0")
        assert seg.status == 200 and len(seg.body) == 100 << 10
    assert origin(fo, "/show/index.m3u8")["requests"] == 1
    assert origin(fo, "/show/seg0.ts")["requests"] == 1


def test_deleting_one_signed_download_keeps_what_another_signature_holds(setup):
    e, fo, data = setup
    ids = []
    for who in ("alice", "bob"):
        status, j = api(e, "POST", "/api/downloads", {"url": "/f/film.bin?" + SIGNED % (1, who)})
        assert status == 201, j
        ids.append(wait_done(e, j["id"])["id"])
    assert origin(fo, "/film.bin")["bytes"] == len(data)
    assert api(e, "DELETE", "/api/downloads/" + ids[0])[0] == 200
    # The copy is the other download's too: still pinned and whole, served with the origin gone.
    j = api(e, "GET", "/api/downloads/" + ids[1])[1]
    assert j["state"] == "completed" and j["pinned_bytes"] == len(data), j
    assert e.metrics()["eddy_cache_pinned_bytes"] >= len(data)
    fo.stop()
    r = e.get("/f/film.bin?" + SIGNED % (9, "carol"))
    assert r.status == 200 and sha(r.body) == sha(data)
    # PATCH of renditions on a file is refused at once, and the rate with it is not applied.
    status, bad = api(e, "PATCH", "/api/downloads/" + ids[1], {"audio": ["en"], "rate": "1M"})
    assert status == 400 and "only for HLS" in bad["error"], bad
    assert api(e, "GET", "/api/downloads/" + ids[1])[1]["rate_limit"] is None
