"""Operating eddy (issue 14): the cache's admin API and CLI (ls, show, purge, pin, unpin, stats,
status), fills in flight, health and readiness, and access control of the admin listener."""
import http.client, json, os, subprocess, time
import pytest
from conftest import EDDY, Eddy, make_file, request, sha, stream_in_background, wait_for


def cli(e, *args, env=None):
    """Runs `eddy ARGS --admin ...`; returns (exit status, stdout, stderr)."""
    r = subprocess.run([EDDY, *args, "--admin", "127.0.0.1:%d" % e.admin], capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout, r.stderr


def api(e, method, path, headers=None):
    r = request(e.admin, path, headers, method)
    return r.status, (json.loads(r.body) if r.body else None)


def upstream(e, path):
    return "http://127.0.0.1:%d%s" % (e.nginx.port, path)


@pytest.fixture
def files(origins):
    """Files of their own under nginx's /adm/ (a fresh directory per test)."""
    ng = origins[0]
    d = os.path.join(ng.www, "adm")
    os.makedirs(d, exist_ok=True)
    made = {}
    for i, size in enumerate([300 * 1024, 5 * 1024 * 1024, 2048]):
        name = "adm/f%d-%d.bin" % (i, time.monotonic_ns())
        make_file(os.path.join(ng.www, name), size, 40 + i)
        made[name] = open(os.path.join(ng.www, name), "rb").read()
    return made


def test_cache_ls_all_json_is_one_document_with_every_page(eddy, files):
    """Three resources, pages of one: `--all --json` prints one JSON document with all three
    (pages run together parse as none; issue 29)."""
    for name in files:
        assert eddy.get("/n/" + name).status == 200
    code, out, err = cli(eddy, "cache", "ls", upstream(eddy, "/adm/"), "--all", "--json", "--limit", "1")
    assert code == 0, err
    listed = json.loads(out)["resources"]
    assert sorted(x["key"] for x in listed) == sorted(upstream(eddy, "/" + n) for n in files), out


def test_metrics_and_error_answers_say_what_redbot_asks(eddy, origins):
    """`/metrics` is not stored by anyone (no-store, as every other admin answer); a stored error
    answer does not advertise byte ranges (issue 29)."""
    assert request(eddy.admin, "/metrics").h("Cache-Control") == "no-store"
    for _ in range(2):  # the fault origin's 404 is stored (negative caching), then a hit
        r = eddy.get("/f/no-such-file-%d.bin" % os.getpid())
        assert r.status == 404 and r.h("Accept-Ranges") is None, r.headers
    r = eddy.get("/n/small.bin")
    assert r.status == 200 and r.h("Accept-Ranges") == "bytes"


def test_a_purge_through_the_cli_makes_the_next_request_a_miss(eddy, files):
    name = next(iter(files))
    path = "/n/" + name
    assert eddy.get(path).status == 200
    r = eddy.get(path)
    assert r.h("Cache-Status").startswith("eddy; hit"), r.headers
    code, out, err = cli(eddy, "cache", "ls", upstream(eddy, "/adm/"), "--json")
    assert code == 0, err
    listed = json.loads(out)["resources"]
    assert [x["key"] for x in listed] == [upstream(eddy, "/" + name)]
    assert listed[0]["cached_bytes"] == len(files[name]) and listed[0]["complete"] is True
    code, out, err = cli(eddy, "cache", "show", path)
    assert code == 0, err
    assert "[" + "#" * 60 + "]" in out and "cached 0-%d" % (len(files[name]) - 1) in out, out
    code, out, err = cli(eddy, "cache", "purge", path)
    assert code == 0 and out.strip() == "purged 1", (out, err)
    before = eddy.nginx.requests()
    r = eddy.get(path)
    assert r.status == 200 and sha(r.body) == sha(files[name])
    assert "fwd=uri-miss" in r.h("Cache-Status"), r.headers  # nothing stored under the URL
    assert len(eddy.nginx.requests()) == len(before) + 1
    # Gone means gone: show says so with exit 1 and a line on stderr.
    code, out, err = cli(eddy, "cache", "purge", path)
    assert code == 0
    code, out, err = cli(eddy, "cache", "show", "/n/adm/nothing-here.bin")
    assert code == 1 and "404" in err, (code, err)


def test_windows_and_histograms_count_what_was_served(eddy, files):
    names = sorted(files)
    served = 0
    for n in names:
        assert eddy.get("/n/" + n).status == 200  # three misses
    for n in names[:2]:
        r = eddy.get("/n/" + n)  # two hits
        assert r.h("Cache-Status").startswith("eddy; hit")
        served += len(r.body)
    status, c = api(eddy, "GET", "/api/cache")
    assert status == 200 and set(c["windows"]) == {"5m", "1h", "24h"}, c
    for w in ("5m", "1h", "24h"):
        win = c["windows"][w]
        assert (win["requests"], win["hits"], win["origin_bytes_saved"]) == (5, 2, served), (w, win)
        assert win["hit_ratio"] == 0.4 and win["bytes_served"] == served + sum(len(files[n]) for n in names), win
    assert len(c["series"]) == 60 and sum(m["requests"] for m in c["series"]) == 5
    assert c["series"][-1]["time"] % 60 == 0
    m = eddy.metrics()
    assert m['eddy_first_byte_seconds_count{kind="hit"}'] == 2 and m['eddy_first_byte_seconds_count{kind="miss"}'] == 3, m
    assert m['eddy_first_byte_seconds_bucket{kind="hit",le="+Inf"}'] == 2
    assert 0 < m['eddy_first_byte_seconds_sum{kind="hit"}'] < 2
    assert m["eddy_fill_duration_seconds_count"] >= 3
    # One new connection to nginx at least (keep-alive reuses it after).
    assert 1 <= m["eddy_upstream_connect_seconds_count"] <= 3, m["eddy_upstream_connect_seconds_count"]


def test_the_range_map_shows_cached_ranges_and_holes(eddy, files):
    name = [n for n in files if len(files[n]) == 5 * 1024 * 1024][0]
    r = eddy.get("/n/" + name, headers={"Range": "bytes=0-99"})
    assert r.status == 206
    wait_for(lambda: not [f for f in eddy.fills() if name in f["url"]], 10, what="the range's fill to end")
    status, j = api(eddy, "GET", "/api/resources/" + upstream(eddy, "/" + name).replace("/", "%2F").replace(":", "%3A"))
    assert status == 200, j
    assert j["length"] == 5 * 1024 * 1024 and j["complete"] is False
    assert j["ranges"][0][0] == 0 and j["ranges"][-1][1] < j["length"], j
    assert j["holes"][-1][1] == j["length"] and j["cached_bytes"] == sum(b - a for a, b in j["ranges"]), j
    code, out, _ = cli(eddy, "cache", "show", "/n/" + name)
    bar = [l for l in out.splitlines() if l.strip().startswith("[")][0].strip()
    assert bar[1] in "#+" and bar[-2] == "." and len(bar) == 62, out
    assert "hole   %d-%d" % (j["holes"][-1][0], j["length"] - 1) in out


def test_pin_keeps_a_resource_from_purge_and_unpin_lets_it_go(eddy, files):
    names = sorted(files)
    for n in names:
        assert eddy.get("/n/" + n).status == 200
    code, out, err = cli(eddy, "cache", "pin", "/n/" + names[0])
    assert code == 0 and "pinned" in out, err
    code, out, err = cli(eddy, "cache", "purge", "/n/" + names[0])
    assert code == 1 and "409" in err and "pinned" in err, (out, err)
    assert eddy.metrics()["eddy_cache_pinned_bytes"] == len(files[names[0]])
    # A purge by prefix takes the others and keeps the pinned one.
    code, out, err = cli(eddy, "cache", "purge", "--prefix", upstream(eddy, "/adm/"))
    assert code == 0 and out.strip() == "purged 2, kept 1 pinned", (out, err)
    status, page = api(eddy, "GET", "/api/resources?prefix=" + upstream(eddy, "/adm/"))
    assert [x["key"] for x in page["resources"]] == [upstream(eddy, "/" + names[0])]
    code, out, err = cli(eddy, "cache", "unpin", "/n/" + names[0])
    assert code == 0, err
    assert eddy.metrics()["eddy_cache_pinned_bytes"] == 0
    code, out, err = cli(eddy, "cache", "purge", "/n/" + names[0])
    assert code == 0 and out.strip() == "purged 1"


def test_pages_follow_their_cursor_in_every_order(eddy, origins):
    ng = origins[0]
    stamp = time.monotonic_ns()
    sizes = [1000, 5000, 3000, 4000, 2000]
    for i, size in enumerate(sizes):
        make_file(os.path.join(ng.www, "adm", "p%d-%d.bin" % (i, stamp)), size, i)
        assert eddy.get("/n/adm/p%d-%d.bin" % (i, stamp)).status == 200
    prefix = upstream(eddy, "/adm/p")
    for sort in ("key", "bytes", "last_access"):
        seen, cursor = [], None
        while True:
            q = "/api/resources?prefix=%s&sort=%s&limit=2" % (prefix, sort) + ("&cursor=" + cursor if cursor else "")
            status, page = api(eddy, "GET", q)
            assert status == 200 and len(page["resources"]) <= 2, page
            seen += page["resources"]
            cursor = page["next_cursor"]
            if not cursor:
                break
        keys = [x["key"] for x in seen]
        assert sorted(keys) == sorted(upstream(eddy, "/adm/p%d-%d.bin" % (i, stamp)) for i in range(5)), (sort, keys)
        if sort == "key":
            assert keys == sorted(keys)
        if sort == "bytes":
            assert [x["cached_bytes"] for x in seen] == sorted(sizes, reverse=True)
    assert api(eddy, "GET", "/api/resources?sort=size")[0] == 400
    assert api(eddy, "GET", "/api/resources?limit=0")[0] == 400
    assert api(eddy, "GET", "/api/resources?cursor=%%%")[0] == 200  # a bad cursor is the first page


def test_fills_in_flight_health_readiness_and_status(origins, tmp_path):
    ng, fo, data = origins
    e = Eddy(str(tmp_path), ng, fo)
    # A slow fill's player (below). It goes before the stop, which would otherwise wait (drain)
    # for the rest of its 20 s response.
    player = http.client.HTTPConnection("127.0.0.1", e.port, timeout=60)
    try:
        assert api(e, "GET", "/healthz") == (200, {"status": "ok"})
        assert api(e, "GET", "/readyz") == (200, {"cache": "ok", "status": "ready"})
        # A slow fill: 1 MB/s of a 20 MB file, a player on it.
        player.request("GET", "/f/medium.bin?rate=1000000")
        assert player.getresponse().status == 200
        fills = wait_for(lambda: [f for f in e.fills() if "medium.bin" in f["url"]], 10, what="the fill listed")
        f = fills[0]
        assert f["kind"] == "discovery" and f["waiting"] >= 1 and f["priority"] == "playback", f
        time.sleep(1)  # the subject: a second of the 1 MB/s fill, whose progress and rate are shown
        f2 = [x for x in api(e, "GET", "/api/fills")[1]["fills"] if x["id"] == f["id"]][0]
        assert f2["bytes"] > f["bytes"] and 200_000 < f2["rate"] < 3_000_000, (f, f2)
        code, out, err = cli(e, "status")
        assert code == 0 and "ready" in out and "1 in flight" in out and "medium.bin" in out, (out, err)
        code, out, err = cli(e, "status", "--json")
        assert code == 0 and json.loads(out)["status"] == "ready"
        code, out, err = cli(e, "cache", "stats")
        assert code == 0 and out.startswith("cached"), out
    finally:
        player.close()
        e.stop()
    # The admin listener gone: exit 2, a line on stderr.
    code, _, err = cli(e, "status")
    assert code == 2 and "cannot reach" in err


def test_admin_off_loopback_needs_a_token_and_checks_it(origins, tmp_path):
    ng, fo, _ = origins
    # 0.0.0.0 without a token: refused before anything is bound, with a clear message.
    r = subprocess.run([EDDY, "serve", "--listen", "127.0.0.1:0", "--cache-dir", str(tmp_path / "c0"),
                        "--origin", "/n/=http://127.0.0.1:%d" % ng.port, "--admin", "0.0.0.0:9"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "not a loopback address" in r.stderr and "admin_token" in r.stderr, r.stderr
    e = Eddy(str(tmp_path), ng, fo, ["--admin-token", "s3cret-token"])
    try:
        assert api(e, "GET", "/api/cache")[0] == 401
        assert request(e.admin, "/metrics").status == 401
        assert api(e, "GET", "/api/cache", {"Authorization": "Bearer wrong"})[0] == 401
        assert api(e, "GET", "/api/cache", {"Authorization": "Bearer s3cret-token"})[0] == 200
        assert api(e, "GET", "/healthz")[0] == 200, "probes carry no token"
        assert request(e.admin, "/").status == 200, "the page is open; it asks for the token (#token=)"
        assert request(e.admin, "/api/events").status == 401
        import http.client
        c = http.client.HTTPConnection("127.0.0.1", e.admin, timeout=10)
        c.request("GET", "/api/events", headers={"Authorization": "Bearer s3cret-token"})
        r = c.getresponse()
        assert r.status == 200 and r.getheader("Content-Type") == "text/event-stream"
        first = r.readline() + r.readline()
        assert first.startswith(b"event: snapshot\n") and b'"cache"' in first, first[:200]
        c.close()
        code, _, err = cli(e, "cache", "stats")
        assert code == 1 and "401" in err
        code, out, err = cli(e, "cache", "stats", env={"EDDY_ADMIN_TOKEN": "s3cret-token"})
        assert code == 0, err
        # The proxy listener never serves the API.
        assert e.get("/api/cache").status in (404, 502)
    finally:
        e.stop()


def test_a_purge_while_a_player_streams_leaves_that_body_whole(eddy, origins):
    """20 MiB through nginx's 5 MB/s location; a purge once 4 MiB are stored (about a second in):
    the player's body is whole and byte-exact, and the next request is a miss."""
    import urllib.parse
    ng, fo, data = origins
    t, got = stream_in_background(eddy.port, "/n/slow/medium.bin")
    key = urllib.parse.quote(upstream(eddy, "/slow/medium.bin"), safe="")
    wait_for(lambda: (api(eddy, "GET", "/api/resources/" + key)[1] or {}).get("cached_bytes", 0) >= 4 << 20, 20,
             what="4 MiB of the streamed body stored")
    assert api(eddy, "DELETE", "/api/resources/" + key) == (200, {"purged": 1})
    t.join(30)
    assert got == {"status": 200, "bytes": len(data["medium.bin"]), "sha": sha(data["medium.bin"])}, got
    assert "fwd=uri-miss" in eddy.get("/n/slow/medium.bin", headers={"Range": "bytes=0-9"}).h("Cache-Status")
