"""Offline HLS downloads (issue 12) through the admin API, against an ffmpeg-made multivariant
fMP4 asset on the fault origin: three video variants (one marked PQ), en/fr stereo audio, an en
5.1 group referenced by variants that share the video playlists, en/fr WebVTT. The origin's
per-path counters show exactly what each download fetched."""
import atexit, functools, hashlib, http.client, json, os, shutil, signal, subprocess, tempfile, time, urllib.parse
import pytest
from conftest import Eddy, request, sha, streams, wait_for  # noqa: F401 (streams: a fixture)

ASSET = "dl"


def ff(*args):
    r = subprocess.run(["ffmpeg", "-v", "error", "-y", *args], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr


@pytest.fixture(scope="module")
def asset(origins):
    _, fo, _ = origins
    return make_asset(os.path.join(fo.www, ASSET))


@functools.cache
def _encoded():
    """The session's one encoding of the asset (removed at exit), which make_asset copies."""
    template = tempfile.mkdtemp(prefix="eddy-asset-")
    atexit.register(shutil.rmtree, template, True)
    return _encode_asset(os.path.join(template, ASSET))


def make_asset(d):
    """The asset at `d` (replacing what was there), a copy of one encoding per session: ffmpeg
    took about 3 s for each of the session's thirty-odd assets, and makes the same bytes from the
    same input each time (the tests compare what eddy serves with the files on disk in any case).
    A copy, not links: some tests change their asset's files in place; and new files (mtime now,
    as an encoding made them), not copies of the first one's times, which the origin's validators
    and heuristic freshness come from."""
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(_encoded(), d, copy_function=shutil.copyfile)
    return d


def _encode_asset(d):
    os.makedirs(d)
    hls = ["-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4"]
    ff("-f", "lavfi", "-i", "testsrc=duration=12:size=640x360:rate=25",
       "-filter_complex", "[0:v]split=3[a][b][c];[a]scale=320:180[a0];[b]scale=640:360[b0];[c]scale=960:540[c0]",
       "-map", "[a0]", "-map", "[b0]", "-map", "[c0]", "-c:v", "libx264", "-preset", "ultrafast", "-g", "50",
       "-b:v:0", "200k", "-b:v:1", "500k", "-b:v:2", "900k", *hls, "-var_stream_map", "v:0 v:1 v:2",
       "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", os.path.join(d, "v%v", "seg%d.m4s"),
       os.path.join(d, "v%v", "index.m3u8"))
    ff("-f", "lavfi", "-i", "sine=frequency=440:duration=12", "-f", "lavfi", "-i", "sine=frequency=660:duration=12",
       "-f", "lavfi", "-i", "sine=frequency=220:duration=12",
       "-map", "0:a", "-map", "1:a", "-map", "2:a", "-c:a", "aac", "-ac:a:0", "2", "-ac:a:1", "2", "-ac:a:2", "6",
       *hls, "-var_stream_map", "a:0 a:1 a:2", "-hls_fmp4_init_filename", "init.mp4",
       "-hls_segment_filename", os.path.join(d, "a%v", "seg%d.m4s"), os.path.join(d, "a%v", "index.m3u8"))
    for i, (lang, text) in enumerate([("en", "Hello"), ("fr", "Bonjour")]):
        sd = os.path.join(d, "s%d" % i)
        os.makedirs(sd)
        cues = "".join("%02d:%02d.000 --> %02d:%02d.000\n%s %d\n\n" % (0, t, 0, t + 3, text, t) for t in range(0, 12, 3))
        open(os.path.join(sd, "seg0.vtt"), "w").write("WEBVTT\n\n" + cues)
        open(os.path.join(sd, "index.m3u8"), "w").write(
            "#EXTM3U\n#EXT-X-TARGETDURATION:12\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:12.0,\nseg0.vtt\n#EXT-X-ENDLIST\n")
    audio = 'CODECS="avc1.64001f,mp4a.40.2",FRAME-RATE=25'
    open(os.path.join(d, "master.m3u8"), "w").write("\n".join([
        "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS",
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="a0/index.m3u8"',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="stereo",NAME="Francais",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,CHANNELS="2",URI="a1/index.m3u8"',
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="surround",NAME="English 5.1",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="6",URI="a2/index.m3u8"',
        '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,URI="s0/index.m3u8"',
        '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Francais",LANGUAGE="fr",DEFAULT=NO,AUTOSELECT=YES,URI="s1/index.m3u8"',
        '#EXT-X-STREAM-INF:BANDWIDTH=400000,AVERAGE-BANDWIDTH=300000,%s,RESOLUTION=320x180,VIDEO-RANGE=SDR,AUDIO="stereo",SUBTITLES="subs"' % audio,
        "v0/index.m3u8",
        '#EXT-X-STREAM-INF:BANDWIDTH=800000,%s,RESOLUTION=640x360,VIDEO-RANGE=SDR,AUDIO="stereo",SUBTITLES="subs"' % audio,
        "v1/index.m3u8",
        '#EXT-X-STREAM-INF:BANDWIDTH=1400000,%s,RESOLUTION=960x540,VIDEO-RANGE=PQ,AUDIO="stereo",SUBTITLES="subs"' % audio,
        "v2/index.m3u8",
        '#EXT-X-STREAM-INF:BANDWIDTH=1000000,%s,RESOLUTION=640x360,VIDEO-RANGE=SDR,AUDIO="surround",SUBTITLES="subs"' % audio,
        "v1/index.m3u8",
        '#EXT-X-STREAM-INF:BANDWIDTH=1600000,%s,RESOLUTION=960x540,VIDEO-RANGE=PQ,AUDIO="surround",SUBTITLES="subs"' % audio,
        "v2/index.m3u8", ""]))
    return d


def files_of(d, *subdirs):
    """{'/dl/v0/seg1.m4s': bytes} for every file of the sub-directories, plus the master playlist."""
    out = {"/%s/master.m3u8" % ASSET: open(os.path.join(d, "master.m3u8"), "rb").read()}
    for s in subdirs:
        for name in os.listdir(os.path.join(d, s)):
            out["/%s/%s/%s" % (ASSET, s, name)] = open(os.path.join(d, s, name), "rb").read()
    return out


def api(e, method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", e.admin, timeout=60)
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"Content-Type": "application/json"} if body is not None else {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, json.loads(data) if data else None


def origin_paths(fo):
    return {p: v for p, v in fo.stats()["paths"].items() if p.startswith("/%s/" % ASSET)}


def but_the_master(fo):
    """The origin's counters after a player read a download's files, less the master: a
    download's master is revalidated while the origin is reachable (issue 28), with a 304 and
    no body; everything else comes from the cache."""
    paths = origin_paths(fo)
    master = paths.pop("/%s/master.m3u8" % ASSET, None)
    assert master is None or master["bytes"] == 0, master
    return paths


def cli_download_completes(e, url, *options):
    """`eddy download add --admin` pointed at `e` with `options`; waits for the job to complete
    and checks it is playable offline; returns it."""
    from conftest import EDDY
    out = subprocess.run([EDDY, "download", "add", "--admin", "127.0.0.1:%d" % e.admin, *options, url],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    j = wait_done(e, out.stdout.split()[0])
    assert j["playable_offline"] is True, j
    return j


def wait_done(e, job_id, timeout=90, check=None):
    """Polls every 100 ms until the job is completed, and returns it; each sample goes to `check`."""
    def completed():
        status, j = api(e, "GET", "/api/downloads/" + job_id)
        assert status == 200
        if check:
            check(j)
        assert j["state"] not in ("failed", "cancelled"), j
        return j["state"] == "completed" and j
    return wait_for(completed, timeout, 0.1,
                    what=lambda: "the download to complete: %s" % (api(e, "GET", "/api/downloads/" + job_id)[1],))


def wait_state(e, job_id, state, timeout=30):
    """Polls every 100 ms until the job is in `state`, and returns it."""
    job = lambda: api(e, "GET", "/api/downloads/" + job_id)[1]

    def reached():
        j = job()
        return j["state"] == state and j
    return wait_for(reached, timeout, 0.1, what=lambda: "state %s: %s" % (state, job()))


class Monotonic:
    """Asserts that done counts never decrease between samples, for the job and for each
    rendition (by its URI)."""
    def __init__(self):
        self.last = {}
        self.samples = 0

    def __call__(self, j):
        counts = {None: j}
        counts.update({r["uri"]: r for r in j.get("renditions", [])})
        for key, c in counts.items():
            now = (c["bytes_done"], c["segments_done"], c["media_seconds_done"])
            if key in self.last:
                assert all(a >= b for a, b in zip(now, self.last[key])), (key, self.last[key], now)
            self.last[key] = now
        self.samples += 1


def origin_url(fo, path="master.m3u8"):
    return "http://127.0.0.1:%d/%s/%s" % (fo.port, ASSET, path)


def test_variants_lists_every_variant_and_rendition(origins, asset, eddy):
    _, fo, _ = origins
    status, v = api(eddy, "GET", "/api/variants?url=" + origin_url(fo))
    assert status == 200, v
    assert [x["resolution"] for x in v["variants"]] == ["320x180", "640x360", "960x540", "640x360", "960x540"]
    assert [x["video_range"] for x in v["variants"]] == ["SDR", "SDR", "PQ", "SDR", "PQ"]
    assert v["variants"][0]["video_codecs"] == ["avc1.64001f"] and v["variants"][0]["audio_codecs"] == ["mp4a.40.2"]
    assert all(abs(x["duration"] - 12) < 0.5 for x in v["variants"])
    # Estimated from AVERAGE-BANDWIDTH (300 kb/s), not the 400 kb/s peak.
    assert v["variants"][0]["average_bandwidth"] == 300000
    assert v["variants"][0]["size"] == int(300000 / 8 * v["variants"][0]["duration"]) and not v["variants"][0]["size_exact"]
    assert [(r["type"], r.get("language"), r.get("channels")) for r in v["renditions"]] == [
        ("AUDIO", "en", "2"), ("AUDIO", "fr", "2"), ("AUDIO", "en", "6"), ("SUBTITLES", "en", None), ("SUBTITLES", "fr", None)]
    # The eddy URL form works too.
    status, v2 = api(eddy, "GET", "/api/variants?url=http://127.0.0.1:%d/f/%s/master.m3u8" % (eddy.port, ASSET))
    assert status == 200 and len(v2["variants"]) == 5


def test_bad_input_is_400_and_creates_nothing(origins, asset, eddy):
    _, fo, _ = origins
    cases = [
        ({"url": origin_url(fo), "variant": "height <= "}, "position"),
        ({"url": origin_url(fo), "audio": ["xx"]}, "xx"),
        ({"url": origin_url(fo), "variant_index": 9}, "variant 9"),
        # Not a playlist: a file download, which has no variants (issue 31).
        ({"url": "http://127.0.0.1:%d/small.bin" % fo.port, "variant_index": 1}, "only for HLS downloads"),
        ({"url": "http://127.0.0.1:%d/gone.m3u8" % fo.port}, "404"),
        ({"url": "http://example.invalid/master.m3u8"}, "not allowed"),
        ({"title": "no url"}, "url"),
    ]
    for body, words in cases:
        status, r = api(eddy, "POST", "/api/downloads", body)
        assert status == 400 and words in r["error"], (body, r)
    # An origin failing is not bad input: 502, and nothing is created either.
    request(fo.port, "/_set?" + urllib.parse.urlencode({"path": "/%s/master.m3u8" % ASSET, "fail": "503"}))
    try:
        status, r = api(eddy, "POST", "/api/downloads", {"url": origin_url(fo, "master.m3u8?uncached=1")})
        assert status == 502 and "503" in r["error"], r
    finally:
        request(fo.port, "/_set?" + urllib.parse.urlencode({"path": "/%s/master.m3u8" % ASSET, "fail": ""}))
    assert api(eddy, "GET", "/api/downloads") == (200, [])
    assert api(eddy, "GET", "/api/variants?url=http://127.0.0.1:%d/small.bin" % fo.port)[0] == 400
    assert api(eddy, "GET", "/api/downloads/nope")[0] == 404
    # A playlist the origin does not have: one request, 400 naming the origin's answer (nginx's
    # 404 is not stored; the fault origin's is, for negative_ttl).
    ng = origins[0]
    for url, origin_requests in [("/n/nothing.m3u8", lambda: [x for x in ng.requests() if x[3] == "/nothing.m3u8"]),
                                 ("/f/nothing.m3u8", lambda: [1] * fo.stats()["paths"].get("/nothing.m3u8", {}).get("requests", 0))]:
        status, r = api(eddy, "POST", "/api/downloads", {"url": url})
        assert status == 400 and "origin answered 404" in r["error"], r
        assert len(origin_requests()) == 1, url


# Golden selections: the request, then the asset's directories it must fetch, and nothing else.
SELECTIONS = [
    ({"variant": "videoRange == SDR lowest", "audio": ["fr"], "subtitles": ["en"]}, ["v0", "a1", "s0"]),
    ({"variant": "videoRange == PQ && peakBitRate < 1500000", "audio": ["en"], "subtitles": []}, ["v2", "a0"]),
    ({"variant": "channels >= 6", "audio": ["en"], "subtitles": ["fr"]}, ["v2", "a2", "s1"]),
    ({"variant_index": 1, "audio": ["all"], "subtitles": ["all"]}, ["v1", "a0", "a1", "s0", "s1"]),
    # An auxiliary whose variant shares the primary's video playlist adds only its audio.
    ({"variant_index": 2, "audio": ["en"], "subtitles": [], "auxiliary": [{"variant": "channels >= 6", "audio": ["en"]}]},
     ["v2", "a0", "a2"]),
]


@pytest.mark.parametrize("ask,dirs", SELECTIONS, ids=["sdr-lowest-fr", "pq-capped", "surround", "all-media", "aux-surround"])
def test_selection_fetches_exactly_its_renditions(origins, asset, eddy, ask, dirs):
    _, fo, _ = origins
    fo.reset()
    status, j = api(eddy, "POST", "/api/downloads", dict(ask, url=origin_url(fo), title="t"))
    assert status == 201, j
    mono = Monotonic()
    j = wait_done(eddy, j["id"], check=mono)
    expected = files_of(asset, *dirs)
    assert set(origin_paths(fo)) == set(expected)
    assert j["bytes_exact"] and j["bytes_done"] == sum(len(b) for b in expected.values())
    extinf = sum(open(os.path.join(asset, r, "index.m3u8")).read().count("#EXTINF") for r in dirs)
    assert j["segments_done"] == j["segments_total"] == extinf
    assert abs(j["media_seconds_done"] - 12 * len(dirs)) < 0.5 * len(dirs)
    kinds = {"v": "video", "a": "audio", "s": "subtitles"}
    assert sorted(r["type"] for r in j["renditions"]) == sorted(kinds[d[0]] for d in dirs)
    # Every stored byte equals the origin's, and comes from the cache now.
    before = origin_paths(fo)
    for path, data in expected.items():
        r = eddy.get("/f" + path)
        # Playlists are served rewritten for the client's URL form; media bytes are the origin's.
        assert r.status == 200 and (path.endswith(".m3u8") or sha(r.body) == sha(data)), path
    # Except the master: a download's master is revalidated while the origin is reachable (a
    # 304, no body), so that players online see every variant (issue 28).
    master = "/%s/master.m3u8" % ASSET
    after = origin_paths(fo)
    assert after[master] == {"requests": before[master]["requests"] + 1, "bytes": before[master]["bytes"]}, after[master]
    assert {p: v for p, v in after.items() if p != master} == {p: v for p, v in before.items() if p != master}
    status, log = api(eddy, "GET", "/api/downloads/%s/log" % j["id"])
    assert status == 200 and sum(1 for ev in log["events"] if ev["event"] == "request") == len(expected)


def test_events_stream_ends_with_completion_and_delete_removes(origins, asset, eddy):
    _, fo, _ = origins
    status, j = api(eddy, "POST", "/api/downloads", {"url": "/f/%s/master.m3u8" % ASSET, "variant_index": 1, "audio": ["en"]})
    assert status == 201, j
    c = http.client.HTTPConnection("127.0.0.1", eddy.admin, timeout=60)
    c.request("GET", "/api/downloads/%s/events" % j["id"])
    r = c.getresponse()
    assert r.status == 200 and r.getheader("Content-Type") == "text/event-stream"
    events = [json.loads(line[6:]) for line in r.read().decode().splitlines() if line.startswith("data: ")]
    c.close()
    assert events and events[-1]["state"] == "completed"
    assert [e["bytes_done"] for e in events] == sorted(e["bytes_done"] for e in events)
    fo.reset()
    assert api(eddy, "DELETE", "/api/downloads/" + j["id"])[0] == 200
    assert api(eddy, "GET", "/api/downloads/" + j["id"])[0] == 404
    assert eddy.get("/f/%s/v1/seg0.m4s" % ASSET).status == 200
    assert origin_paths(fo)["/%s/v1/seg0.m4s" % ASSET]["requests"] == 1  # deleted: fetched again


def test_pause_and_resume(origins, asset, eddy):
    _, fo, _ = origins
    request(fo.port, "/_set?rate=60000")
    try:
        status, j = api(eddy, "POST", "/api/downloads", {"url": origin_url(fo), "variant_index": 4, "audio": ["en"]})
        assert status == 201
        wait_for(lambda: api(eddy, "GET", "/api/downloads/" + j["id"])[1]["bytes_done"] > 0, 30, 0.1, what="the download under way")
        assert api(eddy, "POST", "/api/downloads/%s/pause" % j["id"])[1]["state"] == "paused"
        # Requests already on their way may still reach the origin for a moment (see the
        # closing note of issue 12); after that, nothing while paused.
        wait_for(lambda: eddy.metrics()["eddy_upstream_active"] == 0, 30, 0.1, what="the requests on their way to finish")
        n = fo.stats()["requests"]
        time.sleep(2)  # the subject: nothing reaches the origin while paused
        assert fo.stats()["requests"] == n
        assert api(eddy, "POST", "/api/downloads/%s/resume" % j["id"])[0] == 200
    finally:
        request(fo.port, "/_set?rate=0")
    j = wait_done(eddy, j["id"])
    assert j["bytes_exact"] and j["bytes_done"] == sum(len(b) for b in files_of(asset, "v2", "a2").values())


def test_kill9_resumes_by_itself_without_refetching(origins, asset, tmp_path):
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo)
    fo.reset()
    request(fo.port, "/_set?rate=50000")
    try:
        status, j = api(e, "POST", "/api/downloads", {"url": origin_url(fo), "variant_index": 2, "audio": ["fr"], "subtitles": ["fr"]})
        assert status == 201, j
        mono = Monotonic()

        def half_done():
            s = api(e, "GET", "/api/downloads/" + j["id"])[1]
            mono(s)
            return s["bytes_done"] >= s["bytes_expected"] / 2
        wait_for(half_done, 60, 0.1, what="half of the download done")
        e.stop(sig=signal.SIGKILL)
        e.start()
        done = wait_done(e, j["id"], check=mono)
    finally:
        request(fo.port, "/_set?rate=0")
        e.stop()
    expected = files_of(asset, "v2", "a1", "s1")
    assert done["bytes_done"] == sum(len(b) for b in expected.values())
    sent = sum(v["bytes"] for v in origin_paths(fo).values())
    # At most one block (256 KiB) again per request that was in flight at the kill (8).
    assert sent <= done["bytes_done"] + 8 * 256 * 1024, (sent, done["bytes_done"])


def test_flaky_origin_completes_byte_exact(origins, asset, eddy):
    _, fo, _ = origins
    # The master playlist is cached first: while a job is being created an origin failure is a
    # 502 (see the bad-input test); the faults are for the job itself.
    assert eddy.get("/f/%s/master.m3u8" % ASSET).status == 200
    request(fo.port, "/_set?flaky=0.3")
    try:
        status, j = api(eddy, "POST", "/api/downloads", {"url": origin_url(fo), "variant_index": 0, "audio": ["en"]})
        assert status == 201, j
        j = wait_done(eddy, j["id"], timeout=150)
    finally:
        request(fo.port, "/_set?flaky=0")
    expected = files_of(asset, "v0", "a0")
    assert j["bytes_done"] == sum(len(b) for b in expected.values())
    status, log = api(eddy, "GET", "/api/downloads/%s/log" % j["id"])
    assert any(ev["event"] == "error" for ev in log["events"])  # the faults did happen
    fo.reset()
    for path, data in expected.items():
        r = eddy.get("/f" + path)
        assert r.status == 200 and (path.endswith(".m3u8") or sha(r.body) == sha(data)), path
    assert but_the_master(fo) == {}


def test_retry_after_holds_the_whole_job(origins, asset, eddy):
    """A segment answered 503 with Retry-After: 3 (RFC 9110 section 10.2.3): no request of the
    job reaches the origin for 3 s, though the job's own first backoff is under 1 s (its other
    fetches in flight stop too, and go on afterwards); then the job completes byte-exact."""
    _, fo, _ = origins
    seg = "/%s/v0/seg1.m4s" % ASSET
    fo.reset()
    request(fo.port, "/_set?path=%s&fail=503&retry_after=3" % seg)
    try:
        status, j = api(eddy, "POST", "/api/downloads", {"url": origin_url(fo), "variant_index": 0, "audio": ["en"]})
        assert status == 201, j
        deadline = refused_at = time.monotonic()
        deadline += 30
        # The 503 reached eddy after the last poll that saw no request started, so the wait is
        # measured from that poll: eddy waiting its 3 s then shows as at least 3 s however late
        # a busy machine runs the poll that sees the request.
        def asked():
            nonlocal refused_at
            polled_at = time.monotonic()
            if fo.stats()["paths"].get(seg, {}).get("requests", 0) >= 1:
                return polled_at
            refused_at = polled_at
        polled_at = wait_for(asked, deadline - time.monotonic(), 0.02, what="the request for %s" % seg)
        # Requests already in flight finish (a busy machine may take a while); none may start now.
        wait_for(lambda: eddy.metrics()["eddy_upstream_active"] == 0, polled_at + 2.5 - time.monotonic(), 0.02,
                 what="the requests in flight to finish")
        before = fo.stats()["requests"]
        status, info = api(eddy, "GET", "/api/downloads/" + j["id"])
        assert info["state"] == "waiting-for-origin", info
        request(fo.port, "/_set?path=%s&fail=" % seg)
        # Checked just before the 3 s can have passed (the 503 went after refused_at).
        time.sleep(max(0, refused_at + 2.8 - time.monotonic()))
        assert fo.stats()["requests"] == before, "a request went before Retry-After"
        wait_for(lambda: fo.stats()["paths"][seg]["requests"] >= 2, deadline - time.monotonic(), 0.02,
                 what="the request after Retry-After")
        waited = time.monotonic() - refused_at
    finally:
        request(fo.port, "/_set?path=%s&fail=" % seg)
    assert 2.9 <= waited < 6, waited
    j = wait_done(eddy, j["id"])
    expected = files_of(asset, "v0", "a0")
    assert j["bytes_done"] == sum(len(b) for b in expected.values())
    status, log = api(eddy, "GET", "/api/downloads/%s/log" % j["id"])
    errors = [ev for ev in log["events"] if ev["event"] == "error"]
    assert [(e["uri"], e["status"]) for e in errors] == [("seg1.m4s", "503")], errors
    r = eddy.get("/f" + seg)
    assert r.status == 200 and sha(r.body) == sha(expected[seg])


@pytest.mark.parametrize("kind", ["aes", "single"])
def test_media_playlist_download_aes128_ts_and_byterange(origins, streams, eddy, kind):
    """A media playlist URL (the eddy URL form) downloads too: an AES-128 MPEG-TS stream (its key
    with it) and a single file cut by EXT-X-BYTERANGE (only the ranges, each byte once). Then
    every segment is served from the cache, sha256-exact, without the origin."""
    ng = origins[0]
    d = os.path.join(streams, kind)
    lines = open(os.path.join(d, "index.m3u8")).read().splitlines()
    start = len(ng.requests())
    status, j = api(eddy, "POST", "/api/downloads", {"url": "http://127.0.0.1:%d/n/hls/%s/index.m3u8" % (eddy.port, kind)})
    assert status == 201, j
    j = wait_done(eddy, j["id"], check=Monotonic())
    sent = {}
    for st, n, _, uri in ng.requests()[start:]:
        assert st in (200, 206), (st, uri)
        sent[uri] = sent.get(uri, 0) + n
    playlist = os.path.getsize(os.path.join(d, "index.m3u8"))
    if kind == "aes":
        segs = [l for l in lines if l.endswith(".ts")]
        assert any(l.startswith("#EXT-X-KEY:METHOD=AES-128") for l in lines)
        names = ["index.m3u8", "key.bin"] + segs
        assert sent == {"/hls/aes/" + n: os.path.getsize(os.path.join(d, n)) for n in names}
        assert j["bytes_done"] == sum(sent.values()) and j["segments_total"] == len(segs)
        checks = [("/n/hls/aes/" + n, open(os.path.join(d, n), "rb").read(), None) for n in segs + ["key.bin"]]
    else:
        body = open(os.path.join(d, "index.ts"), "rb").read()
        ranges, offset = [], 0
        for l in lines:
            if l.startswith("#EXT-X-BYTERANGE:"):
                n, _, at = l.split(":", 1)[1].partition("@")
                offset = int(at) if at else offset
                ranges.append((offset, offset + int(n)))
                offset += int(n)
        assert ranges and ranges[-1][1] == len(body)
        # The ranges tile the file: every byte once, none twice.
        assert sent == {"/hls/single/index.m3u8": playlist, "/hls/single/index.ts": len(body)}
        assert j["bytes_done"] == playlist + sum(b - a for a, b in ranges) and j["segments_total"] == len(ranges)
        checks = [("/n/hls/single/index.ts", body[a:b], "bytes=%d-%d" % (a, b - 1)) for a, b in ranges]
    assert j["bytes_exact"] and j["segments_done"] == j["segments_total"]
    before = len(ng.requests())
    # The playlist first: through it eddy learns which URL is a key.
    assert eddy.get("/n/hls/%s/index.m3u8" % kind).status == 200
    for path, data, rng in checks:
        r = eddy.get(path, {"Range": rng} if rng else {})
        assert r.status == (206 if rng else 200) and sha(r.body) == sha(data), path
    # ffmpeg decrypts and reads every segment through eddy.
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", "http://127.0.0.1:%d/n/hls/%s/index.m3u8" % (eddy.port, kind),
                        "-map", "0", "-c", "copy", "-f", "null", "-"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # Not one byte from the origin, the key included: a downloaded asset's key is pinned and
    # served from the cache although cache_keys is off (offline playback needs it).
    assert ng.requests()[before:] == []


def test_download_over_http2_shares_one_connection(origins, streams, tls_origin, tmp_path):
    """An HTTPS origin offering HTTP/2: the job's requests (8 in flight) are streams of one
    connection per event loop (each loop fetches the resources it is home to, with its own curl
    multi handle), and each byte comes once."""
    ng, fo, _ = origins
    port, ca, log, _ = tls_origin
    mark = len(open(log).read().splitlines())
    e = Eddy(str(tmp_path), ng, fo, extra=["--origin", "/tls/=https://localhost:%d" % port, "--ca-file", ca])
    try:
        status, j = api(e, "POST", "/api/downloads", {"url": "http://127.0.0.1:%d/tls/hls/fmp4/master.m3u8" % e.port,
                                                       "audio": ["all"], "subtitles": ["all"]})
        assert status == 201, j
        j = wait_done(e, j["id"])
        loops = e.metrics()["eddy_event_loops"]
    finally:
        e.stop()
    lines = [l.split() for l in open(log).read().splitlines()[mark:]]
    assert len(lines) > 20 and all(p[1] == "HTTP/2.0" and p[2] == "200" for p in lines), lines
    assert len({p[4] for p in lines}) <= loops, (loops, lines)
    assert len({p[0] for p in lines}) == len(lines)
    assert j["bytes_done"] == sum(int(p[3]) for p in lines)


def test_cli_variants_and_download_wait(origins, asset, eddy):
    _, fo, _ = origins
    from conftest import EDDY
    admin = ["--admin", "127.0.0.1:%d" % eddy.admin]
    run = lambda *a: subprocess.run([EDDY, *a], capture_output=True, text=True, timeout=120)
    r = run("variants", origin_url(fo), *admin)
    assert r.returncode == 0, r.stderr
    assert "960x540" in r.stdout and "PQ" in r.stdout and "English 5.1" in r.stdout
    r = run("download", "add", origin_url(fo), "--variant", "height <= 180", "--audio", "fr", "--title", "cli", "--wait", *admin)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    job_id, last = lines[0], lines[-1]
    assert last == "completed" and "100.0%" in lines[-2], lines
    r = run("download", "ls", "--json", *admin)
    assert [j["id"] for j in json.loads(r.stdout)] == [job_id]
    r = run("download", "show", job_id, *admin)
    assert r.returncode == 0 and "completed" in r.stdout and "audio fr" in r.stdout, r.stdout
    r = run("download", "add", origin_url(fo), "--variant", "height <=", *admin)
    assert r.returncode == 1 and "position" in r.stderr, r.stderr
    assert run("download", "rm", job_id, *admin).returncode == 0
    assert run("download", "show", job_id, *admin).returncode == 1
