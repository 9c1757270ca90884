"""Offline playback (issue 13): a downloaded asset plays at the same URL with the origin process
really stopped. Its own fault origin (so stopping it touches no other test), whose responses go
stale after a second, so that every request after the stop asks the origin first and meets
connection refused."""
import json, os, subprocess, time
import pytest
from conftest import Eddy, FaultOrigin, play, sha, tree, wait_for
from test_downloads import ASSET, api, files_of, make_asset, wait_done

# What the download takes: the lowest variant, French audio, English subtitles.
SELECTION = {"variant_index": 0, "audio": ["fr"], "subtitles": ["en"]}
DIRS = ["v0", "a1", "s0"]


@pytest.fixture
def offline(origins, tmp_path):
    """(eddy, the stopped origin's asset directory, the completed job)."""
    ng = origins[0]
    fo = FaultOrigin(str(tmp_path), args=["--cc", "max-age=1"])
    e = None
    try:
        d = make_asset(os.path.join(fo.www, ASSET))
        e = Eddy(str(tmp_path), ng, fo)
        status, j = api(e, "POST", "/api/downloads", dict(SELECTION, url="/f/%s/master.m3u8" % ASSET))
        assert status == 201, j
        j = wait_done(e, j["id"])
        time.sleep(1.5)  # everything stored is stale now
    finally:
        fo.stop()
    try:
        yield e, d, j
    finally:
        if e:
            e.stop()


def test_the_job_says_it_is_playable_offline(offline):
    e, _, j = offline
    assert j["playable_offline"] is True
    assert [r["complete"] for r in j["renditions"]] == [True, True, True]


def test_master_lists_only_what_was_downloaded_and_every_byte_is_served(offline):
    e, d, _ = offline
    r = e.get("/f/%s/master.m3u8" % ASSET)
    assert r.status == 200 and r.h("Cache-Status") == "eddy; hit; detail=offline", r.headers
    text = r.body.decode()
    uris = [l for l in text.splitlines() if l and not l.startswith("#")]
    assert len(uris) == 1 and uris[0].endswith("/v0/index.m3u8"), text
    media = [l for l in text.splitlines() if l.startswith("#EXT-X-MEDIA:")]
    assert len(media) == 2 and "a1/index.m3u8" in media[0] and "s0/index.m3u8" in media[1], media
    # The French track was not the default; the default (English) is gone, so French is now.
    assert "DEFAULT=YES" in media[0] and "AUTOSELECT=YES" in media[0]
    assert "v1/" not in text and "v2/" not in text and "a0/" not in text and "a2/" not in text and "s1/" not in text
    for path, data in files_of(d, *DIRS).items():
        if path.endswith(".m3u8"):
            continue
        r = e.get("/f" + path)
        assert r.status == 200 and sha(r.body) == sha(data), path
        assert r.h("Cache-Status") == "eddy; hit; detail=offline", (path, r.headers)
    # What was not downloaded is not there: a clear 502, not a hang.
    assert e.get("/f/%s/v1/seg0.m4s" % ASSET).status == 502


def test_players_play_it_with_no_origin(offline):
    e, _, _ = offline
    before = len(e.answered())
    url = "http://127.0.0.1:%d/f/%s/master.m3u8" % (e.port, ASSET)
    r = subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-of", "json", url], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # The video and the French audio, no more (a full master gives ffprobe 5 video and 8 audio
    # streams). Debian's ffmpeg (5.1) does not read WebVTT renditions of HLS at all, online or
    # not: the subtitles are checked byte for byte above, and by the players' requests below.
    streams = json.loads(r.stdout)["streams"]
    assert sorted(s["codec_type"] for s in streams) == ["audio", "video"], streams
    assert [s["tags"].get("language") for s in streams if s["codec_type"] == "audio"] == ["fr"]
    play(url)
    # Every request the players made was answered from the cache (200, or 206 to mpv's ranges):
    # none failed.
    seen = e.answered()[before:]
    assert any(p.endswith(".m4s") for p, _ in seen), seen
    assert all(st in (200, 206) for _, st in seen), [x for x in seen if x[1] not in (200, 206)]


def test_after_a_restart_with_the_origin_still_gone(offline):
    """The job's plan is rebuilt from the pinned playlists alone: it is still playable offline,
    and the master still lists only what was downloaded."""
    e, d, j = offline
    e.stop()
    e.start()
    # The plan is made once the loop runs.
    wait_for(lambda: api(e, "GET", "/api/downloads/" + j["id"])[1]["renditions"], 10, 0.1, what="the job's plan rebuilt")
    status, again = api(e, "GET", "/api/downloads/" + j["id"])
    assert status == 200 and again["state"] == "completed" and again["playable_offline"] is True, again
    assert again["bytes_done"] == j["bytes_done"] and again["segments_done"] == j["segments_total"]
    r = e.get("/f/%s/master.m3u8" % ASSET)
    assert r.status == 200 and r.h("Cache-Status") == "eddy; hit; detail=offline"
    assert [l for l in r.body.decode().splitlines() if l and not l.startswith("#")][0].endswith("/v0/index.m3u8")
    r = e.get("/f/%s/v0/seg1.m4s" % ASSET)
    assert r.status == 200 and sha(r.body) == sha(files_of(d, "v0")["/%s/v0/seg1.m4s" % ASSET])


def test_export_writes_a_folder_that_plays_from_disk_and_an_mp4(offline, tmp_path):
    """`eddy download export ID DIR --mp4 FILE`, with the origin still stopped: relative URIs,
    only the downloaded renditions, every byte the origin's; ffmpeg reads the folder with no
    network, and the MP4 has the video, the French audio and the English subtitles (a text track)
    for the asset's 12 s."""
    from conftest import EDDY
    e, d, j = offline
    out, mp4 = str(tmp_path / "export"), str(tmp_path / "asset.mp4")
    r = subprocess.run([EDDY, "download", "export", j["id"], out, "--mp4", mp4, "--admin", "127.0.0.1:%d" % e.admin],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    written = tree(out)
    expected = {p[len("/%s/" % ASSET):]: b for p, b in files_of(d, *DIRS).items()}
    assert set(written) == set(expected), sorted(set(written) ^ set(expected))
    for path, data in expected.items():
        if not path.endswith(".m3u8"):
            assert sha(written[path]) == sha(data), path
    for path in written:
        if path.endswith(".m3u8"):
            text = written[path].decode()
            assert "http" not in text and "/f/" not in text, (path, text)
    master = written["master.m3u8"].decode()
    assert [l for l in master.splitlines() if l and not l.startswith("#")] == ["v0/index.m3u8"], master
    # Read from disk: a file URL, no eddy, no origin (ffmpeg's hls demuxer, then the MP4).
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", os.path.join(out, "master.m3u8"), "-map", "0", "-c", "copy",
                        "-f", "null", "-"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", mp4],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    info = json.loads(r.stdout)
    streams = {s["codec_type"]: s for s in info["streams"]}
    assert sorted(s["codec_type"] for s in info["streams"]) == ["audio", "subtitle", "video"], info["streams"]
    assert abs(float(info["format"]["duration"]) - 12) < 0.5, info["format"]
    # MP4 labels tracks in ISO 639-2: LANGUAGE="fr" and "en" become fra and eng; WebVTT becomes a
    # text track, cue for cue.
    assert streams["audio"]["tags"].get("language") == "fra", streams["audio"]
    sub = streams["subtitle"]
    assert sub["codec_name"] == "mov_text" and sub["tags"].get("language") == "eng" and sub["tags"].get("handler_name") == "English", sub
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", mp4, "-map", "0:s", "-f", "webvtt", "-"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    vtt = open(os.path.join(out, "s0", "seg0.vtt")).read()
    cues = [l for l in vtt.splitlines() if l.startswith("Hello")]
    assert cues and [l for l in r.stdout.splitlines() if l.startswith("Hello")] == cues, (r.stdout, vtt)
    # Without a folder argument or ffmpeg's help, clear errors.
    r = subprocess.run([EDDY, "download", "export", j["id"], "--admin", "127.0.0.1:%d" % e.admin],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode != 0 and "folder" in r.stderr, r.stderr
    r = subprocess.run([EDDY, "download", "export", j["id"], "--mp4", mp4, "--admin", "127.0.0.1:%d" % e.admin],
                       capture_output=True, text=True, timeout=30, env=dict(os.environ, PATH="/nonexistent"))
    assert r.returncode == 1 and "ffmpeg" in r.stderr, r.stderr
