"""File downloads under the conditions users meet (issue 31): the network turning hostile in the
middle of a download (refused, black-holed, a captive portal answering 200 HTML or a 302), a file
half cached by a player earlier whose stored part has gone stale by heuristic freshness (only a
Last-Modified, no Cache-Control), and lists over many seeds. Nothing held is lost, nothing wrong is
stored, and the bytes are the origin's."""
import os, random, subprocess, time
import pytest
from conftest import EDDY, Eddy, FaultOrigin, make_file, sha, wait_for
from test_downloads import api, wait_done
from test_offline_trust import MODES, Hostile

MiB = 1 << 20
BLOCK = 256 << 10


def origin_bytes(fo, path):
    return fo.stats()["paths"].get(path, {}).get("bytes", 0)


def served_offline(e, fo, url, data):
    """With the origin stopped, eddy serves `url` whole from what the download stored."""
    fo.stop()
    r = e.get(url)
    assert r.status == 200 and sha(r.body) == sha(data)


@pytest.mark.parametrize("mode", MODES)
def test_a_hostile_network_mid_download_loses_nothing_and_the_download_completes_when_the_origin_is_back(origins, tmp_path, mode):
    fo = FaultOrigin(str(tmp_path))
    path = os.path.join(fo.www, "film.bin")
    make_file(path, 24 * MiB, 11)
    data = open(path, "rb").read()
    e = Eddy(str(tmp_path), origins[0], fo, ["--stall-timeout", "2", "--connect-timeout", "2"])
    hostile = None
    try:
        assert subprocess.run(["curl", "-s", "http://127.0.0.1:%d/_set?rate=%d" % (fo.port, 1 * MiB)], timeout=10).returncode == 0
        status, j = api(e, "POST", "/api/downloads", {"url": "/f/film.bin"})
        assert status == 201, j
        get = lambda: api(e, "GET", "/api/downloads/" + j["id"])[1]
        wait_for(lambda: get()["file"]["ranges"], 60, 0.1, what="a unit of the film stored")
        port = fo.port
        fo.stop()
        hostile = Hostile(port, mode)
        # The download waits for the origin; what it holds stays held and served.
        k = wait_for(lambda: (lambda x: x["state"] == "waiting-for-origin" and x)(get()), 30, 0.2, what=lambda: "the job to wait for the origin: %r" % (get(),))
        held = k["file"]["ranges"]
        assert held and held[0][0] == 0 and held[0][1] >= BLOCK, held
        r = e.get("/f/film.bin", headers={"Range": "bytes=0-%d" % (held[0][1] - 1)})
        assert r.status == 206 and r.body == data[:held[0][1]], (r.status, len(r.body))
        time.sleep(3)  # several retries against the hostile network
        k = get()
        assert k["state"] in ("waiting-for-origin", "running") and k["bytes_done"] >= held[0][1], k
        assert k["file"]["length"] == len(data), k
        hostile.stop()
        hostile = None
        fo = FaultOrigin(str(tmp_path), port=port)
        wait_done(e, j["id"], timeout=120)
        r = e.get("/f/film.bin")
        assert r.status == 200 and sha(r.body) == sha(data)
    finally:
        if hostile:
            hostile.stop()
        e.stop()
        fo.stop()


def test_a_half_cached_file_gone_stale_by_heuristic_freshness_downloads_only_its_holes(origins, tmp_path):
    """The origin sends Last-Modified and no Cache-Control (RFC 9111 section 4.2.2: a heuristic
    lifetime of a tenth of the file's age). A player read half of it; by the time of the download
    that half is stale. The download fetches the holes (If-Range with the Last-Modified keeps them
    of the same version) and keeps the stale half: the origin sends each byte once."""
    fo = FaultOrigin(str(tmp_path), args=["--cc", "none"])
    path = os.path.join(fo.www, "old.bin")
    make_file(path, 16 * MiB, 12)
    data = open(path, "rb").read()
    t = time.time() - 10
    os.utime(path, (t, t))  # modified 10 s ago: fresh for about 1 s
    e = Eddy(str(tmp_path), origins[0], fo)
    try:
        half = 8 * MiB
        r = e.get("/f/old.bin", headers={"Range": "bytes=0-%d" % (half - 1)})
        assert r.status == 206 and r.body == data[:half]
        assert r.h("Last-Modified") and not r.h("Cache-Control"), r.headers
        time.sleep(1.5)  # stale now
        stale = e.get("/f/old.bin", headers={"Range": "bytes=0-99"})
        assert stale.status == 206  # revalidated (a 304): the stored half is still the origin's
        before = origin_bytes(fo, "/old.bin")
        status, j = api(e, "POST", "/api/downloads", {"url": "/f/old.bin"})
        assert status == 201, j
        j = wait_done(e, j["id"], timeout=60)
        assert j["pinned_bytes"] == len(data) and j["playable_offline"] is True, j
        assert origin_bytes(fo, "/old.bin") - before <= len(data) - half + BLOCK, (origin_bytes(fo, "/old.bin") - before)
        served_offline(e, fo, "/f/old.bin", data)
    finally:
        e.stop()
        fo.stop()


def test_a_link_that_drops_every_100_kb_still_downloads_the_file_with_each_byte_sent_once(origins, tmp_path):
    """Every response of the origin is cut after 100,001 body bytes, inside a 256 KiB block (a
    link that drops every few seconds). Each cut keeps what it brought and the next request asks
    from the byte reached: the download completes, playable offline, and the origin sends each
    byte once. Before, every retry asked for its block's start again, got the same 100,001 bytes,
    and the job failed after its retries."""
    fo = FaultOrigin(str(tmp_path))
    path = os.path.join(fo.www, "drops.bin")
    make_file(path, 3 * MiB + 5, 13)
    data = open(path, "rb").read()
    e = Eddy(str(tmp_path), origins[0], fo)
    try:
        status, j = api(e, "POST", "/api/downloads", {"url": "/f/drops.bin?drop_after=100001"})
        assert status == 201, j
        j = wait_done(e, j["id"], timeout=120)
        stats = fo.stats()["paths"]["/drops.bin"]
        print("a link dropping every 100,001 bytes: %d requests, %d bytes sent for %d" % (stats["requests"], stats["bytes"], len(data)))
        assert j["pinned_bytes"] == len(data) and j["playable_offline"] is True, j
        assert stats["bytes"] <= len(data) + BLOCK, stats
        served_offline(e, fo, "/f/drops.bin?drop_after=100001", data)
    finally:
        e.stop()
        fo.stop()


SEEDS = [int(s) for s in os.environ.get("EDDY_FAULT_SEEDS", "1,2,3,4,5").split(",")]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_lists_download_their_good_lines_and_name_their_bad_ones(origins, tmp_path, seed):
    """A list of files and bad lines in an order drawn from the seed, with random per-line
    options (rate, window open now, title), some files already half cached."""
    rnd = random.Random(seed)
    fo = FaultOrigin(str(tmp_path))
    e = Eddy(str(tmp_path), origins[0], fo)
    try:
        good, lines = {}, []
        for i in range(rnd.randint(3, 6)):
            name = "s%d-%d.bin" % (seed, i)
            make_file(os.path.join(fo.www, name), rnd.randint(1, 6) * MiB + rnd.randint(0, BLOCK), seed * 100 + i)
            good[name] = open(os.path.join(fo.www, name), "rb").read()
            opts = []
            if rnd.random() < 0.4:
                opts.append("--rate %dM" % rnd.randint(4, 16))
            if rnd.random() < 0.3:
                opts.append("--window 00:00-23:59:59")
            if rnd.random() < 0.4:
                opts.append("--title 'File %d'" % i)
            if rnd.random() < 0.3:  # a player read some of it before
                e.get("/f/" + name, headers={"Range": "bytes=0-%d" % (rnd.randint(1, 4) * BLOCK - 1)})
            lines.append(" ".join(["/f/" + name] + opts))
        bad = ["/f/missing-%d.bin" % seed, "/f/x.bin --rate fast", "/f/y.m3u8 --window 25:00-01:00"]
        for b in bad:
            lines.insert(rnd.randint(0, len(lines)), b)
        lines.insert(rnd.randint(0, len(lines)), "# a comment")
        listing = tmp_path / "list.txt"
        listing.write_text("\n".join(lines) + "\n")
        out = subprocess.run([EDDY, "download", "add", "--from", str(listing), "--admin", "127.0.0.1:%d" % e.admin],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 1, (out.stdout, out.stderr)
        made = [l.split(" ", 1) for l in out.stdout.splitlines()]
        assert sorted(u.rsplit("/", 1)[1] for _, u in made) == sorted(good), out.stdout
        assert len(out.stderr.strip().splitlines()) == len(bad), out.stderr
        for b in bad:
            line = lines.index(b) + 1
            assert "list.txt:%d:" % line in out.stderr, (b, out.stderr)
        for job_id, url in made:
            wait_done(e, job_id, timeout=120)
            name = url.rsplit("/", 1)[1]
            r = e.get("/f/" + name)
            assert r.status == 200 and sha(r.body) == sha(good[name]), name
            assert origin_bytes(fo, "/" + name) <= len(good[name]) + BLOCK, name
    finally:
        e.stop()
        fo.stop()
