"""DASH downloads (issue 60, part 4 and 5): an ffmpeg-made DASH asset (two H.264 representations,
360p and 180p, English and French AAC, `$Number$` templates with a SegmentTimeline) downloaded
through the admin API with the HLS selection language (`variant: height <= 200`, `audio: fr`):
only those representations reach the origin, byte-exact; then, with the origin stopped, the MPD at
its usual URL lists only the representations held whole (the PyPI mpegdash parser reads it) and
ffmpeg plays it from eddy alone. Its own fault origin (responses stale after a second), so that
every request after the stop asks the origin first and meets connection refused."""
import hashlib, json, os, re, subprocess, time
import pytest
from mpegdash.parser import MPEGDASHParser
from conftest import Eddy, FaultOrigin, wait_for
from test_downloads import api, wait_done

ASSET = "dashdl"


def make_dash(d):
    os.makedirs(d, exist_ok=True)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=duration=6:size=640x360:rate=25",
                    "-f", "lavfi", "-i", "sine=frequency=440:duration=6", "-f", "lavfi", "-i", "sine=frequency=660:duration=6",
                    "-map", "0:v", "-map", "0:v", "-map", "1:a", "-map", "2:a",
                    "-c:v", "libx264", "-preset", "ultrafast", "-g", "25", "-b:v:0", "600k", "-s:v:0", "640x360",
                    "-b:v:1", "150k", "-s:v:1", "320x180", "-c:a", "aac", "-b:a", "64k",
                    "-metadata:s:a:0", "language=en", "-metadata:s:a:1", "language=fr",
                    "-f", "dash", "-seg_duration", "2", "-use_template", "1", "-use_timeline", "1",
                    "-adaptation_sets", "id=0,streams=v id=1,streams=2 id=2,streams=3",
                    os.path.join(d, "manifest.mpd")], check=True, timeout=180)
    return d


def stream_files(d, stream):
    return sorted(f for f in os.listdir(d) if re.match(r"(init|chunk)-stream%d[-.]" % stream, f))


@pytest.fixture
def downloaded(origins, tmp_path):
    """(eddy, asset dir, the completed job, the origin's paths during the job); the origin stopped."""
    ng = origins[0]
    fo = FaultOrigin(str(tmp_path), args=["--cc", "max-age=1"])
    e = None
    try:
        d = make_dash(os.path.join(fo.www, ASSET))
        e = Eddy(str(tmp_path), ng, fo)
        status, j = api(e, "POST", "/api/downloads", {"url": "/f/%s/manifest.mpd" % ASSET, "variant": "height <= 200", "audio": ["fr"]})
        assert status == 201, j
        assert j["kind"] == "dash", j
        j = wait_done(e, j["id"])
        paths = dict(fo.stats()["paths"])
        time.sleep(1.5)  # everything stored is stale now
    finally:
        fo.stop()
    try:
        yield e, d, j, paths
    finally:
        if e:
            e.stop()


def test_only_the_selected_representations_reach_the_origin_byte_exact(downloaded):
    e, d, j, paths = downloaded
    wanted = stream_files(d, 1) + stream_files(d, 3)  # 180p video, French audio
    assert len(wanted) >= 8, wanted
    fetched = sorted(p.rsplit("/", 1)[1] for p in paths if p.startswith("/%s/" % ASSET) and not p.endswith(".mpd"))
    assert fetched == sorted(wanted), (fetched, wanted)
    assert all(paths["/%s/%s" % (ASSET, f)]["requests"] == 1 for f in wanted)
    assert j["playable_offline"] is True and j["keys"] == "none", j
    assert len(j["renditions"]) == 2 and all(r["complete"] for r in j["renditions"]), j["renditions"]
    size = sum(os.path.getsize(os.path.join(d, f)) for f in wanted) + os.path.getsize(os.path.join(d, "manifest.mpd"))
    assert j["bytes_done"] == size, (j["bytes_done"], size)
    # Not built for DASH yet, and said so (not a 500, not an HLS error).
    for method, path in [("POST", "refresh"), ("GET", "export")]:
        status, body = api(e, method, "/api/downloads/%s/%s" % (j["id"], path))
        assert status == 409 and "DASH" in body["error"], (path, status, body)
    for f in wanted:  # byte-exact, from eddy alone
        r = e.get("/f/%s/%s" % (ASSET, f))
        assert r.status == 200 and hashlib.sha256(r.body).digest() == hashlib.sha256(open(os.path.join(d, f), "rb").read()).digest(), f


def test_offline_the_mpd_lists_only_what_is_held_and_ffmpeg_plays_it(downloaded):
    e, d, j, _ = downloaded
    r = e.get("/f/%s/manifest.mpd" % ASSET)
    assert r.status == 200, (r.status, r.body[:300])
    assert "no-cache" in r.h("cache-control"), r.headers
    mpd = MPEGDASHParser.parse(r.body.decode())
    reps = [(a.lang, rep.height) for p in mpd.periods for a in p.adaptation_sets for rep in a.representations]
    assert sorted(reps, key=str) == sorted([(None, 180), ("fr", None)], key=str), reps
    assert j["offline_url"].endswith("/f/%s/manifest.mpd" % ASSET), j["offline_url"]
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type,height:format=duration", "-of", "json",
                          "http://127.0.0.1:%d/f/%s/manifest.mpd" % (e.port, ASSET)], capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr.decode()[-800:]
    info = json.loads(out.stdout)
    assert sorted((s["codec_type"], s.get("height")) for s in info["streams"]) == [("audio", None), ("video", 180)], info
    play = subprocess.run(["ffmpeg", "-v", "error", "-i", "http://127.0.0.1:%d/f/%s/manifest.mpd" % (e.port, ASSET),
                           "-map", "0", "-c", "copy", "-f", "framemd5", "-"], capture_output=True, timeout=120)
    assert play.returncode == 0, play.stderr.decode()[-800:]
    frames = [l for l in play.stdout.decode().splitlines() if l and not l.startswith("#")]
    assert len([l for l in frames if l.startswith("0,")]) == 150, len(frames)  # 6 s of 25 fps video


def test_a_hostile_mpd_is_refused_at_creation_and_nothing_is_made(origins, eddy):
    _, fo, _ = origins
    d = os.path.join(fo.www, "dashbad")
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "xxe.mpd"), "w").write('<?xml version="1.0"?><!DOCTYPE MPD [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
                                                 '<MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><BaseURL>&x;</BaseURL></MPD>')
    open(os.path.join(d, "huge.mpd"), "w").write('<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" mediaPresentationDuration="P365D"><Period>'
                                                  '<AdaptationSet><SegmentTemplate duration="1" media="$Number$.m4s"/>'
                                                  '<Representation id="v" bandwidth="1"/></AdaptationSet></Period></MPD>')
    for name, words in [("xxe", "document type"), ("huge", "segments")]:
        status, body = api(eddy, "POST", "/api/downloads", {"url": "/f/dashbad/%s.mpd" % name})
        assert status == 400 and words in json.dumps(body), (status, body)
    assert api(eddy, "GET", "/api/downloads")[1] in ([], {"downloads": []}) or len(api(eddy, "GET", "/api/downloads")[1]["downloads"]) == 0


def test_variants_lists_the_representations_in_the_hls_shape(origins, eddy):
    """`GET /api/variants?url=` of an MPD: the same JSON shape as for HLS, video representations
    as variants (bandwidth, resolution, codecs), audio ones as renditions with their language."""
    _, fo, _ = origins
    make_dash(os.path.join(fo.www, "dashvar"))
    status, v = api(eddy, "GET", "/api/variants?url=/f/dashvar/manifest.mpd")
    assert status == 200, v
    assert sorted(x["resolution"] for x in v["variants"]) == ["320x180", "640x360"], v["variants"]
    assert all(x["bandwidth"] > 0 and x["video_codecs"] for x in v["variants"]), v["variants"]
    langs = sorted(r.get("language") for r in v["renditions"] if r["type"] == "AUDIO")
    assert langs == ["en", "fr"], v["renditions"]


def test_a_single_file_segment_list_downloads_as_byte_ranges_and_is_held_offline(origins, tmp_path):
    """ffmpeg's `-single_file 1`: one MP4 per representation and a SegmentList of `mediaRange`s.
    Each range is a unit of its own (progress by segment), the job holds each file whole, and with
    the origin stopped the MPD and every file are answered from eddy, byte for byte."""
    ng = origins[0]
    fo = FaultOrigin(str(tmp_path), args=["--cc", "max-age=1"])
    e = None
    try:
        d = os.path.join(fo.www, "dashsf")
        os.makedirs(d)
        subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=duration=6:size=320x240:rate=25",
                        "-f", "lavfi", "-i", "sine=duration=6", "-map", "0", "-map", "1", "-c:v", "libx264", "-preset", "ultrafast",
                        "-g", "25", "-c:a", "aac", "-f", "dash", "-seg_duration", "2", "-single_file", "1", "-use_template", "0",
                        "-use_timeline", "0", os.path.join(d, "m.mpd")], check=True, timeout=120)
        assert "mediaRange" in open(os.path.join(d, "m.mpd")).read()
        e = Eddy(str(tmp_path), ng, fo)
        status, j = api(e, "POST", "/api/downloads", {"url": "/f/dashsf/m.mpd"})
        assert status == 201 and j["kind"] == "dash", j
        j = wait_done(e, j["id"])
        assert [r["segments_total"] for r in j["renditions"]] == [3, 3], j["renditions"]
        size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
        assert j["bytes_done"] == size, (j["bytes_done"], size)
        time.sleep(1.2)  # stale by its headers
    finally:
        fo.stop()
    try:
        r = e.get("/f/dashsf/m.mpd")
        assert r.status == 200 and r.h("cache-status") == "eddy; hit; detail=offline", (r.status, r.headers)
        for f in os.listdir(d):
            if f.endswith(".mp4"):
                r = e.get("/f/dashsf/" + f)
                assert r.status == 200 and hashlib.sha256(r.body).digest() == hashlib.sha256(open(os.path.join(d, f), "rb").read()).digest(), f
    finally:
        e.stop()
