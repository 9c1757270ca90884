"""MPEG-DASH through the proxy (issue 60, part 2): an MPD made by ffmpeg's dash muxer (a
SegmentTemplate with a SegmentTimeline, video and audio), served by nginx with an absolute
BaseURL, as most CDNs write it. Through eddy every BaseURL names eddy, so a player's every
segment request reaches eddy (nginx logs eddy's Via on each) and is cached; the PyPI `mpegdash`
parser takes what eddy serves; a dynamic MPD is kept no longer than its minimumUpdatePeriod;
a hostile MPD (XXE, billion laughs, malformed XML) is answered 502 and eddy goes on."""
import os, re, subprocess, time
import pytest
from mpegdash.parser import MPEGDASHParser
from conftest import request, wait_for

MPD_NS = "urn:mpeg:dash:schema:mpd:2011"


@pytest.fixture(scope="module")
def dash(origins):
    """ffmpeg's dash muxer: 6 s of 320x240 H.264 and AAC in 2 s segments, `$Number$` templates
    with a SegmentTimeline, under nginx's /dash/; abs.mpd is the same with an absolute BaseURL."""
    ng, _, _ = origins
    d = os.path.join(ng.www, "dash")
    os.makedirs(d, exist_ok=True)
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=duration=6:size=320x240:rate=25",
                    "-f", "lavfi", "-i", "sine=frequency=440:duration=6", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25",
                    "-c:a", "aac", "-b:a", "64k", "-map", "0", "-map", "1", "-f", "dash", "-seg_duration", "2",
                    "-use_template", "1", "-use_timeline", "1", os.path.join(d, "manifest.mpd")], check=True, timeout=120)
    text = open(os.path.join(d, "manifest.mpd")).read()
    base = "http://127.0.0.1:%d/dash/" % ng.port
    absolute = re.sub(r"(<Period\b)", "<BaseURL>%s</BaseURL>\n\t\\1" % base, text, count=1)
    assert base in absolute
    open(os.path.join(d, "abs.mpd"), "w").write(absolute)
    return ng, d, base


def origin_requests(ng, prefix):
    return [(s, via, uri) for s, _, via, uri in ng.requests() if uri.startswith(prefix)]


def test_an_absolute_baseurl_names_eddy_and_the_mpd_parses(eddy, dash):
    ng, _, base = dash
    r = eddy.get("/n/dash/abs.mpd")
    assert r.status == 200, (r.status, r.body[:300])
    text = r.body.decode()
    assert base not in text, "the origin's BaseURL reached the player"
    mpd = MPEGDASHParser.parse(text)
    assert [b.base_url_value for b in mpd.base_urls] == ["/n/dash/"], [b.base_url_value for b in mpd.base_urls]
    reps = [rep for p in mpd.periods for a in p.adaptation_sets for rep in a.representations]
    assert len(reps) == 2, text
    assert "Content-Range" not in r.headers and r.h("accept-ranges") == "none"
    assert int(r.h("content-length")) == len(r.body)


def _framemd5(url):
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", url, "-map", "0", "-c", "copy", "-f", "framemd5", "-"],
                         capture_output=True, timeout=120)
    assert out.returncode == 0, out.stderr.decode()[-800:]
    lines = [l for l in out.stdout.decode().splitlines() if l and not l.startswith("#")]
    assert len(lines) > 100, lines[:5]
    return lines


def test_ffmpeg_plays_through_eddy_with_every_segment_request_at_eddy_and_cached(eddy, dash):
    ng, _, _ = dash
    direct = _framemd5("http://127.0.0.1:%d/dash/manifest.mpd" % ng.port)
    before = len(ng.requests())
    via = _framemd5("http://127.0.0.1:%d/n/dash/abs.mpd" % eddy.port)
    assert via == direct, "the same packets through eddy as from the origin"
    fetched = [(s, v, u) for s, _, v, u in ng.requests()[before:]]
    segments = [f for f in fetched if re.search(r"\.m4s$", f[2])]
    assert len(segments) >= 6, fetched
    assert all("eddy" in v for _, v, _ in fetched), [f for f in fetched if "eddy" not in f[1]][:5]
    # Again: every segment and init section from eddy's cache, the origin asked for nothing but
    # (at most) the MPD.
    before = len(ng.requests())
    assert _framemd5("http://127.0.0.1:%d/n/dash/abs.mpd" % eddy.port) == direct
    again = [u for _, _, _, u in ng.requests()[before:]]
    assert all(u.endswith(".mpd") for u in again), again


def test_a_dynamic_mpd_is_kept_no_longer_than_its_minimum_update_period(eddy, dash):
    """nginx says `expires 1h`; the MPD says it may change every second (ISO/IEC 23009-1 5.4)."""
    ng, d, _ = dash
    path = os.path.join(d, "live.mpd")

    def write(n):
        open(path, "w").write('<?xml version="1.0"?>\n<MPD xmlns="%s" type="dynamic" minimumUpdatePeriod="PT1S" '
                              'availabilityStartTime="2026-01-01T00:00:00Z" profiles="urn:mpeg:dash:profile:isoff-live:2011">'
                              '<Period id="p%d" start="PT0S"/></MPD>' % (MPD_NS, n))
    write(1)
    first = eddy.get("/n/dash/live.mpd")
    assert first.status == 200 and b'id="p1"' in first.body, first.body
    write(22)  # another length: nginx's validators would not change within the same second otherwise
    t0 = time.monotonic()
    assert b'id="p1"' in eddy.get("/n/dash/live.mpd").body, "fresh for its update period"
    wait_for(lambda: b'id="p22"' in eddy.get("/n/dash/live.mpd").body, 5, what="the changed MPD, past its update period")
    assert time.monotonic() - t0 < 3


@pytest.mark.parametrize("name,body", [
    ("xxe", '<?xml version="1.0"?><!DOCTYPE MPD [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            '<MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><BaseURL>&x;</BaseURL></MPD>'),
    ("laughs", '<?xml version="1.0"?><!DOCTYPE MPD [<!ENTITY a "aaaaaaaaaa">' +
               "".join('<!ENTITY %s "%s">' % (chr(98 + i), ("&%s;" % chr(97 + i)) * 10) for i in range(8)) +
               ']><MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><BaseURL>&i;</BaseURL></MPD>'),
    ("malformed", '<MPD xmlns="urn:mpeg:dash:schema:mpd:2011"><Period></MPD>'),
])
def test_a_hostile_mpd_is_answered_502_and_eddy_goes_on(eddy, dash, name, body):
    ng, d, _ = dash
    open(os.path.join(d, name + ".mpd"), "w").write(body)
    r = eddy.get("/n/dash/%s.mpd" % name)
    assert r.status == 502, (r.status, r.body[:300])
    assert b"passwd" not in r.body and b"root:" not in r.body
    assert "MPD" in r.h("cache-status"), r.h("cache-status")
    assert eddy.get("/n/dash/abs.mpd").status == 200, "eddy goes on"


def test_an_mpd_passed_through_uncached_is_rewritten_too(eddy, dash):
    """`Cache-Control: no-store` (nginx's /nocache/): eddy does not keep the MPD, and still
    sends it with BaseURLs naming eddy, or a 502 for a hostile one."""
    ng, d, base = dash
    r = eddy.get("/n/nocache/dash/abs.mpd")
    assert r.status == 200 and "no-store" in r.h("cache-control"), (r.status, r.headers)
    text = r.body.decode()
    assert base not in text
    assert [b.base_url_value for b in MPEGDASHParser.parse(text).base_urls] == ["/n/dash/"]
    open(os.path.join(d, "bad.mpd"), "w").write('<MPD xmlns="%s"><Period></MPD>' % MPD_NS)
    assert eddy.get("/n/nocache/dash/bad.mpd").status == 502


def test_the_segments_after_the_one_a_player_reads_are_prefetched(eddy, dash):
    """As for HLS (`prefetch_segments`, 3 by default): the MPD's SegmentTimeline lists each
    representation's segments, so asking for the first video segment brings the next two into
    the cache before the player asks for them."""
    ng, d, _ = dash
    text = eddy.get("/n/dash/abs.mpd").body.decode()
    first = "chunk-stream0-00001.m4s"
    assert os.path.exists(os.path.join(d, first)) and "$Number%05d$" in text, text
    before = len(ng.requests())
    assert eddy.get("/n/dash/" + first).status == 200
    wanted = {"/dash/chunk-stream0-00002.m4s", "/dash/chunk-stream0-00003.m4s"}
    wait_for(lambda: wanted <= {u for _, _, _, u in ng.requests()[before:]}, 10,
             what=lambda: "the next two segments at the origin: %r" % [u for _, _, _, u in ng.requests()[before:]])
    before = len(ng.requests())
    r = eddy.get("/n/dash/chunk-stream0-00002.m4s")
    assert r.status == 200 and r.body == open(os.path.join(d, "chunk-stream0-00002.m4s"), "rb").read()
    assert "hit" in r.h("cache-status"), r.h("cache-status")


@pytest.fixture
def live_dash(origins):
    """ffmpeg's dash muxer live (`-re`, 1 s segments, a window of 5): a dynamic MPD with
    minimumUpdatePeriod PT1S under nginx's /dashlive/; stopped by its pid."""
    ng, _, _ = origins
    d = os.path.join(ng.www, "dashlive")
    os.makedirs(d, exist_ok=True)
    p = subprocess.Popen(["ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
                          "-f", "lavfi", "-i", "sine=frequency=440", "-c:v", "libx264", "-preset", "ultrafast", "-g", "25",
                          "-c:a", "aac", "-f", "dash", "-seg_duration", "1", "-window_size", "5", "-extra_window_size", "2",
                          "-use_template", "1", "-use_timeline", "1", os.path.join(d, "live.mpd")],
                         stdin=subprocess.DEVNULL)
    try:
        path = os.path.join(d, "live.mpd")

        def ready():
            if p.poll() is not None:
                raise AssertionError("ffmpeg exited: %s" % p.returncode)
            text = open(path).read() if os.path.exists(path) else ""
            return 'type="dynamic"' in text and text.count("<S ") >= 2 and os.path.exists(os.path.join(d, "chunk-stream0-00004.m4s"))
        wait_for(ready, 30, what="ffmpeg's live MPD with a few segments")
        yield ng, d
    finally:
        p.terminate()
        p.wait(10)


def test_a_live_mpd_plays_through_eddy_and_is_kept_for_its_update_period(eddy, live_dash):
    ng, d = live_dash
    text = eddy.get("/n/dashlive/live.mpd").body.decode()
    mpd = MPEGDASHParser.parse(text)
    assert mpd.type == "dynamic" and mpd.minimum_update_period == "PT1S", text[:400]
    # Twenty viewers' reloads within the update period: the origin is asked about once.
    before = [u for _, _, _, u in ng.requests()].count("/dashlive/live.mpd")
    t0 = time.monotonic()
    for _ in range(20):
        assert eddy.get("/n/dashlive/live.mpd").status == 200
    asked = [u for _, _, _, u in ng.requests()].count("/dashlive/live.mpd") - before
    periods = int((time.monotonic() - t0) / 1.0)  # about 0 on this machine: 20 requests take a few ms
    assert asked <= 1 + periods, (asked, periods)
    # Then the MPD moves on: a newer one within a few update periods.
    wait_for(lambda: eddy.get("/n/dashlive/live.mpd").body.decode() != text, 5, what="the live MPD's next version")
    # A player follows it through eddy for 3 s.
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", "http://127.0.0.1:%d/n/dashlive/live.mpd" % eddy.port, "-t", "3",
                          "-map", "0", "-c", "copy", "-f", "framemd5", "-"], capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr.decode()[-800:]
    frames = [l for l in out.stdout.decode().splitlines() if l.startswith("0,")]
    assert len(frames) >= 50, len(frames)
    fetched = [(v, u) for _, _, v, u in ng.requests() if u.startswith("/dashlive/chunk")]
    assert fetched and all("eddy" in v for v, _ in fetched), fetched[:5]
