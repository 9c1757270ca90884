#!/usr/bin/env python3
"""Downloads at scale (issue 59): a synthetic asset of 8 renditions (4 video variants, 2 audio, 2
subtitles) with N segments of 188 bytes each, from nginx on loopback, so that the engine's own cost
per unit shows, not the origin's or the disk's. eddy downloads it whole through the admin API
(every variant, all audio, all subtitles) while `GET /api/downloads/{id}` is polled every 100 ms;
the same segment URLs go to `wget -i` (sequential) and `aria2c -j 8`, alternately in one run.
Reported: wall seconds, eddy's CPU seconds and peak RSS (from /proc), and the slowest admin GET.
Every process started here is stopped by its pid; every run is bounded in time."""
import argparse, datetime, os, shutil, signal, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import free_port, wait_port  # noqa: E402
from results import write_section  # noqa: E402
from downloads import admin  # noqa: E402

RENDITIONS = ["v0", "v1", "v2", "v3", "a0", "a1", "s0", "s1"]


def make_asset(d, n):
    """The asset with `n` segments per rendition, made once and kept under `d`."""
    if os.path.exists(os.path.join(d, "master.m3u8")):
        return
    tmp = d + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    for r in RENDITIONS:
        os.makedirs(os.path.join(tmp, r))
        ext = "vtt" if r.startswith("s") else "ts"
        lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-MEDIA-SEQUENCE:0"]
        for i in range(n):
            name = "s%d.%s" % (i, ext)
            with open(os.path.join(tmp, r, name), "wb") as f:
                f.write((b"%s %s %d " % (r.encode(), ext.encode(), i)).ljust(188, b"."))
            lines += ["#EXTINF:2.000,", name]
        lines.append("#EXT-X-ENDLIST")
        open(os.path.join(tmp, r, "index.m3u8"), "w").write("\n".join(lines) + "\n")
    master = ["#EXTM3U", "#EXT-X-VERSION:3",
              '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="a0/index.m3u8"',
              '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aud",NAME="French",LANGUAGE="fr",AUTOSELECT=YES,URI="a1/index.m3u8"',
              '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="sub",NAME="English",LANGUAGE="en",AUTOSELECT=YES,URI="s0/index.m3u8"',
              '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="sub",NAME="French",LANGUAGE="fr",AUTOSELECT=YES,URI="s1/index.m3u8"']
    for i, (bw, res) in enumerate([(4000000, "1280x720"), (2000000, "960x540"), (1000000, "640x360"), (500000, "320x180")]):
        master += ['#EXT-X-STREAM-INF:BANDWIDTH=%d,RESOLUTION=%s,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aud",SUBTITLES="sub"' % (bw, res),
                   "v%d/index.m3u8" % i]
    open(os.path.join(tmp, "master.m3u8"), "w").write("\n".join(master) + "\n")
    os.rename(tmp, d)


class Origin:
    """nginx on loopback, as fast as it goes."""

    def __init__(self, base, root):
        self.dir = os.path.join(base, "origin")
        os.makedirs(os.path.join(self.dir, "tmp"))
        self.port = free_port()
        conf = os.path.join(self.dir, "nginx.conf")
        t = self.dir + "/tmp"
        open(conf, "w").write(f"""daemon off; user root; worker_processes 2; worker_rlimit_nofile 65536; pid {self.dir}/pid; error_log {self.dir}/error.log;
events {{ worker_connections 4096; }}
http {{
  types {{ application/vnd.apple.mpegurl m3u8; video/mp2t ts; text/vtt vtt; }}
  access_log off;
  client_body_temp_path {t}; proxy_temp_path {t}; fastcgi_temp_path {t}; uwsgi_temp_path {t}; scgi_temp_path {t};
  server {{ listen 127.0.0.1:{self.port}; keepalive_requests 1000000; root {root}; }}
}}""")
        self.proc = subprocess.Popen(["nginx", "-c", conf, "-p", self.dir], stderr=subprocess.DEVNULL)
        wait_port(self.port)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


def cpu_seconds(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def rss_peak(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def run_eddy(binary, work, url, units):
    port, adm = free_port(), free_port()
    proc = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:%d" % port, "--admin", "127.0.0.1:%d" % adm,
                             "--cache-dir", os.path.join(work, "cache"), "--allow-host", "127.0.0.1:*", "--max-size", "0",
                             "--access-log", "off", "--log-level", "error"])
    try:
        wait_port(port)
        wait_port(adm)
        cpu0 = cpu_seconds(proc.pid)
        t0 = time.monotonic()
        spec = {"url": url, "variant": "peakBitRate > 0", "audio": ["all"], "subtitles": ["all"],
                "auxiliary": [{"variant_index": i, "audio": ["all"], "subtitles": ["all"]} for i in range(4)]}
        st, j = admin(adm, "POST", "/api/downloads", spec)
        assert st == 201, (st, j)
        slowest = 0.0
        while True:
            g0 = time.monotonic()
            st, j = admin(adm, "GET", "/api/downloads/" + j["id"])
            took = time.monotonic() - g0
            slowest = max(slowest, took)
            if took > 0.05 and os.environ.get("SCALE_DEBUG"):
                print("  slow GET at %.2f s: %.0f ms, state %s, segments %s" % (g0 - t0, took * 1000, j.get("state"), j.get("segments_done")), flush=True)
            if j["state"] == "completed":
                break
            assert j["state"] in ("queued", "running", "waiting-for-origin"), j
            assert time.monotonic() - t0 < 900, j
            time.sleep(0.1)
        wall = time.monotonic() - t0
        done = sum(r["segments_done"] for r in j["renditions"])
        assert done == units and len(j["renditions"]) == len(RENDITIONS), (done, units, len(j["renditions"]))
        return wall, cpu_seconds(proc.pid) - cpu0, rss_peak(proc.pid), slowest
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)


def run_tool(argv, work, units):
    t0 = time.monotonic()
    r = subprocess.run(argv, cwd=work, capture_output=True, text=True, timeout=1800)
    wall = time.monotonic() - t0
    assert r.returncode == 0, r.stderr[-2000:]
    got = sum(len(fs) for _, _, fs in os.walk(work)) - 1  # less the URL list
    assert got == units, (got, units)
    return wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eddy", required=True)
    ap.add_argument("--segments", default="900,1125,1800,3600,4500,7200", help="segments per rendition, comma-separated")
    ap.add_argument("--peers", default="wget,aria2c", help="peers to run beside eddy (comma-separated, or none)")
    a = ap.parse_args()
    root = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "eddy-bench")
    base = tempfile.mkdtemp(prefix="eddy-bench-scale-")
    www = os.path.join(base, "www")
    os.makedirs(www)
    origin = Origin(base, www)
    rows = []
    try:
        for n in [int(s) for s in a.segments.split(",")]:
            d = os.path.join(root, "scale-8x%d-v1" % n)
            make_asset(d, n)
            os.symlink(d, os.path.join(www, "s%d" % n))
            url = "http://127.0.0.1:%d/s%d/master.m3u8" % (origin.port, n)
            units = n * len(RENDITIONS)
            work = os.path.join(base, "eddy-%d" % n)
            os.makedirs(work)
            wall, cpu, rss, slowest = run_eddy(a.eddy, work, url, units)
            shutil.rmtree(work, ignore_errors=True)
            row = {"segments": units, "eddy": wall, "cpu": cpu, "rss": rss, "slowest": slowest}
            print("%6d segments: eddy %.2f s, CPU %.2f s, peak RSS %.0f MiB, slowest admin GET %.0f ms"
                  % (units, wall, cpu, rss / 2**20, slowest * 1000), flush=True)
            urls = ["http://127.0.0.1:%d/s%d/%s/s%d.%s" % (origin.port, n, r, i, "vtt" if r.startswith("s") else "ts")
                    for r in RENDITIONS for i in range(n)]
            peers = {"wget": ["wget", "-q", "-i", "urls"],
                     "aria2c": ["aria2c", "-q", "-j", "8", "--auto-file-renaming=false", "--allow-overwrite=true",
                                "--force-sequential=false", "-i", "urls"]}
            for name in [p for p in a.peers.split(",") if p in peers]:
                work = os.path.join(base, "%s-%d" % (name, n))
                os.makedirs(work)
                # Each rendition's files share names: the peers write each into its own directory.
                lines = []
                for u in urls:
                    lines += [u, "  dir=" + u.split("/")[-2]] if name == "aria2c" else [u]
                open(os.path.join(work, "urls"), "w").write("\n".join(lines) + "\n")
                argv = peers[name] + (["-x", "1"] if name == "aria2c" else ["-x"])
                row[name] = run_tool(argv, work, units)
                print("%6d segments: %s %.2f s (eddy / %s %.2f)" % (units, name, row[name], name, wall / row[name]), flush=True)
                shutil.rmtree(work, ignore_errors=True)
            rows.append(row)
    finally:
        origin.stop()
        shutil.rmtree(base, ignore_errors=True)
    lines = ["| segments | eddy wall (s) | eddy CPU (s) | peak RSS (MiB) | slowest admin GET (ms) | wget -i (s) | aria2c -j 8 (s) |",
             "|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append("| %d | %.2f | %.2f | %.0f | %.0f | %s | %s |" % (
            r["segments"], r["eddy"], r["cpu"], r["rss"] / 2**20, r["slowest"] * 1000,
            "%.2f" % r["wget"] if "wget" in r else "-", "%.2f" % r["aria2c"] if "aria2c" in r else "-"))
    by = {r["segments"]: r for r in rows}
    a, b = (by[9000], by[36000]) if 9000 in by and 36000 in by else (rows[0], rows[-1])
    if a is not b:
        lines.append("\nFrom %d to %d segments: %.1f× the work cost %.2f× the time and %.2f× the CPU." % (
            a["segments"], b["segments"], b["segments"] / a["segments"], b["eddy"] / a["eddy"], b["cpu"] / a["cpu"]))
    table = "\n".join(lines)
    print(table)
    head = ("One run of `scripts/bench downloads` (its scale row, `bench/scale.py`) on %s, %d cores, %s. The asset: 8 "
            "renditions (4 video variants, 2 audio, 2 subtitles) of N segments of 188 bytes each, from nginx on loopback; "
            "eddy downloads every rendition through the admin API while `GET /api/downloads/{id}` is polled every 100 ms; "
            "wget (`-i`, sequential) and aria2c (`-j 8`) fetch the same segment URLs.\n\n"
            % (os.uname().nodename, os.cpu_count(), datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")))
    write_section("scale", "## Downloads at scale: eddy vs wget and aria2c (issue 59)\n\n" + head + table + "\n")


if __name__ == "__main__":
    main()
