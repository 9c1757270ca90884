"""Live and EVENT recording (issue 13): a download of a live playlist records until EXT-X-ENDLIST
or its `duration`, survives a kill -9 mid-recording, and plays offline as VOD with the origin
process stopped.

The origin is the fault origin serving a live stream published by a writer thread from
ffmpeg-made fMP4 segments: one 2-second segment every 2 seconds, in a sliding window of three
(so a recording must keep what the origin's playlist forgets), or as an EVENT playlist."""
import json, os, shutil, signal, subprocess, threading, time
import pytest
from conftest import Eddy, FaultOrigin, ff, sha, wait_for
from test_downloads import api, wait_done, wait_state

SEG = 2.0


def make_source(d, seconds=40):
    """fMP4 renditions v/ and a/ of 2-second segments, as ffmpeg's VOD playlists (source.m3u8),
    and a master naming the live playlists (index.m3u8) the writer publishes."""
    hls = ["-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
           "-hls_fmp4_init_filename", "init.mp4"]
    for sub, args in [("v", ["-f", "lavfi", "-i", "testsrc=duration=%d:size=320x180:rate=25" % seconds,
                             "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-b:v", "200k"]),
                      ("a", ["-f", "lavfi", "-i", "sine=frequency=440:duration=%d" % seconds, "-c:a", "aac"])]:
        os.makedirs(os.path.join(d, sub))
        r = ff(*args, *hls, "-hls_segment_filename", os.path.join(d, sub, "seg%d.m4s"), os.path.join(d, sub, "source.m3u8"))
        assert r.returncode == 0, r.stderr
    open(os.path.join(d, "master.m3u8"), "w").write("\n".join([
        "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS",
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="a/index.m3u8"',
        '#EXT-X-STREAM-INF:BANDWIDTH=300000,CODECS="avc1.64000d,mp4a.40.2",RESOLUTION=320x180,AUDIO="aud"',
        "v/index.m3u8", ""]))


class LiveWriter(threading.Thread):
    """Publishes v/index.m3u8 and a/index.m3u8: `start_with` segments at first, one more every
    2 s; a sliding window of `window` segments (None: an EVENT playlist keeping them all); and
    EXT-X-ENDLIST once `end_at` segments are out (None: never). With `restart_at`, the origin
    restarts after that many segments, as a restarted packager does: its playlist numbers from 0
    again and names the rest r0.m4s, r1.m4s... (copies of the segments that follow)."""

    def __init__(self, d, start_with=3, window=3, end_at=None, delete_old=False, restart_at=None):
        super().__init__(daemon=True)
        self.d, self.window, self.end_at, self.delete_old = d, window, end_at, delete_old
        self.restart_at = restart_at
        self.available = start_with
        self.stopped = threading.Event()
        self.source = {sub: self.entries(sub) for sub in ("v", "a")}
        if restart_at is not None:
            for sub, (_, entries) in self.source.items():
                for i in range(restart_at, len(entries)):
                    shutil.copyfile(os.path.join(d, sub, "seg%d.m4s" % i), os.path.join(d, sub, "r%d.m4s" % (i - restart_at)))
        self.publish()

    def entries(self, sub):
        lines = open(os.path.join(self.d, sub, "source.m3u8")).read().splitlines()
        target = next(l for l in lines if l.startswith("#EXT-X-TARGETDURATION"))
        return target, [(lines[i], lines[i + 1]) for i, l in enumerate(lines) if l.startswith("#EXTINF")]

    def publish(self):
        for sub, (target, entries) in self.source.items():
            n = min(self.available, len(entries))
            items = entries[:n]
            if self.restart_at is not None:
                r = self.restart_at
                items = items[:r] if n <= r else [(x, "r%d.m4s" % (i - r)) for i, (x, _) in enumerate(items) if i >= r]
            first = 0 if self.window is None else max(0, len(items) - self.window)
            out = ["#EXTM3U", "#EXT-X-VERSION:7", target, "#EXT-X-MEDIA-SEQUENCE:%d" % first]
            if self.window is None:
                out.append("#EXT-X-PLAYLIST-TYPE:EVENT")
            out.append('#EXT-X-MAP:URI="init.mp4"')
            for extinf, uri in items[first:]:
                out += [extinf, uri]
            if self.end_at is not None and n >= self.end_at:
                out.append("#EXT-X-ENDLIST")
            tmp = os.path.join(self.d, sub, ".index.tmp")
            open(tmp, "w").write("\n".join(out) + "\n")
            os.replace(tmp, os.path.join(self.d, sub, "index.m3u8"))

    def run(self):
        while not self.stopped.wait(SEG):
            if self.end_at is not None and self.available >= self.end_at:
                return
            self.available += 1
            self.publish()
            if self.delete_old:
                # As ffmpeg's delete_segments does: what left the window is gone (kept aside here).
                for sub in ("v", "a"):
                    for n in range(0, max(0, self.available - self.window - 1)):
                        p = os.path.join(self.d, sub, "seg%d.m4s" % n)
                        if os.path.exists(p):
                            os.makedirs(os.path.join(self.d, "gone", sub), exist_ok=True)
                            os.replace(p, os.path.join(self.d, "gone", sub, "seg%d.m4s" % n))

    def stop(self):
        self.stopped.set()
        self.join(5)


@pytest.fixture
def live(origins, tmp_path):
    """A function making (eddy, fault origin, asset dir, writer); everything stopped afterwards."""
    made = []

    def make(extra=(), **writer):
        fo = FaultOrigin(str(tmp_path), args=["--cc", "max-age=1"])
        made.append(fo)
        d = os.path.join(fo.www, "live")
        make_source(d)
        w = LiveWriter(d, **writer)
        made.append(w)
        w.start()
        e = Eddy(str(tmp_path), origins[0], fo, extra)
        made.append(e)
        return e, fo, d, w

    yield make
    for m in reversed(made):
        m.stop()


def recorded_segments(text):
    return [l for l in text.splitlines() if l and not l.startswith("#")]


def offline_video_playlist(e, w, fo):
    """Stops the writer and the origin; then the video playlist eddy serves offline, and its
    segment names."""
    w.stop()
    fo.stop()
    time.sleep(1.5)  # everything stored is stale: eddy asks the stopped origin first
    r = e.get("/f/live/v/index.m3u8")
    assert r.status == 200 and r.h("Cache-Status") == "eddy; hit; detail=offline"
    text = r.body.decode()
    return text, [u.rsplit("/", 1)[1] for u in recorded_segments(text)]


def check_offline_vod(e, d, count):
    """With the origin stopped: both media playlists are the whole recording as VOD, every
    segment is served byte-exact, and players read the master."""
    for sub in ("v", "a"):
        r = e.get("/f/live/%s/index.m3u8" % sub)
        assert r.status == 200 and r.h("Cache-Status") == "eddy; hit; detail=offline", r.headers
        text = r.body.decode()
        assert "#EXT-X-PLAYLIST-TYPE:VOD" in text and text.rstrip().endswith("#EXT-X-ENDLIST"), text
        uris = recorded_segments(text)
        assert [u.rsplit("/", 1)[1] for u in uris] == ["seg%d.m4s" % i for i in range(count)], text
        for name in ["init.mp4"] + ["seg%d.m4s" % i for i in range(count)]:
            r = e.get("/f/live/%s/%s" % (sub, name))
            assert r.status == 200 and sha(r.body) == sha(open(os.path.join(d, sub, name), "rb").read()), (sub, name)
            assert r.h("Cache-Status") == "eddy; hit; detail=offline"
    url = "http://127.0.0.1:%d/f/live/master.m3u8" % e.port
    r = subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", url],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    assert sorted(s["codec_type"] for s in info["streams"]) == ["audio", "video"]
    assert abs(float(info["format"]["duration"]) - count * SEG) < 0.6, info["format"]
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", url, "-map", "0", "-c", "copy", "-f", "null", "-"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_a_live_recording_of_20_seconds_plays_offline_as_vod(live):
    e, fo, d, w = live(end_at=10)
    status, j = api(e, "POST", "/api/downloads", {"url": "/f/live/master.m3u8"})
    assert status == 201, j
    assert j.get("recording", {}).get("active") in (True, None), j
    j = wait_done(e, j["id"], timeout=60)
    assert j["recording"] == {"active": False, "ended": "endlist", "media_seconds": pytest.approx(20, abs=0.2),
                              "duration": None, "missed_segments": 0, "origin_restarts": 0}, j["recording"]
    assert j["playable_offline"] is True and [r["complete"] for r in j["renditions"]] == [True, True]
    # The origin's last playlist holds three segments; the recording holds all ten, each fetched once.
    paths = fo.stats()["paths"]
    assert len(recorded_segments(open(os.path.join(d, "v", "index.m3u8")).read())) == 3
    for sub in ("v", "a"):
        for i in range(10):
            assert paths["/live/%s/seg%d.m4s" % (sub, i)]["requests"] == 1, (sub, i)
    w.stop()
    fo.stop()
    time.sleep(1.5)  # everything stored is stale now: each request below asks the stopped origin first
    check_offline_vod(e, d, 10)
    assert [a for a in e.answered() if a[1] not in (200, 206)] == []


def test_an_event_recording_stops_at_its_duration(live):
    e, fo, d, w = live(window=None)
    status, j = api(e, "POST", "/api/downloads", {"url": "/f/live/master.m3u8", "duration": "10s"})
    assert status == 201, j
    started = time.time()
    j = wait_done(e, j["id"], timeout=40)
    # Three segments at once, then one per 2 s until 10 s are in: about 4 s, not the whole stream.
    assert time.time() - started < 12
    assert j["recording"]["ended"] == "duration" and j["recording"]["duration"] == 10
    assert 10 <= j["recording"]["media_seconds"] < 12.1, j["recording"]
    assert [r["segments_total"] for r in j["renditions"]][0] == 5, j["renditions"]
    # A bad duration is refused, creating nothing.
    status, err = api(e, "POST", "/api/downloads", {"url": "/f/live/master.m3u8", "duration": "soon"})
    assert status == 400 and "duration" in err["error"], err
    # The stream goes on at the origin; the finished recording asks for nothing more.
    before = fo.stats()["paths"].get("/live/v/index.m3u8", {}).get("requests")
    time.sleep(4.5)  # the subject: two segments' time in which the finished recording asks for nothing
    assert fo.stats()["paths"]["/live/v/index.m3u8"]["requests"] == before


def test_a_recording_survives_kill_9_and_marks_what_it_missed(live):
    e, fo, d, w = live(end_at=14)
    status, j = api(e, "POST", "/api/downloads", {"url": "/f/live/master.m3u8"})
    assert status == 201, j
    job = j["id"]
    time.sleep(3)  # the subject: kill -9 3 s into the recording (its first window recorded and committed)
    e.stop(sig=signal.SIGKILL)
    # Away for 9 s: with a window of three, about two segments leave it unseen.
    time.sleep(9)
    e.start()
    j = wait_done(e, job, timeout=60)
    rec = j["recording"]
    assert rec["ended"] == "endlist" and rec["missed_segments"] >= 1, rec
    text, names = offline_video_playlist(e, w, fo)
    numbers = [int(n[3:-4]) for n in names]
    assert numbers[0] == 0 and numbers[-1] == 13 and numbers == sorted(numbers), names
    # missed_segments counts both renditions, which miss the same segments.
    assert 2 * (14 - len(numbers)) == rec["missed_segments"], (names, rec)
    # Where segments are missing the playlist says so, once per gap.
    gaps = sum(1 for a, b in zip(numbers, numbers[1:]) if b != a + 1)
    assert gaps >= 1 and text.count("#EXT-X-DISCONTINUITY\n") == gaps, text
    for n in names:
        r = e.get("/f/live/v/" + n)
        assert r.status == 200 and sha(r.body) == sha(open(os.path.join(d, "v", n), "rb").read()), n


def test_a_recording_that_would_not_fit_waits_for_space(live):
    """40 s to record at the variant's 300 kb/s is about 1.5 MB: under --max-size 400K the job
    waits for space with its reason before pinning more than the limit allows."""
    e, fo, d, w = live(("--max-size", "400K"), window=None)
    status, j = api(e, "POST", "/api/downloads", {"url": "/f/live/master.m3u8", "duration": "40s"})
    assert status == 201, j
    j = wait_state(e, j["id"], "waiting-for-space", timeout=20)
    assert j["state"] == "waiting-for-space" and "needs" in j["reason"], j
    assert e.metrics()["eddy_cache_pinned_bytes"] <= 400 * 1024


def test_a_segment_gone_from_the_origin_before_it_was_fetched_is_a_marked_gap(live):
    """The origin deletes what leaves its window (delete_segments), and refuses one segment (503)
    until it is gone: the job does not fail over it. The recording drops it, counts it missed,
    marks the gap, and completes at ENDLIST; offline, players read the rest."""
    from conftest import request
    e, fo, d, w = live(end_at=10, delete_old=True)
    request(fo.port, "/_set?path=/live/v/seg4.m4s&fail=503")
    status, j = api(e, "POST", "/api/downloads", {"url": "/f/live/master.m3u8"})
    assert status == 201, j
    # seg4 is out at 6 s and deleted from the origin by about 12 s; then the origin says 404.
    wait_for(lambda: os.path.exists(os.path.join(d, "gone", "v", "seg4.m4s")), 30, 0.1, what="seg4 deleted at the origin")
    request(fo.port, "/_set?path=/live/v/seg4.m4s&fail=")
    j = wait_done(e, j["id"], timeout=60)
    assert j["recording"]["ended"] == "endlist" and j["recording"]["missed_segments"] == 1, j["recording"]
    log = api(e, "GET", "/api/downloads/%s/log" % j["id"])[1]["events"]
    assert [ev["uri"] for ev in log if ev["event"] == "missed"] == ["seg4.m4s"], log
    video = [r for r in j["renditions"] if r["type"] == "video"][0]
    assert video["complete"] is True and video["segments_total"] == 9 and video["segments_done"] == 9, video
    text, names = offline_video_playlist(e, w, fo)
    assert names == ["seg%d.m4s" % i for i in range(10) if i != 4], names
    assert text.count("#EXT-X-DISCONTINUITY\n") == 1
    url = "http://127.0.0.1:%d/f/live/master.m3u8" % e.port
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", url, "-map", "0", "-c", "copy", "-f", "null", "-"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_an_origin_that_restarts_its_numbering_is_recorded_on_after_a_discontinuity(live):
    """The origin restarts after 5 segments: its playlists number from 0 again, with new segment
    names (RFC 8216bis section 6.2.2 forbids a decreasing EXT-X-MEDIA-SEQUENCE, but restarted
    packagers do it). The recording does not stall at the old numbers: it goes on after one
    discontinuity, and plays offline whole."""
    e, fo, d, w = live(end_at=10, restart_at=5)
    status, j = api(e, "POST", "/api/downloads", {"url": "/f/live/master.m3u8"})
    assert status == 201, j
    j = wait_done(e, j["id"], timeout=60)
    rec = j["recording"]
    assert rec["ended"] == "endlist" and rec["origin_restarts"] == 1 and rec["missed_segments"] == 0, rec
    assert rec["media_seconds"] == pytest.approx(20, abs=0.2), rec
    names = ["seg%d.m4s" % i for i in range(5)] + ["r%d.m4s" % i for i in range(5)]
    text, got = offline_video_playlist(e, w, fo)
    assert got == names, text
    assert text.count("#EXT-X-DISCONTINUITY\n") == 1 and text.index("#EXT-X-DISCONTINUITY") < text.index("r0.m4s"), text
    for sub in ("v", "a"):
        for name in names:
            r = e.get("/f/live/%s/%s" % (sub, name))
            assert r.status == 200 and sha(r.body) == sha(open(os.path.join(d, sub, name), "rb").read()), (sub, name)
    url = "http://127.0.0.1:%d/f/live/master.m3u8" % e.port
    r = subprocess.run(["ffprobe", "-v", "error", "-show_format", "-of", "json", url], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert abs(float(json.loads(r.stdout)["format"]["duration"]) - 10 * SEG) < 0.6, r.stdout
