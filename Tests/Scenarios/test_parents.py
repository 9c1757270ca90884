"""A parent tier (issue 32, items 1 and 2): edge eddys send every upstream fetch to a parent
eddy chosen by rendezvous hash of the cache key, in absolute form; each object is fetched from
the origin (nginx) once per tier; a dead parent's keys go to the next parent in their order;
with every parent down `parent_go_direct` decides between the origin and a 502; a loop (a parent
whose parent is its child) is a 508 at once. Cache-Status and Via list each hop, nearest the
origin first (RFC 9211 section 2, RFC 9110 section 7.6.3). Every node has its own cache directory;
all on loopback."""
import http.client, os, signal, uuid
import pytest
from conftest import Eddy, free_port, make_file, sha, wait_for

MiB = 1 << 20
DIR = "tier"
NAMES = ["t%d.bin" % i for i in range(8)]


def fetch(port, path, headers=None):
    """(status, body, [Cache-Status lines], [Via lines])."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body, r.msg.get_all("Cache-Status") or [], r.msg.get_all("Via") or []


def origin_requests(ng, name):
    return [r for r in ng.requests() if r[3] == "/%s/%s" % (DIR, name)]


@pytest.fixture
def tier(origins, tmp_path):
    """Files under /tier/ on nginx, two parents and two edges in front of them."""
    global DIR
    ng, fo, _ = origins
    DIR = "tier-" + uuid.uuid4().hex[:8]  # nginx's log is the session's: each test its own files
    d = os.path.join(ng.www, DIR)
    os.makedirs(d, exist_ok=True)
    data = {}
    for i, n in enumerate(NAMES):
        make_file(os.path.join(d, n), MiB + i * 4099, 700 + i)
        data[n] = open(os.path.join(d, n), "rb").read()
    nodes = []

    def node(name, *extra, port=None):
        base = os.path.join(str(tmp_path), name)
        os.makedirs(base, exist_ok=True)
        e = Eddy(base, ng, fo, ["--name", name, *extra], port=port)
        nodes.append(e)
        return e

    yield ng, data, node
    for e in nodes:
        e.stop()


def test_each_object_is_fetched_once_per_tier_through_its_parent(tier):
    ng, data, node = tier
    parents = [node("parent-1", "--child", "127.0.0.0/8"), node("parent-2", "--child", "127.0.0.1")]
    plist = sum((["--parent", "http://127.0.0.1:%d" % p.port] for p in parents), [])
    edges = [node("edge-1", *plist), node("edge-2", *plist)]
    homes = {}
    for n in NAMES:
        s, body, cs, via = fetch(edges[0].port, "/n/%s/" % DIR + n)
        assert s == 200 and sha(body) == sha(data[n]), (n, s)
        # The parent's entry first, then the edge's: both missed, both stored.
        assert len(cs) == 2 and cs[0].startswith("parent-") and "fwd=uri-miss" in cs[0], cs
        assert cs[1].startswith("edge-1; fwd=uri-miss"), cs
        homes[n] = cs[0].split(";")[0]
        assert ", ".join(via).endswith("parent-%s, 1.1 edge-1" % homes[n][-1]), via
        # The second edge: the same parent, a hit there; the origin is not asked again.
        s, body, cs, _ = fetch(edges[1].port, "/n/%s/" % DIR + n, headers={"Range": "bytes=100-199"})
        assert s == 206 and body == data[n][100:200], (n, s)
        assert cs[0].startswith(homes[n] + "; hit") and cs[1].startswith("edge-2;"), (homes[n], cs)
        got = origin_requests(ng, n)
        assert len(got) == 1 and got[0][1] == len(data[n]), got
        # nginx saw the request through both hops, in order.
        assert got[0][2] == "1.1 edge-1, 1.1 %s" % homes[n], got
    sent = sum(r[1] for n in NAMES for r in origin_requests(ng, n))
    # The keys are shared between the parents, each on one only. Eight keys all hash to one
    # parent once in 128 tiers (the directory, and so the keys, is new each run): more keys, the
    # same file under a query, until the other parent is seen (a miss: 2^-40).
    seen = set(homes.values())
    for i in range(32):
        if len(seen) == 2:
            break
        s, body, cs, _ = fetch(edges[0].port, "/n/%s/%s?spread=%d" % (DIR, NAMES[0], i))
        assert s == 200 and sha(body) == sha(data[NAMES[0]]) and cs[0].startswith("parent-"), (s, cs)
        seen.add(cs[0].split(";")[0])
    assert seen == {"parent-1", "parent-2"}, (homes, seen)
    assert sent == sum(len(b) for b in data.values())


def test_a_dead_parent_moves_its_keys_to_the_next_and_go_direct_decides_when_all_are_dead(tier):
    ng, data, node = tier
    parents = [node("parent-1", "--child", "127.0.0.1"), node("parent-2", "--child", "127.0.0.1")]
    plist = sum((["--parent", "http://127.0.0.1:%d" % p.port] for p in parents), [])
    edge = node("edge-1", *plist)
    fresh = node("edge-2", *plist)
    strict_cfg = os.path.join(edge.base, "strict.yaml")
    open(strict_cfg, "w").write("parent_go_direct: false\n")
    strict = node("edge-9", *plist, "--config", strict_cfg)
    homes = {}
    for n in NAMES[:4]:
        s, body, cs, _ = fetch(edge.port, "/n/%s/" % DIR + n)
        assert s == 200 and sha(body) == sha(data[n])
        homes[n] = cs[0].split(";")[0]
    dead = parents[0]
    dead.stop(sig=signal.SIGKILL)
    # Its keys go to parent-2, which fetches only what it lacked; the others are hits there.
    for n in NAMES[:4]:
        s, body, cs, _ = fetch(fresh.port, "/n/%s/" % DIR + n)
        assert s == 200 and sha(body) == sha(data[n]), (n, s, cs)
        assert cs[0].startswith("parent-2;" if homes[n] == "parent-1" else "parent-2; hit"), (n, homes[n], cs)
        assert len(origin_requests(ng, n)) == (2 if homes[n] == "parent-1" else 1), (n, homes[n])
    # Both dead: go_direct (the default) asks the origin; parent_go_direct: false answers 502.
    parents[1].stop(sig=signal.SIGKILL)
    s, body, cs, _ = fetch(edge.port, "/n/%s/" % DIR + NAMES[6])
    assert s == 200 and sha(body) == sha(data[NAMES[6]]) and len(cs) == 1, (s, cs)
    assert ng.requests()[-1][2] == "1.1 edge-1"
    s, body, cs, _ = fetch(strict.port, "/n/%s/" % DIR + NAMES[7])
    assert s == 502, (s, body)
    assert not origin_requests(ng, NAMES[7])


def test_a_loop_between_two_nodes_is_508_at_once(tier):
    ng, data, node = tier
    pa, pb = free_port(), free_port()
    while pb == pa:
        pb = free_port()
    a = node("node-a", "--parent", "http://127.0.0.1:%d" % pb, "--child", "127.0.0.1", port=pa)
    b = node("node-b", "--parent", "http://127.0.0.1:%d" % pa, "--child", "127.0.0.1", port=pb)
    s, body, cs, _ = fetch(a.port, "/n/%s/" % DIR + NAMES[0])
    assert s == 508, (s, body, cs)
    assert not origin_requests(ng, NAMES[0])
    wait_for(lambda: "request loop refused" in open(a.errpath).read(), 10, what="the loop in node-a's log")


def test_a_refresh_through_a_parent_asks_the_origin_not_the_parents_copy(tier):
    """The parent holds a fresh copy (an hour's max-age); the origin's file changes. The edge's
    refresh says no-cache, which the parent obeys for its children: it asks the origin, and the
    edge fetches the new version (through the parent)."""
    from test_downloads import api, wait_done
    ng, data, node = tier
    parent = node("parent-1", "--child", "127.0.0.1")
    edge = node("edge-1", "--parent", "http://127.0.0.1:%d" % parent.port)
    url = "/n/%s/%s" % (DIR, NAMES[0])
    status, j = api(edge, "POST", "/api/downloads", {"url": url})
    assert status == 201, j
    wait_done(edge, j["id"])
    status, r = api(edge, "POST", "/api/downloads/%s/refresh" % j["id"])
    assert status == 200 and r["changed"] is False, r
    path = os.path.join(ng.www, DIR, NAMES[0])
    make_file(path, 2 * MiB + 5, 4242)
    new = open(path, "rb").read()
    status, r = api(edge, "POST", "/api/downloads/%s/refresh" % j["id"])
    assert status == 200 and r["changed"] is True and r["length"] == len(new), r
    wait_done(edge, j["id"])
    wait_for(lambda: sha(fetch(edge.port, url)[1]) == sha(new), 15, what="the new version at the edge")
    s, body, cs, _ = fetch(parent.port, "http://127.0.0.1:%d/%s/%s" % (ng.port, DIR, NAMES[0]))
    assert s == 200 and sha(body) == sha(new), "the parent holds the new version too"


def test_a_black_holed_parent_costs_one_connect_timeout_then_its_keys_go_to_the_next(tier):
    """A parent that accepts connections and never answers (a dead route): the first request for
    one of its keys waits the connect timeout, then goes to the next parent; the requests after it
    skip the black-holed parent at once (it is down, probed again later, one request at a time)."""
    import subprocess, sys, time
    from conftest import HERE, stop_process, wait_port
    ng, data, node = tier
    hole = free_port()
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "hostile_net.py"), "--port", str(hole), "blackhole"])
    try:
        wait_port(hole, proc)
        good = node("parent-2", "--child", "127.0.0.1")
        edge = node("edge-1", "--parent", "http://127.0.0.1:%d" % hole, "--parent", "http://127.0.0.1:%d" % good.port,
                    "--connect-timeout", "2", "--stall-timeout", "2")
        took = []
        for i in range(20):  # 20 keys: about half of them hash to the black-holed parent first
            t0 = time.monotonic()
            s, body, cs, _ = fetch(edge.port, "/n/%s/%s?k=%d" % (DIR, NAMES[0], i))
            took.append(time.monotonic() - t0)
            assert s == 200 and sha(body) == sha(data[NAMES[0]]), (i, s, cs)
            assert cs[0].startswith("parent-2;"), cs
        # The first key homed at the dead route waited for it (about the stall timeout); the
        # others went straight to parent-2, but for a probe after the 1 s backoff on a slow machine.
        assert max(took) < 6 and 1 <= sum(t > 1.5 for t in took) and sum(t > 1.0 for t in took) <= 2, took
    finally:
        stop_process(proc)


@pytest.mark.parametrize("mode", ["refused", "blackhole"])
def test_a_download_on_a_parent_plays_through_the_edges_with_the_origin_gone(origins, tmp_path, mode):
    """Issue 32, item 3: a download runs on a parent (`eddy download add --admin` pointed at it)
    and holds the pinned copy there. With the origin refused, or black-holed (accepts, never
    answers), both edges play it byte-exact: an edge warmed by a player before, and one that
    never saw it. A key whose home is the other parent gets that parent's 502 or 504 (it holds
    nothing, and tells a child at once once it knows the origin unreachable), and the edge asks
    the key's next parent, which holds the download (ATS's simple retry). Offline, the master
    lists only what was downloaded, as the offline policy says."""
    import time
    from conftest import FaultOrigin, play, request
    from test_downloads import ASSET, cli_download_completes, files_of, make_asset
    from test_offline_trust import Hostile, uris
    ng = origins[0]
    fo = FaultOrigin(str(tmp_path))
    d = make_asset(os.path.join(fo.www, ASSET))
    nodes = []

    def node(name, *extra):
        base = os.path.join(str(tmp_path), name)
        os.makedirs(base, exist_ok=True)
        nodes.append(Eddy(base, ng, fo, ["--name", name, "--stall-timeout", "3", "--connect-timeout", "3", *extra]))
        return nodes[-1]
    hostile = None
    try:
        parents = [node("parent-1", "--child", "127.0.0.1"), node("parent-2", "--child", "127.0.0.1")]
        plist = sum((["--parent", "http://127.0.0.1:%d" % p.port] for p in parents), [])
        warm, cold = node("edge-1", *plist), node("edge-2", *plist)
        # The download, added with the CLI on parent-1: its units are fetched there, from the origin.
        cli_download_completes(parents[0], "/f/%s/master.m3u8" % ASSET, "--variant-index", "0", "--audio", "fr", "--subtitles", "en")
        # The route dies while edge-1's prefetches of the next segments are still arriving: their
        # home parents that do not hold the download keep a few bytes of each. Seen in CI: parent-2
        # then answered a child's range of such a copy with a head and no byte, and the edge its
        # player with a head cut off at once, every time (the edge never asked parent-1).
        for rendition in ["v0", "a1"]:
            for seg in ["seg1.m4s", "seg2.m4s", "seg3.m4s"]:
                assert request(fo.port, "/_set?path=/%s/%s/%s&fail=trickle" % (ASSET, rendition, seg)).status == 200
        # A player on edge-1 watched the first seconds while the origin was there.
        for p in ["master.m3u8", "v0/index.m3u8", "v0/init_0.mp4", "v0/seg0.m4s", "a1/index.m3u8", "a1/seg0.m4s"]:
            assert warm.get("/f/%s/%s" % (ASSET, p)).status == 200, p
        warmed = time.monotonic()
        port = fo.port
        fo.stop()
        hostile = Hostile(port, mode)
        files = files_of(d, "v0", "a1", "s0")
        # A parent may answer an edge with its copy of the master while that copy is at most a
        # second old (max-age=1, in whole seconds): the window in which a player can still get
        # the origin's whole master from a parent that does not hold the download. Past it:
        time.sleep(max(0.0, 2.1 - (time.monotonic() - warmed)))
        for e in (cold, warm):
            s, body, cs, _ = fetch(e.port, "/f/%s/master.m3u8" % ASSET)
            assert s == 200, (s, body, cs)
            assert [u.split("/")[-2] for u in uris(body.decode())] == ["v0"], (body, cs)
            assert cs[0] == "parent-1; hit; detail=offline", cs
            took = []
            for path, data in files.items():
                t0 = time.monotonic()
                r = e.get("/f" + path, timeout=30)
                took.append(time.monotonic() - t0)
                assert r.status == 200, (path, r.status, r.body[:200], r.headers)
                if not path.endswith(".m3u8"):
                    assert sha(r.body) == sha(data), (path, len(r.body), r.headers)
            # Refused: no request waits. Black-holed: the first key homed on parent-2 waits one
            # stall timeout (3 s); after it, parent-2 answers at once (or is skipped as down).
            assert sum(t > 1.0 for t in took) <= (0 if mode == "refused" else 1) and max(took) < 8, took
            play("http://127.0.0.1:%d/f/%s/master.m3u8" % (e.port, ASSET))
    finally:
        if hostile:
            hostile.stop()
        fo.stop()
        for e in nodes:
            e.stop()


def test_a_parent_starts_no_prefetch_for_a_childs_hit(tier, streams):
    """A child prefetches through each segment's own parent; the parent prefetching after a
    child's hit fetched segments whose home is another parent (two origin fetches of one object
    in the tier, seen in CI through HAProxy). Three edges that do not prefetch ask the parent for
    the same segment: a miss, a hit, then a hit answered from the parent's published snapshot.
    The next segment then reaches the origin once, asked by an edge, never by the parent alone."""
    import shutil
    ng, data, node = tier
    shutil.copytree(os.path.join(streams, "fmp4"), os.path.join(ng.www, DIR, "a"))
    parent = node("parent-1", "--child", "127.0.0.1")
    edges = [node("edge-%d" % i, "--parent", "http://127.0.0.1:%d" % parent.port, "--prefetch-segments", "0") for i in (1, 2, 3)]
    base = "/n/%s/a/lo/" % DIR
    for e in edges:
        s, _, cs, _ = fetch(e.port, base + "index.m3u8")
        assert s == 200, cs
    seen = []
    for e in edges:
        s, body, cs, _ = fetch(e.port, base + "seg0.m4s")
        assert s == 200 and sha(body) == sha(open(os.path.join(ng.www, DIR, "a", "lo", "seg0.m4s"), "rb").read())
        seen.append(cs[0])
    assert seen[0].startswith("parent-1; fwd=uri-miss") and seen[2].startswith("parent-1; hit"), seen
    s, body, cs, _ = fetch(edges[0].port, base + "seg1.m4s")
    assert s == 200 and sha(body) == sha(open(os.path.join(ng.www, DIR, "a", "lo", "seg1.m4s"), "rb").read())
    got = [r for r in ng.requests() if r[3] == "/%s/a/lo/seg1.m4s" % DIR]
    assert len(got) == 1 and got[0][2] == "1.1 edge-1, 1.1 parent-1", got
