"""Pins hold everything the plan needs (issue 28, item 2): segments a player cached before the
download are pinned like the ones it fetches, so 3x the cache size of other traffic afterwards
evicts none of them; `eddy download verify` finds a deleted data file and a flipped byte, and the
job fetches them again."""
import glob, os, subprocess, time
from conftest import EDDY, make_file, sha
from test_download_keeping import add, setup  # noqa: F401 (setup: a fixture)
from test_downloads import ASSET, api, but_the_master, files_of, origin_paths, wait_done


def warm_then_flood(e, ng, d, tag):
    """A player pulls part of v1 and a0 in; after the download, 3x the cache of other traffic."""
    for path in ["/%s/master.m3u8" % ASSET, "/%s/v1/index.m3u8" % ASSET, "/%s/v1/init_1.mp4" % ASSET,
                 "/%s/v1/seg0.m4s" % ASSET, "/%s/v1/seg1.m4s" % ASSET, "/%s/a0/index.m3u8" % ASSET, "/%s/a0/seg0.m4s" % ASSET]:
        assert e.get("/f" + path).status == 200, path
    # Half of seg2: a partly cached segment the download completes.
    r = e.get("/f/%s/v1/seg2.m4s" % ASSET, headers={"Range": "bytes=0-999"})
    assert r.status == 206
    j = wait_done(e, add(e, variant_index=1, audio=["en"], subtitles=["none"])["id"])
    for i in range(9):
        make_file(os.path.join(ng.www, "%s-flood%d.bin" % (tag, i)), 1 << 20, 100 + i)
        r = e.get("/n/%s-flood%d.bin" % (tag, i))
        assert r.status == 200 and len(r.body) == 1 << 20
    return j


def test_segments_a_player_cached_first_are_pinned_and_survive_other_traffic(origins, setup):
    ng = origins[0]
    e, fo, d = setup("--max-size", "2900K")
    j = warm_then_flood(e, ng, d, "pins")
    assert e.metrics()["eddy_cache_bytes"] <= 2900 << 10
    fo.reset()
    for path, data in files_of(d, "v1", "a0").items():
        r = e.get("/f" + path)
        assert r.status == 200 and (path.endswith(".m3u8") or sha(r.body) == sha(data)), path
    assert but_the_master(fo) == {}, origin_paths(fo)
    again = api(e, "GET", "/api/downloads/" + j["id"])[1]
    assert again["playable_offline"] is True and all(r["complete"] for r in again["renditions"]), again
    assert e.metrics()["eddy_cache_pinned_bytes"] >= again["bytes_done"], (e.metrics()["eddy_cache_pinned_bytes"], again)


def test_verify_finds_a_deleted_file_and_a_flipped_byte_and_mends_them(origins, setup):
    e, fo, d = setup()
    j = wait_done(e, add(e, variant_index=0, audio=["en"], subtitles=["none"])["id"])
    admin = ["--admin", "127.0.0.1:%d" % e.admin]
    r = subprocess.run([EDDY, "download", "verify", j["id"], *admin], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "damaged" not in r.stdout, (r.stdout, r.stderr)
    # The data files of two segments, found by their bytes: one deleted, one with a byte flipped.
    seg = {n: open(os.path.join(d, "v0", n), "rb").read() for n in ("seg1.m4s", "seg3.m4s")}
    found = {}
    for f in glob.glob(os.path.join(e.cache, "data", "*", "*")):
        data = open(f, "rb").read()
        for n, b in seg.items():
            if data == b:
                found[n] = f
    assert set(found) == set(seg), found
    os.unlink(found["seg1.m4s"])
    with open(found["seg3.m4s"], "r+b") as f:
        f.seek(100)
        b = f.read(1)
        f.seek(100)
        f.write(bytes([b[0] ^ 0xFF]))
    fo.reset()
    r = subprocess.run([EDDY, "download", "verify", j["id"], *admin], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert "/dl/v0/seg1.m4s" in r.stdout and "/dl/v0/seg3.m4s" in r.stdout, r.stdout
    done = wait_done(e, j["id"])
    assert done["playable_offline"] is True
    fetched = origin_paths(fo)
    assert set(fetched) == {"/%s/v0/seg1.m4s" % ASSET, "/%s/v0/seg3.m4s" % ASSET}, fetched
    for n, b in seg.items():
        r = e.get("/f/%s/v0/%s" % (ASSET, n))
        assert r.status == 200 and sha(r.body) == sha(b), n
    status, report = api(e, "POST", "/api/downloads/%s/verify" % j["id"])
    assert status == 200 and report["damaged"] == [] and report["files_held"] == report["files"], report
    assert report["bytes_checked"] >= sum(len(b) for b in seg.values())
