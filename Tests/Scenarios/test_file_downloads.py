"""File downloads (issue 31, item 1): any URL that is not an HLS playlist downloads as one file,
in parallel block-aligned ranges through the resource's coordinator, pinned, only the holes
fetched, resumed after kill -9, played offline at its usual URL and exported. Each test has its
own fault origin (per-path byte counters) and eddy; the media is made by ffmpeg."""
import os, signal, subprocess, time
import pytest
from conftest import EDDY, Eddy, FaultOrigin, ff, sha, wait_for
from test_downloads import api, wait_done

BLOCK = 256 << 10


@pytest.fixture(scope="module")
def movie(tmp_path_factory):
    """A real MP4 of about 64 MiB (noise keeps mpeg4 from compressing it), made once."""
    path = str(tmp_path_factory.mktemp("media") / "movie.mp4")
    r = ff("-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25,noise=alls=60:allf=t+u", "-t", "11",
           "-c:v", "mpeg4", "-q:v", "2", "-movflags", "+faststart", path)
    assert r.returncode == 0, r.stderr
    assert os.path.getsize(path) > 48 << 20
    return path


@pytest.fixture
def setup(origins, tmp_path, movie):
    """A factory: (eddy, fault origin, the movie's bytes) with the movie at /f/movie.mp4."""
    made = []

    def make(*extra, origin_args=()):
        fo = FaultOrigin(str(tmp_path), args=origin_args)
        os.link(movie, os.path.join(fo.www, "movie.mp4"))
        e = Eddy(str(tmp_path), origins[0], fo, extra)
        made.append((e, fo))
        return e, fo, open(movie, "rb").read()
    yield make
    for e, fo in made:
        e.stop()
        fo.stop()


def origin_bytes(fo, path="/movie.mp4"):
    return fo.stats()["paths"].get(path, {}).get("bytes", 0)


def add(e, url="/f/movie.mp4", **spec):
    status, j = api(e, "POST", "/api/downloads", dict(spec, url=url))
    assert status == 201, j
    return j


def test_half_cached_movie_fetches_only_the_holes_is_pinned_and_plays_offline(setup):
    e, fo, data = setup()
    size = len(data)
    # A player read the first quarter and the third one (block-aligned ranges) before.
    quarter = size // 4 // BLOCK * BLOCK
    for start in (0, 2 * quarter):
        r = e.get("/f/movie.mp4", headers={"Range": "bytes=%d-%d" % (start, start + quarter - 1)})
        assert r.status == 206 and r.body == data[start:start + quarter]
    before = origin_bytes(fo)
    assert before >= 2 * quarter
    j = add(e)
    assert j["kind"] == "file", j
    j = wait_done(e, j["id"], timeout=120)
    # Every byte came from the origin once: the download fetched only what the player had not.
    assert origin_bytes(fo) == size, (origin_bytes(fo), size, before)
    assert j["bytes_done"] == j["bytes_expected"] == size and j["bytes_exact"] is True, j
    assert j["file"] == {"length": size, "ranges": [[0, size]]}, j["file"]
    assert j["playable_offline"] is True and j["pinned_bytes"] == size, j
    assert e.metrics()["eddy_cache_pinned_bytes"] >= size
    # Parallel: the job's log shows ranged requests, more than one of them.
    log = api(e, "GET", "/api/downloads/%s/log" % j["id"])[1]
    ranges = [x for x in log["events"] if x.get("kind") == "file" and x.get("event") == "request"]
    assert len(ranges) > 1, log
    # The origin gone (refused): the movie plays at its usual URL from disk, byte-exact, with ranges.
    fo.stop()
    r = e.get("/f/movie.mp4")
    assert r.status == 200 and sha(r.body) == sha(data)
    r = e.get("/f/movie.mp4", headers={"Range": "bytes=1000-1999"})
    assert r.status == 206 and r.body == data[1000:2000]
    p = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                        "http://127.0.0.1:%d/f/movie.mp4" % e.port], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and abs(float(p.stdout) - 11) < 0.5, (p.stdout, p.stderr)
    # And at its offline URL, which never touches the network.
    assert j["offline_url"].endswith("/movie.mp4"), j["offline_url"]
    path = j["offline_url"].split(str(e.port), 1)[1]
    r = e.get(path)
    assert r.status == 200 and sha(r.body) == sha(data)


def test_kill9_resumes_and_export_copies_the_file(setup, tmp_path):
    e, fo, data = setup()
    fo_rate = 1 << 20  # per response: socket buffers stay near empty, so bytes sent are bytes eddy saw
    api(e, "GET", "/api/downloads")  # eddy is up
    assert subprocess.run(["curl", "-s", "http://127.0.0.1:%d/_set?rate=%d" % (fo.port, fo_rate)], timeout=10).returncode == 0
    j = add(e)
    wait_for(lambda: api(e, "GET", "/api/downloads/" + j["id"])[1]["bytes_done"] > len(data) // 4, 60, 0.1,
             what="a quarter downloaded")
    e.stop(sig=signal.SIGKILL)
    e.start()
    wait_done(e, j["id"], timeout=120)
    # Resumed at byte level: what came twice is at most the blocks in flight at the kill and what
    # the last half-second's index commit had not made durable yet (8 MiB/s here: 4 MiB).
    assert origin_bytes(fo) <= len(data) + 8 * BLOCK + (6 << 20), (origin_bytes(fo), len(data))
    out = str(tmp_path / "export")
    r = subprocess.run([EDDY, "download", "export", j["id"], out, "--admin", "127.0.0.1:%d" % e.admin],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert sha(open(os.path.join(out, "movie.mp4"), "rb").read()) == sha(data)


def test_an_origin_ignoring_ranges_is_read_once(setup):
    e, fo, data = setup()
    j = wait_done(e, add(e, url="/f/movie.mp4?ignore_range=1")["id"], timeout=120)
    assert j["bytes_done"] == len(data), j
    # The probe's request and the whole body once: no parallel range fetches each sending it all.
    assert origin_bytes(fo) <= len(data) + BLOCK, (origin_bytes(fo), len(data))
    r = e.get("/f/movie.mp4?ignore_range=1")
    assert r.status == 200 and sha(r.body) == sha(data)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_flaky_origin_still_gives_the_exact_file(setup, seed):
    e, fo, data = setup()
    assert subprocess.run(["curl", "-s", "http://127.0.0.1:%d/_set?flaky=0.3&seed=%d" % (fo.port, seed)], timeout=10).returncode == 0
    j = wait_done(e, add(e)["id"], timeout=180)
    assert j["bytes_done"] == len(data) and j["file"]["ranges"] == [[0, len(data)]], j
    r = e.get("/f/movie.mp4")
    assert r.status == 200 and sha(r.body) == sha(data)


def test_hls_options_on_a_file_are_refused_and_create_nothing(setup):
    e, fo, data = setup()
    status, j = api(e, "POST", "/api/downloads", {"url": "/f/movie.mp4", "variant_index": 1, "audio": ["en"]})
    assert status == 400 and "variant_index, audio: only for HLS downloads" in j["error"], j
    status, j = api(e, "POST", "/api/downloads", {"url": "/f/missing.mp4"})
    assert status == 400 and "404" in j["error"], j
    assert api(e, "GET", "/api/downloads")[1] == []


def test_a_list_with_bad_lines_downloads_the_rest_and_names_the_bad_ones(setup, tmp_path):
    e, fo, data = setup()
    small = os.urandom(300 << 10)
    open(os.path.join(fo.www, "small one.bin"), "wb").write(small)
    listing = tmp_path / "films.txt"
    listing.write_text(
        "# tonight\n"
        "/f/movie.mp4 --title 'The movie'   # the big one\n"
        "/f/movie.mp4 --bogus 1\n"
        "\n"
        "/f/missing.mp4\n"
        '"/f/small%20one.bin" --priority important\n'
        "/f/movie.mp4 --title \"unclosed\n")
    r = subprocess.run([EDDY, "download", "add", "--from", str(listing), "--admin", "127.0.0.1:%d" % e.admin],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, (r.stdout, r.stderr)
    ids = [l.split()[0] for l in r.stdout.splitlines()]
    assert len(ids) == 2, r.stdout
    bad = sorted(int(l.split(":")[2]) for l in r.stderr.splitlines())
    assert bad == [3, 5, 7], r.stderr
    assert "--bogus" in r.stderr and "404" in r.stderr and "quote" in r.stderr, r.stderr
    jobs = {j["id"]: j for j in api(e, "GET", "/api/downloads")[1]}
    assert set(jobs) == set(ids)
    assert sorted((j["title"] or "", j["priority"]) for j in jobs.values()) == [("", "important"), ("The movie", "normal")]
    for i in ids:
        wait_done(e, i, timeout=120)
    assert sha(e.get("/f/small%20one.bin").body) == sha(small)
    # The API takes the same as a JSON list: each item its own outcome, in order.
    status, out = api(e, "POST", "/api/downloads", [{"url": "/f/small%20one.bin"}, 42, {"title": "no url"},
                                                     {"url": "/f/missing.mp4"}])
    assert status == 200, out
    assert [x["status"] for x in out] == [201, 400, 400, 400], out
    assert "id" in out[0] and "missing" in out[2]["error"] and "404" in out[3]["error"], out
    assert len(api(e, "GET", "/api/downloads")[1]) == 3


def clock(t):
    """Local HH:MM:SS of epoch second t (eddy runs in this process's time zone)."""
    return time.strftime("%H:%M:%S", time.localtime(t))


def test_a_window_schedules_runs_then_stops_a_download_and_never_holds_a_player_back(setup):
    e, fo, data = setup()
    assert subprocess.run(["curl", "-s", "http://127.0.0.1:%d/_set?rate=%d" % (fo.port, 512 << 10)], timeout=10).returncode == 0
    opens = int(time.time()) + 3
    status, j = api(e, "POST", "/api/downloads", {"url": "/f/movie.mp4", "window": "%s-%s" % (clock(opens), clock(opens + 4))})
    assert status == 201, j
    assert j["state"] == "scheduled" and abs(j["next_start"] - opens) <= 1, (j, opens)
    # eddy writes a window back without :00 seconds (04:10-04:10:04): compare the times it names.
    shown = lambda w: [x if x.count(":") == 2 else x + ":00" for x in w.split("-")]
    assert shown(j["window"]) == [clock(opens), clock(opens + 4)], j["window"]
    assert origin_bytes(fo) <= BLOCK  # the probe alone
    get = lambda: api(e, "GET", "/api/downloads/" + j["id"])[1]
    wait_for(lambda: get()["state"] == "running" and get()["bytes_done"] > 0, 10, 0.1, what="the window to open")
    closed = wait_for(lambda: (lambda x: x["state"] == "scheduled" and x)(get()), 15, 0.1, what="the window to close")
    assert 0 < closed["bytes_done"] < len(data), closed
    assert abs(closed["next_start"] - (opens + 86400)) <= 1, closed  # tomorrow's window
    # Stopped cleanly: the origin sends nothing more.
    time.sleep(1)
    sent = origin_bytes(fo)
    time.sleep(1.5)
    assert origin_bytes(fo) == sent
    log = api(e, "GET", "/api/downloads/%s/log" % j["id"])[1]["events"]
    assert [x["event"] for x in log if x["event"].startswith("window")] == ["window-closed", "window-open", "window-closed"], log
    # A player is never held back by a window: the whole movie, the missing part from the origin once.
    assert subprocess.run(["curl", "-s", "http://127.0.0.1:%d/_set?rate=0" % fo.port], timeout=10).returncode == 0
    r = e.get("/f/movie.mp4")
    assert r.status == 200 and sha(r.body) == sha(data)
    # Twice at most: each stopped fetch's unconfirmed part of a block (bytes are confirmed by the
    # block), and what was in flight in the socket when it stopped.
    assert origin_bytes(fo) <= len(data) + 8 * 2 * BLOCK, (origin_bytes(fo), len(data))
    # Pause and resume keep the window: it goes back to waiting for it.
    assert api(e, "POST", "/api/downloads/%s/pause" % j["id"])[1]["state"] == "paused"
    assert api(e, "POST", "/api/downloads/%s/resume" % j["id"])[1]["state"] == "scheduled"
    status, bad = api(e, "POST", "/api/downloads", {"url": "/f/movie.mp4", "window": "25:00-06:00"})
    assert status == 400 and "window" in bad["error"], bad


def eddy_rate(e, seconds=5):
    """Bytes a second eddy took from origins over `seconds` (eddy_bytes_from_origin_total, counted
    as each chunk is written). Not the origin's counter: it counts what the kernel buffers on
    loopback (megabytes per connection) as sent, while the cap holds eddy's reads back."""
    m = lambda: e.metrics()["eddy_bytes_from_origin_total"]
    a, t0 = m(), time.monotonic()
    time.sleep(seconds)
    return (m() - a) / (time.monotonic() - t0)


def test_caps_are_measured_changed_live_and_never_slow_a_player(setup, tmp_path):
    cfg = tmp_path / "eddy.yaml"
    cfg.write_text("download_rate_limit: 4M\n")
    e, fo, data = setup("--config", str(cfg))
    big = os.urandom(48 << 20)
    open(os.path.join(fo.www, "big.bin"), "wb").write(big)
    j = add(e, url="/f/big.bin")
    wait_for(lambda: origin_bytes(fo, "/big.bin") > 2 << 20, 20, 0.1, what="the download under way")
    time.sleep(1)  # past the bucket's first burst
    rate = eddy_rate(e)
    assert 0.85 * (4 << 20) <= rate <= 1.1 * (4 << 20), rate
    # A player meanwhile is not capped: the movie (60 MiB) comes far faster than 4 MiB/s would allow.
    t0 = time.monotonic()
    r = e.get("/f/movie.mp4")
    took = time.monotonic() - t0
    assert r.status == 200 and sha(r.body) == sha(data)
    assert took < len(data) / (4 << 20) / 2, took
    # SIGHUP changes the cap live, for the fetches in flight too.
    cfg.write_text("download_rate_limit: 1M\n")
    e.proc.send_signal(signal.SIGHUP)
    time.sleep(1)
    rate = eddy_rate(e)
    assert 0.8 * (1 << 20) <= rate <= 1.15 * (1 << 20), rate
    # A download's own rate, below the cap, changed by PATCH ("0" lifts it).
    cfg.write_text("download_rate_limit: 0\n")
    e.proc.send_signal(signal.SIGHUP)
    status, gone = api(e, "DELETE", "/api/downloads/" + j["id"])
    assert status == 200
    small = os.urandom(32 << 20)
    open(os.path.join(fo.www, "own.bin"), "wb").write(small)
    k = add(e, url="/f/own.bin", rate="2M")
    assert k["rate_limit"] == 2 << 20, k
    wait_for(lambda: origin_bytes(fo, "/own.bin") > 1 << 20, 20, 0.1, what="the second download under way")
    time.sleep(1)
    rate = eddy_rate(e)
    assert 0.8 * (2 << 20) <= rate <= 1.1 * (2 << 20), rate
    status, k = api(e, "PATCH", "/api/downloads/" + k["id"], {"rate": "0"})
    assert status == 200 and k["rate_limit"] is None, k
    t0 = time.monotonic()
    k = wait_done(e, k["id"], timeout=60)
    assert time.monotonic() - t0 < 8, "lifted: the rest (over 20 MiB) well within 10 s at 2 MiB/s"
    assert sha(e.get("/f/own.bin").body) == sha(small)
    status, bad = api(e, "PATCH", "/api/downloads/" + k["id"], {"rate": "fast"})
    assert status == 400 and "rate" in bad["error"], bad


def test_aria2_reads_the_file_in_parallel_ranges_through_eddy_while_it_downloads(setup, tmp_path):
    """A parallel range client (aria2c -x4 -s4, from Debian) through eddy while eddy's own download
    of the same file runs: byte-exact, and the origin sends each byte about once (the client's
    ranges and the download's share the coordinator's fills)."""
    e, fo, data = setup()
    assert subprocess.run(["curl", "-s", "http://127.0.0.1:%d/_set?rate=%d" % (fo.port, 4 << 20)], timeout=10).returncode == 0
    j = add(e)
    wait_for(lambda: api(e, "GET", "/api/downloads/" + j["id"])[1]["bytes_done"] > 0, 30, 0.1, what="the download under way")
    r = subprocess.run(["aria2c", "-x4", "-s4", "-k1M", "-q", "--file-allocation=none", "-d", str(tmp_path), "-o", "got.mp4",
                        "http://127.0.0.1:%d/f/movie.mp4" % e.port], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    assert sha(open(tmp_path / "got.mp4", "rb").read()) == sha(data)
    wait_done(e, j["id"], timeout=120)
    # Shared: far less than twice the file (only blocks both asked for at once may come twice).
    assert origin_bytes(fo) <= len(data) * 1.25, (origin_bytes(fo), len(data))


def test_an_hls_download_is_capped_too(origins, tmp_path):
    """Segments are discovered by the download itself (nothing stored): its own wait on those fills
    is not a player's, so the cap holds there too."""
    from test_downloads import ASSET, make_asset
    fo = FaultOrigin(str(tmp_path))
    e = None
    try:
        make_asset(os.path.join(fo.www, ASSET))
        e = Eddy(str(tmp_path), origins[0], fo, ["--download-rate-limit", "256K"])
        status, j = api(e, "POST", "/api/downloads", {"url": "/f/%s/master.m3u8" % ASSET, "variant_index": 2, "audio": ["en"]})
        assert status == 201, j
        wait_for(lambda: api(e, "GET", "/api/downloads/" + j["id"])[1]["segments_done"] > 0, 20, 0.1, what="a segment stored")
        time.sleep(0.5)
        rate = eddy_rate(e, 3)
        assert 0.6 * (256 << 10) <= rate <= 1.15 * (256 << 10), rate
        j = api(e, "GET", "/api/downloads/" + j["id"])[1]
        assert j["state"] == "running", j  # still going: the asset is larger than 4 s at the cap
    finally:
        if e:
            e.stop()
        fo.stop()


def test_players_go_first_downloads_give_way_while_a_player_is_fed_from_the_origin(setup, tmp_path):
    """A player fetching from the origin holds uncapped downloads back (`download_yield`, on by
    default): the download's confirmed bytes barely move while the player's film comes, then the
    download finishes. With `download_yield: false` it runs on beside the player."""
    cfg = tmp_path / "eddy.yaml"
    cfg.write_text("download_yield: true\n")
    e, fo, data = setup("--config", str(cfg))
    # 2 MiB/s per response: the download (8 fetches) would take the film in ~4 s.
    assert subprocess.run(["curl", "-s", "http://127.0.0.1:%d/_set?rate=%d" % (fo.port, 2 << 20)], timeout=10).returncode == 0
    watched = os.urandom(6 << 20)
    open(os.path.join(fo.www, "watched.bin"), "wb").write(watched)
    j = add(e)
    done = lambda: api(e, "GET", "/api/downloads/" + j["id"])[1]["bytes_done"]
    wait_for(lambda: done() > 1 << 20, 30, 0.1, what="the download under way")
    before = done()
    r = e.get("/f/watched.bin")  # about 3 s at 2 MiB/s
    assert r.status == 200 and sha(r.body) == sha(watched)
    moved = done() - before
    # What was in flight when the player began (a chunk per fetch, and blocks then completing), no more.
    assert moved < 4 << 20, moved
    k = wait_done(e, j["id"], timeout=120)
    assert sha(e.get("/f/movie.mp4").body) == sha(data)
    # Off: the download takes its share beside the player.
    cfg.write_text("download_yield: false\n")
    e.proc.send_signal(signal.SIGHUP)
    time.sleep(0.5)
    big = os.urandom(48 << 20)
    open(os.path.join(fo.www, "big.bin"), "wb").write(big)
    j = add(e, url="/f/big.bin")
    done = lambda: api(e, "GET", "/api/downloads/" + j["id"])[1]["bytes_done"]
    wait_for(lambda: done() > 1 << 20, 30, 0.1, what="the second download under way")
    before = done()
    open(os.path.join(fo.www, "watched2.bin"), "wb").write(watched)
    r = e.get("/f/watched2.bin")
    assert r.status == 200 and sha(r.body) == sha(watched)
    assert done() - before > 12 << 20, done() - before
