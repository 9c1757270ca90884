#!/usr/bin/env python3
"""Offline HLS downloads: eddy (through its admin API) vs `ffmpeg -i URL -map 0 -c copy` and
`yt-dlp -N 8`, alternately in one run, against one nginx origin that adds 40 ms to every response
(the echo module's echo_sleep) and limits each connection to 2 MiB/s (limit_rate), as a CDN edge
far away does.

The asset is ffmpeg-made fMP4 HLS: one 1280x720 video variant (about 6 Mbit/s, 2 s segments)
and one stereo audio rendition, so all three tools download the same bytes: ffmpeg's `-map 0`
reads both, yt-dlp gets `-f "bv*,ba"` (both formats, no merge), eddy's default selection takes
the variant and its DEFAULT audio. Each run starts from nothing (a fresh eddy cache, a fresh
output directory); the origin's access log gives the bytes each run fetched. Every process
started here is stopped by its pid; every run is bounded in time."""
import argparse, datetime, json, os, shutil, signal, statistics, subprocess, sys, tempfile, time
import http.client

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import free_port, wait_port  # noqa: E402
from results import write_section  # noqa: E402

MiB = 1 << 20
ECHO = "/usr/lib/nginx/modules/ngx_http_echo_module.so"
SECONDS = 60


def ff(*args):
    r = subprocess.run(["ffmpeg", "-v", "error", "-y", *args], capture_output=True, text=True, timeout=900)
    if r.returncode:
        raise SystemExit("ffmpeg failed: " + r.stderr)


def make_asset(d):
    """The asset, made once and kept (keyed by its parameters) because encoding takes a minute."""
    if os.path.exists(os.path.join(d, "master.m3u8")):
        return
    tmp = d + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "v0"))
    os.makedirs(os.path.join(tmp, "a0"))
    hls = ["-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
           "-hls_fmp4_init_filename", "init.mp4"]
    # Noise keeps the encoder at its bit rate, so segments have a realistic size.
    ff("-f", "lavfi", "-i", "testsrc2=duration=%d:size=1280x720:rate=25" % SECONDS, "-vf", "noise=alls=40:allf=t",
       "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-b:v", "6M", "-maxrate", "6M", "-bufsize", "2M",
       *hls, "-hls_segment_filename", os.path.join(tmp, "v0", "seg%d.m4s"), os.path.join(tmp, "v0", "index.m3u8"))
    ff("-f", "lavfi", "-i", "sine=frequency=440:duration=%d" % SECONDS, "-c:a", "aac", "-b:a", "128k", "-ac", "2",
       *hls, "-hls_segment_filename", os.path.join(tmp, "a0", "seg%d.m4s"), os.path.join(tmp, "a0", "index.m3u8"))
    open(os.path.join(tmp, "master.m3u8"), "w").write("\n".join([
        "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS",
        '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="a0/index.m3u8"',
        '#EXT-X-STREAM-INF:BANDWIDTH=6500000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=25,AUDIO="aud"',
        "v0/index.m3u8", ""]))
    os.rename(tmp, d)


def asset_bytes(d):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)


class Origin:
    """nginx: 40 ms before every response, then the file at 2 MiB/s per connection."""

    def __init__(self, base, root):
        self.dir = os.path.join(base, "origin")
        os.makedirs(os.path.join(self.dir, "tmp"))
        self.port = free_port()
        self.log = os.path.join(self.dir, "access.log")
        conf = os.path.join(self.dir, "nginx.conf")
        t = self.dir + "/tmp"
        open(conf, "w").write(f"""load_module {ECHO};
daemon off; user root; worker_processes 1; pid {self.dir}/pid; error_log {self.dir}/error.log;
events {{ worker_connections 4096; }}
http {{
  types {{ application/vnd.apple.mpegurl m3u8; video/iso.segment m4s; video/mp4 mp4; }}
  log_format b '$request_uri $status $body_bytes_sent $connection'; access_log {self.log} b;
  client_body_temp_path {t}; proxy_temp_path {t}; fastcgi_temp_path {t}; uwsgi_temp_path {t}; scgi_temp_path {t};
  server {{ listen 127.0.0.1:{self.port}; keepalive_requests 100000;
    location / {{ echo_sleep 0.04; echo_exec @file; }}
    location @file {{ root {root}; limit_rate 2m; }}
  }}
}}""")
        self.proc = subprocess.Popen(["nginx", "-c", conf, "-p", self.dir], stderr=subprocess.DEVNULL)
        wait_port(self.port)

    def mark(self):
        return os.path.getsize(self.log) if os.path.exists(self.log) else 0

    def since(self, mark):
        """(bytes sent, requests, connections, non-2xx) in the log after `mark`."""
        with open(self.log, "rb") as f:
            f.seek(mark)
            lines = [l.split() for l in f.read().decode().splitlines()]
        return (sum(int(p[2]) for p in lines), len(lines), len({p[3] for p in lines}),
                sum(1 for p in lines if not p[1].startswith("2")))

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


def admin(port, method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"Content-Type": "application/json"} if body is not None else {})
    r = c.getresponse()
    data = json.loads(r.read() or b"null")
    c.close()
    return r.status, data


def download(adm, url, limit=900):
    """`POST /api/downloads` of `url`, then its server-sent events (`GET /api/downloads/{id}/events`,
    as a script or the dashboard learns of the end, which eddy sends the moment the job completes)
    until `completed`: (wall seconds, the job)."""
    t0 = time.monotonic()
    st, j = admin(adm, "POST", "/api/downloads", {"url": url})
    assert st == 201, (st, j)
    c = http.client.HTTPConnection("127.0.0.1", adm, timeout=limit)
    c.request("GET", "/api/downloads/%s/events" % j["id"])
    r = c.getresponse()
    assert r.status == 200, r.status
    try:
        while True:
            line = r.readline()
            assert line, ("the event stream ended before the job completed", j)
            if line.startswith(b"data: "):
                j = json.loads(line[6:])
                if j["state"] == "completed":
                    return time.monotonic() - t0, j
                assert j["state"] in ("queued", "running", "waiting-for-origin"), j
    finally:
        c.close()


def run_eddy(binary, work, url, expected):
    port, adm = free_port(), free_port()
    proc = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:%d" % port, "--admin", "127.0.0.1:%d" % adm,
                             "--cache-dir", os.path.join(work, "cache"), "--allow-host", "127.0.0.1:*",
                             "--access-log", "off", "--log-level", "error"])
    try:
        wait_port(port)
        wait_port(adm)
        wall, j = download(adm, url)
        assert j["bytes_exact"] and j["bytes_done"] == expected, (j["bytes_done"], expected)
        return wall
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)


def run_ffmpeg(work, url, expected):
    out = os.path.join(work, "out.mkv")
    t0 = time.monotonic()
    ff("-i", url, "-map", "0", "-c", "copy", out)
    wall = time.monotonic() - t0
    assert os.path.getsize(out) > expected * 0.9, os.path.getsize(out)
    return wall


def run_ytdlp(work, url, expected):
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "yt_dlp", "-N", "8", "-f", "bv*,ba", "--no-progress", "-q", "--no-cache-dir",
                        "-o", os.path.join(work, "%(format_id)s.%(ext)s"), url], capture_output=True, text=True, timeout=900)
    wall = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    got = sum(os.path.getsize(os.path.join(work, f)) for f in os.listdir(work))
    assert got > expected * 0.9, got
    return wall


def main():
    global SECONDS
    ap = argparse.ArgumentParser()
    ap.add_argument("--eddy", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="one round")
    ap.add_argument("--duration", type=int, default=SECONDS, help="seconds of media (10: an asset of about 8 MB)")
    ap.add_argument("--section", default="downloads", help="the RESULTS.md section to write")
    a = ap.parse_args()
    SECONDS = a.duration
    if a.quick:
        a.rounds = 1
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "eddy-bench", "dl-720p-%ds-v1" % SECONDS)
    os.makedirs(os.path.dirname(cache), exist_ok=True)
    make_asset(cache)
    base = tempfile.mkdtemp(prefix="eddy-bench-dl-")
    www = os.path.join(base, "www")
    os.makedirs(www)
    os.symlink(cache, os.path.join(www, "dl"))
    origin = Origin(base, www)
    url = "http://127.0.0.1:%d/dl/master.m3u8" % origin.port
    expected = asset_bytes(cache)
    tools = [("eddy", lambda w: run_eddy(a.eddy, w, url, expected)), ("ffmpeg", lambda w: run_ffmpeg(w, url, expected)),
             ("yt-dlp", lambda w: run_ytdlp(w, url, expected))]
    times = {n: [] for n, _ in tools}
    fetched = {n: [] for n, _ in tools}
    try:
        for r in range(a.rounds):
            order = tools[r % 3:] + tools[:r % 3]  # each tool goes first once in three rounds
            for name, run in order:
                work = os.path.join(base, "run-%s-%d" % (name, r))
                os.makedirs(work)
                m = origin.mark()
                t = run(work)
                time.sleep(0.3)  # the log line of the last response
                sent, reqs, conns, bad = origin.since(m)
                times[name].append(t)
                fetched[name].append((sent, reqs, conns, bad))
                print("round %d %-7s %6.2f s  %6.1f MB/s  origin: %.1f MB in %d requests on %d connections, %d non-2xx"
                      % (r, name, t, expected / t / 1e6, sent / 1e6, reqs, conns, bad), flush=True)
                shutil.rmtree(work, ignore_errors=True)
    finally:
        origin.stop()
        shutil.rmtree(base, ignore_errors=True)
    med = {n: statistics.median(v) for n, v in times.items()}
    lines = ["| tool | wall time per round (s) | median (s) | MB/s | origin MB / requests / connections (last round) | eddy / tool |",
             "|---|---|---:|---:|---|---:|"]
    for n, _ in tools:
        s, q, c, _ = fetched[n][-1]
        lines.append("| %s | %s | %.2f | %.1f | %.1f / %d / %d | %.2f |" % (
            n, ", ".join("%.2f" % t for t in times[n]), med[n], expected / med[n] / 1e6, s / 1e6, q, c, med["eddy"] / med[n]))
    table = "\n".join(lines)
    print(table)
    head = ("One run of `scripts/bench downloads` on %s, %d cores, %s, %d rounds, the three tools alternately (the "
            "first tool rotates each round). Asset: %.1f MB of fMP4 HLS (%d s of 1280x720 video at ~6 Mbit/s in 2 s "
            "segments, plus stereo AAC), from nginx adding 40 ms to every response and sending at most 2 MiB/s per "
            "connection. eddy: a fresh cache each round, `POST /api/downloads`, then its event stream until `completed` (download_concurrency 8, "
            "the default); ffmpeg: `ffmpeg -i URL -map 0 -c copy out.mkv`; yt-dlp %s: `yt-dlp -N 8 -f 'bv*,ba'`.\n\n"
            % (os.uname().nodename, os.cpu_count(), datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               a.rounds, expected / 1e6, SECONDS, ytdlp_version()))
    write_section(a.section, "## Downloads: eddy vs ffmpeg and yt-dlp%s\n\n" % ("" if a.section == "downloads" else " (%d s asset)" % SECONDS)
                  + head + table + "\n")


def ytdlp_version():
    return subprocess.run([sys.executable, "-m", "yt_dlp", "--version"], capture_output=True, text=True).stdout.strip()


if __name__ == "__main__":
    main()
