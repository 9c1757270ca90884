"""A download never stalls (issue 28, item 3): the whole asset (every variant, audio and subtitle
rendition) behind the fault origin answering 503 to about 10% of requests and cutting about 10%
of bodies at a random byte, over many seeds. Every run completes, byte-exact, and the done counts
never go back."""
import os, signal, time
import pytest
from conftest import Eddy, request, sha, wait_for
from test_downloads import ASSET, Monotonic, asset  # noqa: F401 (asset: a fixture)
from test_downloads import api, but_the_master, files_of, origin_paths, origin_url, wait_done

WHOLE = {"variant_index": 2, "audio": ["all"], "subtitles": ["all"],
         "auxiliary": [{"variant_index": 0, "audio": ["all"], "subtitles": ["all"]},
                       {"variant_index": 1, "audio": ["all"], "subtitles": ["all"]},
                       {"variant_index": 3, "audio": ["all"], "subtitles": ["all"]}]}
SEEDS = [int(s) for s in os.environ.get("EDDY_FAULT_SEEDS", "1,2,3,4,5,6,7,8,9,10").split(",")]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_flaky_origin_never_stalls_a_whole_asset_download(origins, asset, eddy, seed):
    _, fo, _ = origins
    assert eddy.get("/f/%s/master.m3u8" % ASSET).status == 200
    request(fo.port, "/_set?flaky=0.2&seed=%d" % seed)
    mono = Monotonic()
    try:
        status, j = api(eddy, "POST", "/api/downloads", dict(WHOLE, url=origin_url(fo)))
        assert status == 201, j
        j = wait_done(eddy, j["id"], timeout=120, check=mono)
    finally:
        request(fo.port, "/_set?flaky=0")
    expected = files_of(asset, "v0", "v1", "v2", "a0", "a1", "a2", "s0", "s1")
    assert j["bytes_done"] == sum(len(b) for b in expected.values())
    assert j["playable_offline"] is True
    fo.reset()
    for path, data in expected.items():
        r = eddy.get("/f" + path)
        assert r.status == 200, path
        if not path.endswith(".m3u8"):
            assert sha(r.body) == sha(data), path
    assert but_the_master(fo) == {}


def test_a_forced_stall_is_logged_counted_and_recovered(origins, asset, tmp_path):
    """A segment whose origin sends its head and then 2 bytes a second: the transfer is alive to
    curl (no low-speed abort), and the job gets no block and no end for `stall_timeout` (3 s).
    The watchdog logs the stall, counts it and restarts the fetch; once the origin behaves the job
    completes byte-exact."""
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--stall-timeout", "3"])
    slow = "/%s/v0/seg2.m4s" % ASSET
    request(fo.port, "/_set?path=%s&fail=trickle" % slow)
    try:
        status, j = api(e, "POST", "/api/downloads", {"url": origin_url(fo, "v0/index.m3u8")})
        assert status == 201, j
        wait_for(lambda: e.metrics().get("eddy_download_stalls_total", 0) >= 1, 30, 0.2, what="a stall counted")
        assert api(e, "GET", "/api/downloads/" + j["id"])[1]["state"] == "running"
        request(fo.port, "/_set?path=%s&fail=" % slow)
        done = wait_done(e, j["id"], timeout=30)
        status, log = api(e, "GET", "/api/downloads/%s/log" % j["id"])
        assert any(ev["event"] == "stall" and "seg2.m4s" in ev["units"] for ev in log["events"]), log["events"][-5:]
        assert "download stalled" in open(e.errpath).read()
        r = e.get("/f" + slow)
        assert r.status == 200 and sha(r.body) == sha(files_of(asset, "v0")[slow])
        assert done["segments_done"] == done["segments_total"] == 6
    finally:
        request(fo.port, "/_set?path=%s&fail=" % slow)
        e.stop()


def test_progress_never_goes_back_across_kill9_pause_and_a_restart(origins, asset, tmp_path):
    """Done counts sampled every 100 ms, for the job and each rendition, across three kill -9s,
    a pause and resume, and a graceful restart (issue 28, item 4): never below a value shown
    before."""
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo)
    fo.reset()
    request(fo.port, "/_set?rate=30000")
    mono = Monotonic()

    def sample_until(fraction, seconds=60):
        def sample():
            s = api(e, "GET", "/api/downloads/" + j["id"])[1]
            mono(s)
            return (s["state"] == "completed" or s["bytes_done"] >= s["bytes_expected"] * fraction) and s
        return wait_for(sample, seconds, 0.1,
                        what=lambda: "progress to %s: %s" % (fraction, api(e, "GET", "/api/downloads/" + j["id"])[1]))
    try:
        status, j = api(e, "POST", "/api/downloads", {"url": origin_url(fo), "variant_index": 2, "audio": ["all"], "subtitles": ["fr"]})
        assert status == 201, j
        for fraction in (0.2, 0.35, 0.5):
            sample_until(fraction)
            e.stop(sig=signal.SIGKILL)
            e.start()
        sample_until(0.6)
        assert api(e, "POST", "/api/downloads/%s/pause" % j["id"])[0] == 200
        for _ in range(5):  # the subject: samples while paused
            mono(api(e, "GET", "/api/downloads/" + j["id"])[1])
            time.sleep(0.1)
        assert api(e, "POST", "/api/downloads/%s/resume" % j["id"])[0] == 200
        sample_until(0.75)
        e.stop()
        e.start()
        done = wait_done(e, j["id"], timeout=120, check=mono)
    finally:
        request(fo.port, "/_set?rate=0")
        e.stop()
    assert mono.samples > 50
    expected = files_of(asset, "v2", "a0", "a1", "s1")  # variant 2 has the stereo group
    assert done["bytes_done"] == sum(len(b) for b in expected.values())
