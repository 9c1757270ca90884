"""HLS through eddy: streams made here with ffmpeg, read with ffmpeg through eddy; every playlist
of the shared corpus rewritten without touching a non-URI byte; live freshness; prefetch."""
import os, re, shutil, subprocess, threading, time
from urllib.parse import urljoin
import pytest
from conftest import MiB, ROOT, Eddy, ff, request, sha, streams, wait_for  # noqa: F401 (streams: a fixture)

# The shared corpus: $EDDY_HLS_CORPUS, or shared/ beside the checkout (where the workplace and CI put it).
CORPUS = next((p for p in [os.environ.get("EDDY_HLS_CORPUS", ""), os.path.join(ROOT, "..", "shared", "corpus", "hls-playlists"),
                           os.path.join(ROOT, "shared", "corpus", "hls-playlists"), "/work/shared/corpus/hls-playlists"]
               if p and os.path.isdir(p)), os.path.join(ROOT, "..", "shared", "corpus", "hls-playlists"))


def play(eddy, path, timeout=120):
    return subprocess.run(["ffmpeg", "-v", "error", "-i", "http://127.0.0.1:%d%s" % (eddy.port, path),
                           "-map", "0", "-c", "copy", "-f", "null", "-"], capture_output=True, text=True, timeout=timeout)


def play_through_eddy(eddy, ng, path):
    """Plays `path` with ffmpeg through eddy; asserts success and that every origin request came from eddy."""
    start = len(ng.requests())
    r = play(eddy, path)
    assert r.returncode == 0, r.stderr
    assert_all_through_eddy(ng, start)


def eddy_requests(eddy):
    return [path for path, _ in eddy.answered()]


def assert_all_through_eddy(ng, since):
    reqs = ng.requests()[since:]
    assert reqs, "the origin saw no request"
    assert all("eddy" in via for _, _, via, _ in reqs), [r for r in reqs if "eddy" not in r[2]][:3]


def test_multivariant_fmp4_with_audio_and_subtitles(eddy, origins, streams):
    ng = origins[0]
    start = len(ng.requests())
    r = play(eddy, "/n/hls/fmp4/master.m3u8")
    assert r.returncode == 0, r.stderr
    # ffmpeg 5.1's HLS demuxer skips subtitle renditions, so read the one the rewritten master names.
    master = eddy.get("/n/hls/fmp4/master.m3u8").body.decode()
    sub = re.search(r'TYPE=SUBTITLES[^\n]*URI="([^"]+)"', master).group(1)
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", "http://127.0.0.1:%d%s" % (eddy.port, sub), "-map", "0", "-c", "copy",
                        "-f", "webvtt", "-"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "World" in r.stdout, r.stderr
    assert_all_through_eddy(ng, start)
    seen = eddy_requests(eddy)
    for p in ["/n/hls/fmp4/master.m3u8", "/n/hls/fmp4/en/index.m3u8", "/n/hls/fmp4/fr/index.m3u8", "/n/hls/fmp4/sub/index.m3u8",
              "/n/hls/fmp4/hi/index.m3u8", "/n/hls/fmp4/sub/seg0.vtt"]:
        assert p in seen, p
    assert any(p.endswith(".m4s") for p in seen) and any("init" in p for p in seen)
    before = ng.bytes_sent()
    r = play(eddy, "/n/hls/fmp4/master.m3u8")
    assert r.returncode == 0, r.stderr
    assert play(eddy, sub).returncode == 0
    assert ng.bytes_sent() == before, "a second play of a VOD stream costs the origin nothing"


def test_master_playlist_uris_are_rewritten_in_the_request_form(eddy, origins, streams):
    text = eddy.get("/n/hls/fmp4/master.m3u8").body.decode()
    assert 'URI="/n/hls/fmp4/en/index.m3u8"' in text and "\n/n/hls/fmp4/hi/index.m3u8\n" in text
    original = open(os.path.join(streams, "fmp4", "master.m3u8")).read()
    assert re.sub(r"/n/hls/fmp4/", "", text) == original


def test_aes128_ts_keys_proxied_not_cached(eddy, origins, streams):
    ng = origins[0]
    play_through_eddy(eddy, ng, "/n/hls/aes/index.m3u8")
    mid = len(ng.requests())
    r = play(eddy, "/n/hls/aes/index.m3u8")
    assert r.returncode == 0, r.stderr
    again = ng.requests()[mid:]
    assert again and all(uri.endswith("key.bin") for _, _, _, uri in again), "only the key goes to the origin again"
    log = open(eddy.errpath).read() + eddy.access_log()
    assert bytes(range(16)).hex() not in log


def test_aes128_keys_cached_with_cache_keys(origins, streams, tmp_path):
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo, extra=["--cache-keys"])
    try:
        assert play(e, "/n/hls/aes/index.m3u8").returncode == 0
        before = ng.bytes_sent()
        assert play(e, "/n/hls/aes/index.m3u8").returncode == 0
        assert ng.bytes_sent() == before
    finally:
        e.stop()


def test_single_file_byteranges_share_one_resource(eddy, origins, streams):
    ng = origins[0]
    play_through_eddy(eddy, ng, "/n/hls/single/index.m3u8")
    before = ng.bytes_sent()
    assert play(eddy, "/n/hls/single/index.m3u8").returncode == 0
    assert ng.bytes_sent() == before
    size = os.path.getsize(os.path.join(streams, "single", "index.ts"))
    assert eddy.metrics()["eddy_cache_bytes"] <= size + 64 * 1024, "one cached resource for all sub-ranges"


def test_prefetch_brings_the_next_segments(eddy, origins, streams):
    ng = origins[0]
    start = len(ng.requests())
    assert eddy.get("/n/hls/aes/index.m3u8").status == 200
    r = eddy.get("/n/hls/aes/seg0.ts")
    assert r.status == 200

    def prefetched():  # two prefetches counted, sent by the origin, and no fill left in flight
        sent = {u for _, _, _, u in ng.requests()[start:]}
        return eddy.metrics()["eddy_hls_prefetches_total"] >= 2 and {"/hls/aes/seg1.ts", "/hls/aes/seg2.ts"} <= sent \
            and not [f for f in eddy.fills() if "/hls/aes/" in f["url"]]
    wait_for(prefetched, 5, what="seg1 and seg2 prefetched")
    for n in (1, 2):
        r = eddy.get("/n/hls/aes/seg%d.ts" % n)
        assert r.status == 200 and r.body == open(os.path.join(streams, "aes", "seg%d.ts" % n), "rb").read()
        assert r.h("cache-status").startswith("eddy; hit"), (n, r.h("cache-status"))
        fetched = [u for _, _, _, u in ng.requests()[start:] if u == "/hls/aes/seg%d.ts" % n]
        assert len(fetched) == 1, "prefetched once, then served from the cache"


def test_live_playlist_is_never_older_than_half_its_target(eddy, origins, streams):
    ng = origins[0]
    d = os.path.join(ng.www, "hls", "live")
    os.makedirs(d, exist_ok=True)
    versions = []  # (time written, media sequence)

    def write(seq):
        # nginx's ETag is mtime (in seconds) and size: a comment of growing length keeps two
        # versions written within one second apart.
        lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:%d" % seq, "#" + "v" * seq]
        for i in range(seq, seq + 3):
            lines += ["#EXTINF:2.0,", "seg%d.ts" % (i % 5)]
        tmp = os.path.join(d, "index.m3u8.tmp")
        open(tmp, "w").write("\n".join(lines) + "\n")
        os.replace(tmp, os.path.join(d, "index.m3u8"))
        versions.append((time.monotonic(), seq))

    write(0)
    stop = threading.Event()

    def advance():
        seq = 0
        while not stop.wait(0.7):
            seq += 1
            write(seq)

    t = threading.Thread(target=advance)
    t.start()
    try:
        checked = 0
        end = time.monotonic() + 6
        while time.monotonic() < end:
            t_req = time.monotonic()
            r = eddy.get("/n/hls/live/index.m3u8")
            assert r.status == 200
            seq = int(re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", r.body.decode()).group(1))
            # The version served must still have been current at t_req - target/2 (1 s).
            replaced = [w for w, s in versions if s == seq + 1]
            if replaced:
                assert replaced[0] >= t_req - 1.0 - 0.15, ("served a playlist older than half the target duration",
                                                           seq, r.h("cache-status"), [(round(w - t_req, 2), q) for w, q in versions[-4:]])
            checked += 1
            time.sleep(0.2)  # the subject: a player polling the live playlist
        assert checked >= 15
    finally:
        stop.set()
        t.join()


def test_ll_hls_blocking_reload_is_a_resource_of_its_own(eddy, origins, streams):
    ng = origins[0]
    start = len(ng.requests())
    r = eddy.get("/n/hls/aes/index.m3u8?x=1&_HLS_part=0&_HLS_msn=3")
    assert r.status == 200 and "fwd=uri-miss" in r.h("cache-status"), r.h("cache-status")
    assert "\n/n/hls/aes/seg0.ts\n" in r.body.decode(), "rewritten"
    # The same directives in another order: the same key, answered from the cache.
    r = eddy.get("/n/hls/aes/index.m3u8?_HLS_msn=3&x=1&_HLS_part=0")
    assert r.status == 200 and r.h("cache-status").startswith("eddy; hit"), r.h("cache-status")
    asked = [u for _, _, _, u in ng.requests()[start:] if u.startswith("/hls/aes/index.m3u8")]
    assert asked == ["/hls/aes/index.m3u8?x=1&_HLS_msn=3&_HLS_part=0"], asked


def test_corpus_playlists_keep_every_non_uri_byte(eddy, origins):
    _, fo, _ = origins
    d = os.path.join(fo.www, "corpus")
    os.makedirs(d, exist_ok=True)
    names = sorted(n for n in os.listdir(CORPUS) if n.endswith(".m3u8"))
    assert len(names) > 30
    attr = re.compile(r'(?:^|,)(URI|SERVER-URI|X-ASSET-URI|X-ASSET-LIST)="([^"]*)"')
    origin_base = "http://127.0.0.1:%d/corpus/" % fo.port
    for n in names:
        shutil.copy(os.path.join(CORPUS, n), os.path.join(d, n))
        original = open(os.path.join(CORPUS, n), "rb").read()
        r = eddy.get("/f/corpus/" + n)
        assert r.status == 200, n
        got = r.body
        a_lines, b_lines = original.decode().splitlines(keepends=True), got.decode().splitlines(keepends=True)
        assert len(a_lines) == len(b_lines), n
        for a, b in zip(a_lines, b_lines):
            a_uris = [a.strip()] if a.strip() and not a.startswith("#") else [m.group(2) for m in attr.finditer(a)] if a.startswith("#EXT-X-") else []
            b_uris = [b.strip()] if b.strip() and not b.startswith("#") else [m.group(2) for m in attr.finditer(b)] if b.startswith("#EXT-X-") else []
            assert len(a_uris) == len(b_uris), (n, a, b)
            restored = b
            for ua, ub in zip(a_uris, b_uris):
                if ub != ua:
                    assert ub.startswith("/f/"), (n, ub)
                    # The rewritten URI, routed by eddy, names what the original named.
                    assert "http://127.0.0.1:%d%s" % (fo.port, ub[2:]) == urljoin(origin_base + n, ua).split("#")[0], (n, ua, ub)
                restored = restored.replace(ub, ua, 1)
            assert restored == a, (n, a, b)


def test_mpv_plays_the_multivariant_stream_through_eddy(eddy, origins, streams):
    ng = origins[0]
    start = len(ng.requests())
    r = subprocess.run(["mpv", "--no-config", "--vo=null", "--ao=null", "--untimed", "--ao-null-untimed", "--length=2", "--really-quiet",
                        "http://127.0.0.1:%d/n/hls/fmp4/master.m3u8" % eddy.port], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert_all_through_eddy(ng, start)
    seen = eddy_requests(eddy)
    assert any(p.endswith(".m4s") for p in seen) and "/n/hls/fmp4/master.m3u8" in seen


def test_hostile_playlists_are_served_safely(eddy, origins):
    _, fo, _ = origins
    junk = bytes(range(256)) * 64
    open(os.path.join(fo.www, "junk.m3u8"), "wb").write(junk)
    r = eddy.get("/f/junk.m3u8")
    assert r.status == 200 and r.body == junk, "not UTF-8: served as stored, unrewritten"
    weird = ("#EXTM3U\n#EXT-X-KEY:URI=\"unterminated\n#EXT-X-MAP:URI=\"\"\n" + "a" * 100000 + "\n"
             "#EXT-X-MEDIA:URI=\"skd://key\",NAME=\"x,URI=y\"\ndata:text/plain,hi\n../../../../etc/passwd\n")
    open(os.path.join(fo.www, "weird.m3u8"), "w").write(weird)
    r = eddy.get("/f/weird.m3u8")
    text = r.body.decode()
    assert r.status == 200
    assert '#EXT-X-KEY:URI="unterminated\n' in text and 'URI="skd://key"' in text and "\ndata:text/plain,hi\n" in text
    assert "\n/f/etc/passwd\n" in text, "dot segments resolve inside the origin, never above it"
    assert eddy.proc.poll() is None


def test_a_playlist_hit_logs_no_origin_bytes(eddy, origins):
    """The access log's origin bytes are those the origin sent for that response: none for a
    playlist answered from the cache (it logged the playlist's length; issue 29)."""
    ng = origins[0]
    name = "logged-%d.m3u8" % os.getpid()
    text = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:2,\nseg0.ts\n#EXT-X-ENDLIST\n"
    open(os.path.join(ng.www, name), "w").write(text)
    for _ in range(2):
        assert eddy.get("/n/" + name).status == 200
    lines = [l for l in eddy.access_log().splitlines() if name in l]
    assert len(lines) == 2, lines
    miss, hit = (l.rsplit(" ", 4)[1:4] for l in lines)  # cache status, bytes from cache, from origin
    assert miss[0] != "HIT" and miss[2] == str(len(text)), lines
    assert hit == ["HIT", str(len(text)), "0"], lines


def test_a_live_playlist_with_validators_only_costs_one_origin_request_per_half_target(eddy, origins):
    """A packager's live playlist behind a static server: ETag and Last-Modified, no lifetime. Its
    heuristic freshness (10% of a second-old file's age) is nothing, so every viewer's reload was a
    revalidation; the live rule is its lifetime now (issue 62, third part). 40 viewers poll it every
    0.1 s for 3 s while it changes every 0.7 s: the origin is asked at most once per half target
    duration (1 s), and no viewer gets a version replaced more than that long before it asked."""
    _, fo, _ = origins
    d = os.path.join(fo.www, "live-v")
    os.makedirs(d, exist_ok=True)
    versions = []

    def write(seq):
        lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:%d" % seq]
        for i in range(seq, seq + 3):
            lines += ["#EXTINF:2.0,", "seg%d.ts" % i]
        tmp = os.path.join(d, "index.m3u8.tmp")
        open(tmp, "w").write("\n".join(lines) + "\n")
        os.replace(tmp, os.path.join(d, "index.m3u8"))
        versions.append((time.monotonic(), seq))

    write(0)
    fo.reset()
    stop = threading.Event()
    stale, served = [], []

    def advance():
        seq = 0
        while not stop.wait(0.7):
            seq += 1
            write(seq)

    def viewer():
        while not stop.is_set():
            t_req = time.monotonic()
            r = eddy.get("/f/live-v/index.m3u8?cc=none")
            assert r.status == 200
            seq = int(re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", r.body.decode()).group(1))
            replaced = [w for w, s in list(versions) if s == seq + 1]
            if replaced and replaced[0] < t_req - 1.0 - 0.15:
                stale.append((seq, round(t_req - replaced[0], 2)))
            served.append(seq)
            stop.wait(0.1)

    threads = [threading.Thread(target=advance)] + [threading.Thread(target=viewer) for _ in range(40)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    time.sleep(3.0)  # the subject: viewers polling for a while
    stop.set()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - t0
    asked = fo.stats()["paths"].get("/live-v/index.m3u8", {}).get("requests", 0)
    assert len(served) > 300, len(served)
    assert asked <= elapsed / 1.0 + 2, (asked, len(served), elapsed)
    assert not stale, stale[:5]
    assert max(served) >= 2, "the viewers saw the playlist move"
    print("origin asked %d times for %d viewer requests in %.1f s" % (asked, len(served), elapsed))
