"""The memory tier: small complete bodies served from memory, bounded, and never stale across versions."""
import os, time
from conftest import Eddy, sha


def test_small_bodies_from_memory_are_exact_and_bounded(origins, tmp_path):
    ng, fo, _ = origins
    bodies = {}
    for i in range(6):
        name = "mem%d.bin" % i
        bodies[name] = os.urandom(12_000 + i)
        open(os.path.join(ng.www, name), "wb").write(bodies[name])
    e = Eddy(str(tmp_path), ng, fo, ["--memory-cache", "40K"])
    try:
        for _ in range(3):
            for name, body in bodies.items():
                r = e.get("/n/" + name)
                assert r.status == 200 and sha(r.body) == sha(body), name
                r = e.get("/n/" + name, {"Range": "bytes=1000-1999"})
                assert r.status == 206 and r.body == body[1000:2000], name
        m = e.metrics()
        # Hits only after the first fetch of each; with 40K of room for six 12 KB bodies, some
        # come from memory and the held bytes never pass the budget.
        assert m["eddy_memory_hits_total"] >= 6
        assert 0 < m["eddy_memory_cache_bytes"] <= 40 * 1024
        assert m["eddy_cache_hits_total"] >= 6 * 6 - 6
    finally:
        e.stop()


def test_new_version_replaces_the_body_in_memory(eddy, origins):
    _, fo, _ = origins
    p = os.path.join(fo.www, "memchange.bin")
    old, new = os.urandom(12_000), os.urandom(12_000)
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


def test_a_body_of_16_KiB_or_more_goes_from_the_file_not_memory(eddy, origins):
    ng, _, _ = origins
    small, large = os.urandom(16 * 1024 - 1), os.urandom(16 * 1024)
    open(os.path.join(ng.www, "memedge-small.bin"), "wb").write(small)
    open(os.path.join(ng.www, "memedge-large.bin"), "wb").write(large)
    before = eddy.metrics()["eddy_memory_hits_total"]
    for _ in range(3):
        r = eddy.get("/n/memedge-large.bin")
        assert r.status == 200 and sha(r.body) == sha(large)
        r = eddy.get("/n/memedge-large.bin", {"Range": "bytes=100-16383"})
        assert r.status == 206 and r.body == large[100:]
    assert eddy.metrics()["eddy_memory_hits_total"] == before, "sent with sendfile, not held in memory"
    for _ in range(3):
        r = eddy.get("/n/memedge-small.bin")
        assert r.status == 200 and sha(r.body) == sha(small)
    assert eddy.metrics()["eddy_memory_hits_total"] > before, "a body under 16 KiB is held in memory"


def test_memory_cache_off(origins, tmp_path):
    ng, fo, _ = origins
    body = os.urandom(10_000)
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
