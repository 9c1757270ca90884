"""Offline you can trust (issue 28, items 1 and 6): a completed download plays with the origin
refused, black-holed (connects, never answers), or replaced by a captive portal (200 HTML, or a
302 to its login page); with the cached master fresh or stale by its headers; from a cache that
started empty or that a player had warmed before the download, followed by 3x the cache size of
other traffic. At the usual URL every request is answered 2xx within 2 s (within 50 ms once the
origin is marked unreachable), the master lists only what is held, every media file is the
origin's byte for byte, and ffmpeg and mpv play it; the same at the download's `offline_url`."""
import contextlib, os, statistics, subprocess, sys, time
import pytest
from conftest import HERE, Eddy, FaultOrigin, make_file, play, sha, stop_process, wait_for, wait_port
from test_downloads import ASSET, api, files_of, make_asset, wait_done

SELECTION = {"variant_index": 0, "audio": ["fr"], "subtitles": ["en"]}
DIRS = ["v0", "a1", "s0"]
MODES = ["refused", "blackhole", "portal200", "portal302"]


def uris(text):
    return [l for l in text.splitlines() if l and not l.startswith("#")]


def timed_get(e, path):
    t = time.monotonic()
    r = e.get(path, timeout=30)
    return r, time.monotonic() - t


class Hostile:
    """What the network puts where the origin was."""
    def __init__(self, port, mode):
        self.proc = None
        if mode != "refused":
            self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "hostile_net.py"), "--port", str(port), mode])
            try:
                wait_port(port, self.proc)
            except BaseException:
                stop_process(self.proc)
                raise

    def stop(self):
        if self.proc:
            stop_process(self.proc)


@contextlib.contextmanager
def download_then_stop_origin(origins, tmp_path, fresh, warm, make, warm_paths, url, selection, whole_online, flood_seed):
    """Yields (eddy, asset dir, job, origin port): `make(dir)` writes the asset under a fault
    origin (its responses stale after a second unless `fresh`); with `warm`, a player reads
    `warm_paths` first from an eddy of 2900K; the download of `url` with `selection` completes;
    online, the asset's top answer passes `whole_online(response)`; with `warm`, 3x the cache size
    of other traffic follows; then the origin is stopped."""
    ng = origins[0]
    fo = FaultOrigin(str(tmp_path), args=[] if fresh else ["--cc", "max-age=1"])
    d = make(fo.www)
    e = Eddy(str(tmp_path), ng, fo, ["--max-size", "2900K"] if warm else [])
    try:
        for p in warm_paths if warm else []:
            assert e.get(p).status == 200, p
        status, j = api(e, "POST", "/api/downloads", dict(selection, url=url))
        assert status == 201, j
        j = wait_done(e, j["id"])
        # Online, the asset's top is the origin's, whole: a player can climb above what was downloaded.
        r = e.get(url)
        assert r.status == 200 and whole_online(r), r.body
        for i in range(9 if warm else 0):
            make_file(os.path.join(ng.www, "flood-%d-%d.bin" % (flood_seed, i)), 1 << 20, flood_seed + i)
            assert e.get("/n/flood-%d-%d.bin" % (flood_seed, i)).status == 200
        if not fresh:
            time.sleep(1.2)  # everything stored is stale by its headers now
        port = fo.port
    finally:
        fo.stop()
    try:
        yield e, d, j, port
    finally:
        e.stop()


@pytest.fixture
def downloaded(origins, tmp_path, request):
    """(eddy, asset dir, job, origin port) for (fresh, warm): the download completed, the origin
    then stopped."""
    fresh, warm = request.param
    # A player watched the first seconds, with the default audio.
    seen = ["master.m3u8", "v0/index.m3u8", "v0/init_0.mp4", "v0/seg0.m4s", "v0/seg1.m4s", "a1/index.m3u8", "a1/seg0.m4s"]
    with download_then_stop_origin(origins, tmp_path, fresh, warm, lambda www: make_asset(os.path.join(www, ASSET)),
                                   ["/f/%s/%s" % (ASSET, p) for p in seen], "/f/%s/master.m3u8" % ASSET, SELECTION,
                                   lambda r: len(uris(r.body.decode())) == 5, 200) as got:
        yield got


CASES = [(fresh, warm) for fresh in (True, False) for warm in (False, True)]
IDS = ["%s-%s" % ("fresh" if f else "stale", "warm" if w else "empty") for f, w in CASES]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("downloaded", CASES, ids=IDS, indirect=True)
def test_a_download_plays_offline_on_any_broken_network(downloaded, mode):
    e, d, j, port = downloaded
    hostile = Hostile(port, mode)
    try:
        before = len(e.answered())
        r, first = timed_get(e, "/f/%s/master.m3u8" % ASSET)
        assert r.status == 200 and r.h("Cache-Status") == "eddy; hit; detail=offline", (r.status, r.headers)
        assert first < 2.0, first
        assert [u.split("/")[-2] for u in uris(r.body.decode())] == ["v0"], r.body
        # Marked unreachable now: nobody waits on it.
        times = [timed_get(e, "/f/%s/master.m3u8" % ASSET)[1] for _ in range(5)]
        assert statistics.median(times) < 0.05 and max(times) < 0.5, times
        for path, data in files_of(d, *DIRS).items():
            r, took = timed_get(e, "/f" + path)
            assert r.status == 200 and took < 2.0, (path, r.status, took)
            if not path.endswith(".m3u8"):
                assert sha(r.body) == sha(data), path
        play("http://127.0.0.1:%d/f/%s/master.m3u8" % (e.port, ASSET))
        # The download's own offline URL: the same files, laid out as an export, never the network.
        base = "/_eddy/offline/%s/" % j["id"]
        assert j["offline_url"] == "http://127.0.0.1:%d%smaster.m3u8" % (e.port, base), j["offline_url"]
        r, took = timed_get(e, base + "master.m3u8")
        assert r.status == 200 and r.h("Cache-Status") == "eddy; hit; detail=offline" and took < 0.5, (r.status, r.headers, took)
        assert uris(r.body.decode()) == ["v0/index.m3u8"], r.body
        for path, data in files_of(d, *DIRS).items():
            r, took = timed_get(e, base + path[len("/%s/" % ASSET):])
            assert r.status == 200 and took < 2.0, (path, r.status, took)
            if not path.endswith(".m3u8"):
                assert sha(r.body) == sha(data), path
        play(j["offline_url"])
        seen = e.answered()[before:]
        assert any(p.endswith(".m4s") for p, _ in seen), seen
        assert all(200 <= st < 300 for _, st in seen), [x for x in seen if not 200 <= x[1] < 300]
        status, again = api(e, "GET", "/api/downloads/" + j["id"])
        assert again["state"] == "completed" and again["playable_offline"] is True, again
    finally:
        hostile.stop()


@pytest.mark.parametrize("downloaded", [(True, False)], ids=["fresh-empty"], indirect=True)
def test_the_full_master_comes_back_with_the_origin(downloaded, tmp_path):
    """Refused, then the origin is back on its port: a background probe (backoff 1 s doubling)
    hears it, and players get the whole master again."""
    e, d, j, port = downloaded
    r = e.get("/f/%s/master.m3u8" % ASSET)
    assert r.h("Cache-Status") == "eddy; hit; detail=offline" and len(uris(r.body.decode())) == 1
    fo = FaultOrigin(str(tmp_path), port=port)
    try:
        def whole():
            r = e.get("/f/%s/master.m3u8" % ASSET)
            return len(uris(r.body.decode())) == 5 and r
        r = wait_for(whole, 40, 0.3, what="the origin's whole master again")
        assert r.status == 200 and "offline" not in r.h("Cache-Status"), r.headers
        assert "origin reachable again" in open(e.errpath).read()
    finally:
        fo.stop()


HOSTS = "/etc/hosts"
NAME = "eddy-offline-origin.test"


@pytest.mark.skipif(not os.access(HOSTS, os.W_OK), reason="needs a writable /etc/hosts to make a name stop resolving")
def test_a_download_plays_offline_when_its_origins_name_no_longer_resolves(origins, tmp_path):
    """The origin is reached by a name (in /etc/hosts, on loopback) while the download runs; then
    the name stops resolving and eddy restarts (a laptop on a plane). The master, still fresh by
    its headers, is served cut down within 2 s, and the asset plays at both URLs."""
    ng = origins[0]
    fo = FaultOrigin(str(tmp_path))
    d = make_asset(os.path.join(fo.www, ASSET))
    saved = open(HOSTS).read()
    e = None
    try:
        with open(HOSTS, "a") as f:
            f.write("\n127.0.0.1 %s\n" % NAME)
        e = Eddy(str(tmp_path), ng, fo, ["--origin", "/u/=http://%s:%d" % (NAME, fo.port)])
        status, j = api(e, "POST", "/api/downloads", dict(SELECTION, url="/u/%s/master.m3u8" % ASSET))
        assert status == 201, j
        j = wait_done(e, j["id"])
        e.stop()
        with open(HOSTS, "w") as f:
            f.write(saved)
        e.start()
        r, took = timed_get(e, "/u/%s/master.m3u8" % ASSET)
        assert r.status == 200 and r.h("Cache-Status") == "eddy; hit; detail=offline" and took < 2.0, (r.status, r.headers, took)
        assert [u.split("/")[-2] for u in uris(r.body.decode())] == ["v0"], r.body
        for path, data in files_of(d, *DIRS).items():
            r, took = timed_get(e, "/u" + path)
            assert r.status == 200 and took < 2.0 and (path.endswith(".m3u8") or sha(r.body) == sha(data)), (path, r.status, took)
        play("http://127.0.0.1:%d/u/%s/master.m3u8" % (e.port, ASSET))
        j = api(e, "GET", "/api/downloads/" + j["id"])[1]
        play(j["offline_url"])
        assert "origin unreachable" in open(e.errpath).read()
    finally:
        with open(HOSTS, "w") as f:
            f.write(saved)
        if e:
            e.stop()
        fo.stop()
