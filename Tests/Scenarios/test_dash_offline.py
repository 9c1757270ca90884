"""A DASH download offline on any broken network (issue 60, part 5; the HLS matrix of
test_offline_trust.py): a completed download of the 180p representation and French audio plays
with the origin refused, black-holed (connects, never answers), or replaced by a captive portal
(200 HTML, or a 302 to its login page); with the stored MPD fresh or stale by its headers; from a
cache that started empty or that a player had warmed before the download, followed by 3x the
cache size of other traffic. The MPD is answered 2xx within 2 s (50 ms once the origin is marked
unreachable) and lists only what is held (read by mpegdash), every held file is the origin's byte
for byte, and ffmpeg plays it."""
import os, statistics
import pytest
from mpegdash.parser import MPEGDASHParser
from conftest import sha
from test_dash_downloads import make_dash, stream_files
from test_downloads import api
from test_offline_trust import MODES, Hostile, download_then_stop_origin, timed_get
from test_dash_proxy import _framemd5

ASSET = "dashoff"
SELECTION = {"variant": "height <= 200", "audio": ["fr"]}


@pytest.fixture
def downloaded(origins, tmp_path, request):
    """(eddy, asset dir, job, origin port) for (fresh, warm): the download completed, the origin stopped."""
    fresh, warm = request.param
    # A player watched the first seconds of the 360p and English audio.
    seen = ["manifest.mpd", "init-stream0.m4s", "chunk-stream0-00001.m4s", "init-stream2.m4s", "chunk-stream2-00001.m4s"]
    with download_then_stop_origin(origins, tmp_path, fresh, warm, lambda www: make_dash(os.path.join(www, ASSET)),
                                   ["/f/%s/%s" % (ASSET, f) for f in seen], "/f/%s/manifest.mpd" % ASSET, SELECTION,
                                   lambda r: len(representations(r.body)) == 4, 300) as got:
        yield got


def representations(body):
    mpd = MPEGDASHParser.parse(body.decode())
    return sorted(((a.lang, rep.height) for p in mpd.periods for a in p.adaptation_sets for rep in a.representations), key=str)


CASES = [(fresh, warm) for fresh in (True, False) for warm in (False, True)]
IDS = ["%s-%s" % ("fresh" if f else "stale", "warm" if w else "empty") for f, w in CASES]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("downloaded", CASES, ids=IDS, indirect=True)
def test_a_dash_download_plays_offline_on_any_broken_network(downloaded, mode):
    e, d, j, port = downloaded
    hostile = Hostile(port, mode)
    try:
        r, first = timed_get(e, "/f/%s/manifest.mpd" % ASSET)
        assert r.status == 200 and r.h("Cache-Status") == "eddy; hit; detail=offline", (r.status, r.headers)
        assert first < 2.0, first
        assert representations(r.body) == sorted([(None, 180), ("fr", None)], key=str), r.body
        times = [timed_get(e, "/f/%s/manifest.mpd" % ASSET)[1] for _ in range(5)]
        assert statistics.median(times) < 0.05 and max(times) < 0.5, times
        for f in stream_files(d, 1) + stream_files(d, 3):
            r, took = timed_get(e, "/f/%s/%s" % (ASSET, f))
            assert r.status == 200 and took < 2.0, (f, r.status, took)
            assert sha(r.body) == sha(open(os.path.join(d, f), "rb").read()), f
        frames = _framemd5(j["offline_url"])
        assert len([l for l in frames if l.startswith("0,")]) == 150, len(frames)
        status, again = api(e, "GET", "/api/downloads/" + j["id"])
        assert again["state"] == "completed" and again["playable_offline"] is True, again
    finally:
        hostile.stop()
