"""Export of a primary plus an auxiliary configuration that reuses the primary's video (issue 28,
item 5): the MP4 has one video track and every audio the two chose; the export lists each file
once, and the count the CLI prints is the number of files written."""
import json, os, re, subprocess
from conftest import EDDY, Eddy, sha, tree
from test_downloads import ASSET, api, files_of, make_asset, origin_paths, origin_url, wait_done


def test_a_shared_video_is_exported_once_and_every_file_is_listed_once(origins, tmp_path):
    ng, fo, _ = origins
    d = make_asset(os.path.join(fo.www, ASSET))
    e = Eddy(str(tmp_path), ng, fo)
    try:
        # Variant 1 (v1, stereo) with French audio, and variant 3 (v1 again, with the 5.1 group).
        status, j = api(e, "POST", "/api/downloads", {"url": origin_url(fo), "variant_index": 1, "audio": ["fr"],
                                                      "subtitles": ["none"], "auxiliary": [{"variant_index": 3, "audio": ["all"], "subtitles": ["none"]}]})
        assert status == 201, j
        j = wait_done(e, j["id"])
        out, mp4 = str(tmp_path / "export"), str(tmp_path / "asset.mp4")
        r = subprocess.run([EDDY, "download", "export", j["id"], out, "--mp4", mp4, "--admin", "127.0.0.1:%d" % e.admin],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        written = tree(out)
        said = int(re.search(r"exported (\d+) files", r.stdout).group(1))
        assert said == len(written), (r.stdout, sorted(written))
        status, listing = api(e, "GET", "/api/downloads/%s/export" % j["id"])
        paths = [f["path"] for f in listing["files"]]
        assert len(paths) == len(set(paths)) == len(written), paths
        expected = {p[len("/%s/" % ASSET):]: b for p, b in files_of(d, "v1", "a1", "a2").items()}
        assert set(written) == set(expected), sorted(set(written) ^ set(expected))
        for path, data in expected.items():
            if not path.endswith(".m3u8"):
                assert sha(written[path]) == sha(data), path
        r = subprocess.run(["ffprobe", "-v", "error", "-show_streams", "-of", "json", mp4], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        kinds = sorted(s["codec_type"] for s in json.loads(r.stdout)["streams"])
        assert kinds == ["audio", "audio", "video"], kinds
        # Its offline URL serves the same files, with the origin up and never asked.
        fo.reset()
        base = "/_eddy/offline/%s/" % j["id"]
        for path, data in expected.items():
            r = e.get(base + path)
            assert r.status == 200 and r.h("Cache-Status") == "eddy; hit; detail=offline", (path, r.status)
            assert sha(r.body) == sha(written[path]), path
        r = e.get(base + "v1/seg1.m4s", headers={"Range": "bytes=10-19"})
        assert r.status == 206 and r.body == expected["v1/seg1.m4s"][10:20], r.status
        assert origin_paths(fo) == {}, origin_paths(fo)
        assert e.get(base + "v2/seg0.m4s").status == 404  # not downloaded
        assert e.get("/_eddy/offline/nope/master.m3u8").status == 404
        assert e.get(base + "master.m3u8", method="POST").status == 405
    finally:
        e.stop()
