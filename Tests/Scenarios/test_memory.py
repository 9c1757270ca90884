"""The memory tier: small complete bodies served from memory, bounded, and never stale across versions."""
import os, time
from conftest import Eddy, sha


def test_small_bodies_from_memory_are_exact_and_bounded(origins, tmp_path):
    ng, fo, _ = origins
    bodies = {}
    for i in range(6):
        name = "mem%d.bin" % i
        bodies[name] = os.urandom(40_000 + i)
        open(os.path.join(ng.www, name), "wb").write(bodies[name])
    e = Eddy(str(tmp_path), ng, fo, ["--memory-cache", "100K"])
    try:
        for _ in range(3):
            for name, body in bodies.items():
                r = e.get("/n/" + name)
                assert r.status == 200 and sha(r.body) == sha(body), name
                r = e.get("/n/" + name, {"Range": "bytes=1000-1999"})
                assert r.status == 206 and r.body == body[1000:2000], name
        m = e.metrics()
        # Hits only after the first fetch of each; with 100K of room for six 40 KB bodies, some
        # come from memory and the held bytes never pass the budget.
        assert m["eddy_memory_hits_total"] >= 6
        assert 0 < m["eddy_memory_cache_bytes"] <= 100 * 1024
        assert m["eddy_cache_hits_total"] >= 6 * 6 - 6
    finally:
        e.stop()


def test_new_version_replaces_the_body_in_memory(eddy, origins):
    _, fo, _ = origins
    p = os.path.join(fo.www, "memchange.bin")
    old, new = os.urandom(30_000), os.urandom(30_000)
    open(p, "wb").write(old)
    os.utime(p, (1_000_000_000, 1_000_000_000))
    for _ in range(3):
        r = eddy.get("/f/memchange.bin?cc=max-age=1")
        assert r.status == 200 and r.body == old
    assert eddy.metrics()["eddy_memory_hits_total"] >= 1, "the repeat hits came from memory"
    open(p, "wb").write(new)
    os.utime(p, (1_100_000_000, 1_100_000_000))
    time.sleep(1.2)  # past max-age: the next request revalidates and gets the new version
    r = eddy.get("/f/memchange.bin?cc=max-age=1")
    assert r.status == 200 and r.body == new
    r = eddy.get("/f/memchange.bin?cc=max-age=1")
    assert r.status == 200 and r.body == new, "memory must not serve the old version"
    r = eddy.get("/f/memchange.bin?cc=max-age=1", {"Range": "bytes=0-99"})
    assert r.body == new[:100]


def test_memory_cache_off(origins, tmp_path):
    ng, fo, _ = origins
    body = os.urandom(20_000)
    open(os.path.join(ng.www, "memoff.bin"), "wb").write(body)
    e = Eddy(str(tmp_path), ng, fo, ["--memory-cache", "0"])
    try:
        for _ in range(3):
            r = e.get("/n/memoff.bin")
            assert r.status == 200 and r.body == body
        m = e.metrics()
        assert m["eddy_memory_hits_total"] == 0 and m["eddy_memory_cache_bytes"] == 0
        assert m["eddy_cache_hits_total"] == 2
    finally:
        e.stop()
