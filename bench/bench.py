#!/usr/bin/env python3
"""eddy vs nginx, measured alternately in one run on the same origin and files.

Each pair (eddy, nginx) is measured one after the other, on the same machine, same origin,
same objects; the table reports both and the ratio eddy/nginx. Every process started here is
stopped by its pid; every load is bounded in time."""
import argparse, datetime, json, os, random, re, shutil, signal, socket, subprocess, sys, tempfile, threading, time
import http.client
from cells import alternate, median_row

MiB = 1 << 20


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.001)  # fine-grained: start-up times are compared
    raise TimeoutError(port)


def get(port, path, headers=None, timeout=120):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    t0 = time.monotonic()
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    first = r.read(1)
    ttfb = time.monotonic() - t0
    n = len(first) + len(r.read())
    c.close()
    return r.status, n, ttfb


class Origin:
    def __init__(self, base):
        self.dir = os.path.join(base, "origin")
        self.www = os.path.join(self.dir, "www")
        os.makedirs(os.path.join(self.dir, "tmp"), exist_ok=True)
        os.makedirs(self.www, exist_ok=True)
        self.port = free_port()
        self.log = os.path.join(self.dir, "access.log")
        conf = os.path.join(self.dir, "nginx.conf")
        open(conf, "w").write(f"""
daemon off; user root; worker_processes 1; pid {self.dir}/pid; error_log {self.dir}/error.log;
events {{ worker_connections 4096; }}
http {{
  log_format b '$request_uri $body_bytes_sent'; access_log {self.log} b;
  client_body_temp_path {self.dir}/tmp; proxy_temp_path {self.dir}/tmp; fastcgi_temp_path {self.dir}/tmp;
  uwsgi_temp_path {self.dir}/tmp; scgi_temp_path {self.dir}/tmp;
  server {{ listen 127.0.0.1:{self.port}; root {self.www}; expires 1d;
    location /slow/ {{ alias {self.www}/; limit_rate 5m; }} }}
}}""")
        self.proc = subprocess.Popen(["nginx", "-c", conf, "-p", self.dir], stderr=subprocess.DEVNULL)
        wait_port(self.port)

    def bytes_for(self, marker):
        total = 0
        for line in open(self.log):
            p = line.split()
            if len(p) == 2 and marker in p[0]:
                total += int(p[1])
        return total


class Peer:
    """nginx as a caching proxy: proxy_cache, slice 1m, proxy_cache_lock; one worker, like eddy's one loop."""
    name = "nginx"

    def __init__(self, base, origin, workers=1):
        self.dir = os.path.join(base, "peer")
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(os.path.join(self.dir, "tmp"), exist_ok=True)
        self.port = free_port()
        conf = os.path.join(self.dir, "nginx.conf")
        open(conf, "w").write(f"""
daemon off; user root; worker_processes {workers}; pid {self.dir}/pid; error_log {self.dir}/error.log;
worker_rlimit_nofile 8192;
events {{ worker_connections 4096; }}
http {{
  access_log off; sendfile on; tcp_nopush on;
  client_body_temp_path {self.dir}/tmp; proxy_temp_path {self.dir}/tmp; fastcgi_temp_path {self.dir}/tmp;
  uwsgi_temp_path {self.dir}/tmp; scgi_temp_path {self.dir}/tmp;
  proxy_cache_path {self.dir}/cache levels=1:2 keys_zone=c:64m max_size=20g inactive=1d use_temp_path=off;
  server {{ listen 127.0.0.1:{self.port};
    location / {{
      slice 1m;
      proxy_cache c;
      proxy_cache_key $uri$is_args$args$slice_range;
      proxy_set_header Range $slice_range;
      proxy_http_version 1.1; proxy_set_header Connection "";
      proxy_cache_valid 200 206 1d;
      proxy_cache_lock on;
      proxy_pass http://127.0.0.1:{origin.port};
    }}
  }}
}}""")
        self.conf = conf
        self.start()

    def start(self):
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(["nginx", "-c", self.conf, "-p", self.dir], stderr=subprocess.DEVNULL)
        wait_port(self.port)

    def pids(self):
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout.split()
        return [self.proc.pid] + [int(p) for p in out]

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)


class Eddy:
    name = "eddy"

    def __init__(self, base, origin, binary, workers="1"):
        self.dir = os.path.join(base, "eddy")
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.binary, self.origin, self.workers = binary, origin, workers
        self.start()

    def start(self):
        self.port = free_port()
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen([self.binary, "serve", "--listen", "127.0.0.1:%d" % self.port,
                                      "--cache-dir", self.dir + "/cache", "--max-size", "20G", "--access-log", "off",
                                      "--origin", "http://127.0.0.1:%d" % self.origin.port, "--log-level", "error",
                                      "--workers", self.workers])
        wait_port(self.port)

    def pids(self):
        return [self.proc.pid]

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(60)


def rss(pids, key="VmRSS"):
    total = 0
    for p in pids:
        try:
            for line in open("/proc/%d/status" % p):
                if line.startswith(key + ":"):
                    total += int(line.split()[1]) * 1024
        except FileNotFoundError:
            pass
    return total


def pin(servers, cpus):
    """Holds every thread of each server on `cpus` (threads they start later inherit it)."""
    for s in servers:
        for p in s.pids():
            for t in os.listdir("/proc/%d/task" % p):
                os.sched_setaffinity(int(t), cpus)


def wrk(port, path, conns, seconds, headers=None, script=None, cpu=None, scheme="http"):
    extra = [a for k, v in (headers or {}).items() for a in ("-H", "%s: %s" % (k, v))]
    extra += ["-s", script] if script else []
    where = ["taskset", "-c", str(cpu)] if cpu is not None else []
    out = subprocess.run(where + ["wrk", "-t", "2" if conns >= 2 else "1", "-c", str(conns), "-d", "%ds" % seconds, "--latency"] + extra
                         + ["%s://127.0.0.1:%d%s" % (scheme, port, path)], capture_output=True, text=True, timeout=seconds + 30).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    tr = re.search(r"Transfer/sec:\s+([\d.]+)(\w+)", out)
    mult = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30}[tr.group(2)]
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    return rps, float(tr.group(1)) * mult, int(non2xx.group(1)) if non2xx else 0


def hit_rows(both, a, setup, objects=("o16k.bin", "o1m.bin", "o64m.bin"), cpu=None, ranges=True):
    """Hits of `objects` (16 KiB, 1 MiB and 64 MiB), and 16 KiB ranges of the 64 MiB object stored
    whole and stored in part, each at 8, 64 and 256 connections: each cell `a.rounds` wrk runs of
    each server, alternately, its row their medians (bench/cells.py). `cpu`: the core wrk runs on
    (default: wherever the kernel puts its threads)."""
    rows = []
    for obj in objects:
        for s in both:
            for _ in range(2):
                st, n, _ = get(s.port, "/" + obj)
                assert st == 200, (s.name, obj, st)
        for conns in ([8, 64] if a.quick else [8, 64, 256]):
            got = alternate(both, a.rounds, lambda s: wrk(s.port, "/" + obj, conns, a.seconds, cpu=cpu))
            rows.append(median_row("hit throughput %s, %d conns, %s (MB/s)" % (obj, conns, setup), got, 1, "higher is better"))
    if not ranges:
        return rows
    # What players ask most of a large file: a range. 16 KiB at 20 MiB, of the object stored
    # whole, then of one stored only around it: a player's seek into a large file that plays
    # while it downloads (nginx stores the 1 MiB slice, eddy what it fetched for the range).
    span = {"Range": "bytes=%d-%d" % (20 * MiB, 20 * MiB + 16383)}
    for path, what in [("/o64m.bin", "o64m.bin"), ("/o64m.bin?part=1", "a partly stored o64m.bin")]:
        for s in both:
            for _ in range(2):
                st, n, _ = get(s.port, path, span)
                assert st == 206 and n == 16384, (s.name, path, st, n)
        for conns in ([8, 64] if a.quick else [8, 64, 256]):
            got = alternate(both, a.rounds, lambda s: wrk(s.port, path, conns, a.seconds, span, cpu=cpu))
            rows.append(median_row("16 KiB range hits of %s, %d conns, %s (requests/s)" % (what, conns, setup), got, 0,
                                   "higher is better"))
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eddy", required=True)
    ap.add_argument("--seconds", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3, help="wrk runs of each server per throughput cell (median shown)")
    ap.add_argument("--quick", action="store_true", help="fewer connection counts, one round, no 100k start-up test")
    ap.add_argument("--hits", action="store_true",
                    help="only the whole-machine hit rows (16 KiB, 1 MiB, 64 MiB; issue 58's bar), printed; RESULTS.md untouched")
    a = ap.parse_args()
    if a.quick:
        a.rounds = 1
    base = tempfile.mkdtemp(prefix="eddy-bench-")
    rows = []
    origin = Origin(base)
    rnd = random.Random(1)
    for name, size in [("o16k.bin", 16 << 10), ("o1m.bin", 1 << 20), ("o64m.bin", 64 << 20), ("o256m.bin", 256 << 20), ("o16m.bin", 16 << 20)]:
        with open(os.path.join(origin.www, name), "wb") as f:
            left = size
            while left:
                n = min(left, 8 * MiB)
                f.write(rnd.randbytes(n))
                left -= n
    if a.hits:
        both = [Eddy(base, origin, a.eddy, workers="auto"), Peer(base, origin, workers="auto")]
        try:
            for name, e, n, better, bad in hit_rows(both, a, "whole machine", ranges=False):
                print("%-60s eddy %10.1f  nginx %10.1f  eddy/nginx %.2f  %s" % (name, e, n, e / n, better))
        finally:
            for s in both:
                s.stop()
            origin.proc.terminate()
            origin.proc.wait(10)
            shutil.rmtree(base, ignore_errors=True)
        return
    peer, eddy = Peer(base, origin), Eddy(base, origin, a.eddy)
    both = [eddy, peer]
    try:
        # 1. Hit throughput, per core: one eddy loop against one nginx worker.
        rows += hit_rows(both, a, "1 loop vs 1 worker")
        # 1b. The same small cells with a core each: the server's threads on one core, wrk on another.
        # Above, wrk's two threads share the server's core, and at 8 connections a cell measures
        # how often the kernel wakes one of them there and preempts the server (RESULTS.md,
        # "Issue 33, twelfth part"); a client on another machine wakes nobody on its core.
        # The cores are the first two this bench may use (it may itself run under taskset or a
        # cpuset), and the servers get that whole set back afterwards.
        allowed = os.sched_getaffinity(0)
        if len(allowed) >= 2:
            server_cpu, client_cpu = sorted(allowed)[:2]
            pin(both, {server_cpu})
            rows += hit_rows(both, a, "1 loop vs 1 worker, server on core %d, wrk on core %d" % (server_cpu, client_cpu),
                             objects=("o16k.bin",), cpu=client_cpu)
            pin(both, allowed)
        # 2. Cold far-seek TTFB behind limit_rate 5m.
        for trial in range(3):
            res = {}
            for s in both:
                st, n, t = get(s.port, "/slow/o256m.bin?trial=%d" % trial, {"Range": "bytes=%d-%d" % (200 * MiB + 4321, 200 * MiB + 4321 + 65535)})
                assert st == 206 and n == 65536, (s.name, st, n)
                res[s.name] = t
            rows.append(("cold far-seek TTFB at 200 MiB, trial %d (ms)" % trial, res["eddy"] * 1000, res["nginx"] * 1000, "lower is better", (0, 0)))
        # 3. Origin bytes / object size with 50 cold concurrent clients (origin throttled to 5 MB/s).
        res = {}
        for s in both:
            marker = "o16m.bin?cold=%s" % s.name
            errs = []

            def client():
                st, n, _ = get(s.port, "/slow/" + marker, timeout=120)
                if st != 200 or n != 16 * MiB:
                    errs.append((st, n))
            ts = [threading.Thread(target=client) for _ in range(50)]
            [t.start() for t in ts]
            [t.join(180) for t in ts]
            assert not errs, (s.name, errs[:3])
            time.sleep(0.5)
            res[s.name] = origin.bytes_for(marker) / (16 * MiB)
        rows.append(("origin bytes / object, 50 cold clients of 16 MiB", res["eddy"], res["nginx"], "lower is better", (0, 0)))
        # 4. Peak RSS under 1,000 slow streaming clients of a 64 MiB object.
        res = {}
        for s in both:
            socks = []
            for _ in range(1000):
                c = socket.create_connection(("127.0.0.1", s.port))
                c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
                c.sendall(b"GET /o64m.bin HTTP/1.1\r\nHost: x\r\n\r\n")
                socks.append(c)
            peak = 0
            broken = 0
            for _ in range(20):
                for c in socks:
                    try:
                        if not c.recv(4096):
                            broken += 1
                    except OSError:
                        broken += 1
                peak = max(peak, rss(s.pids()))
                time.sleep(0.05)
            for c in socks:
                c.close()
            res[s.name] = (peak / MiB, broken)
        rows.append(("peak RSS, 1,000 slow clients of 64 MiB (MiB); connections closed early: eddy %d, nginx %d"
                     % (res["eddy"][1], res["nginx"][1]), res["eddy"][0], res["nginx"][0], "lower is better", (0, 0)))
        # 5. Start-up time with 100,000 cached resources.
        if not a.quick:
            for s in both:
                subprocess.run(["wrk", "-t", "2", "-c", "64", "-d", "60s", "-s", os.path.join(os.path.dirname(__file__), "unique.lua"),
                                "http://127.0.0.1:%d/o16k.bin" % s.port], capture_output=True, timeout=120)
            # Dirty pages of the fills written back first: otherwise the first start measured
            # (eddy's, in this order) paid for the other server's writeback (150 ms against 25).
            os.sync()
            times = {s.name: [] for s in both}
            for attempt in range(5):  # the first start follows the fills; then warm restarts
                for s in both:  # alternately, so that the machine's drift falls on both
                    s.stop()
                    t0 = time.monotonic()
                    s.start()
                    while True:  # until a hit is served
                        st, n, _ = get(s.port, "/o16k.bin?u=7")
                        if st == 200:
                            break
                    times[s.name].append((time.monotonic() - t0) * 1000)
            print("start-up times (ms): " + "; ".join("%s %s" % (n, " ".join("%.1f" % x for x in t)) for n, t in times.items()))
            res = {name: (t[0], sorted(t[1:])[len(t[1:]) // 2], sorted(t)[len(t) // 2]) for name, t in times.items()}
            rows.append(("start-up to first hit with ~100k cached resources, first start after the fill (ms)",
                         res["eddy"][0], res["nginx"][0], "lower is better", (0, 0)))
            rows.append(("start-up to first hit with ~100k cached resources, restart, median of 4 (ms)",
                         res["eddy"][1], res["nginx"][1], "lower is better", (0, 0)))
            rows.append(("start-up to first hit with ~100k cached resources, all 5 starts, median (ms)",
                         res["eddy"][2], res["nginx"][2], "lower is better", (0, 0)))
        # 6. Hit throughput on the whole machine: eddy's default loops against worker_processes auto.
        for s in both:
            s.stop()
        both = [Eddy(base, origin, a.eddy, workers="auto"), Peer(base, origin, workers="auto")]
        rows += hit_rows(both, a, "whole machine")
    finally:
        for s in both:
            try:
                s.stop()
            except Exception:
                pass
        origin.proc.terminate()
        origin.proc.wait(10)
        shutil.rmtree(base, ignore_errors=True)
    lines = ["| measure | eddy | nginx | eddy/nginx | |", "|---|---:|---:|---:|---|"]
    for name, e, n, better, bad in rows:
        ratio = e / n if n else float("inf")
        # Non-2xx answers, by server (nginx gives a few at 256 connections of the 64 MiB object).
        errors = ", non-2xx: eddy %d, nginx %d" % bad if any(bad) else ""
        lines.append("| %s | %.3f | %.3f | %.2f | %s%s |" % (name, e, n, ratio, better, errors))
    table = "\n".join(lines)
    print(table)
    head = "## Proxy: eddy vs nginx\n\nOne run of `scripts/bench proxy` on %s, %d cores, %s. nginx: proxy_cache, slice 1m, proxy_cache_lock. Per core: 1 nginx worker against `--workers 1`; whole machine: `worker_processes auto` against `--workers auto` (rows marked so); rows marked “server on core N, wrk on core M” hold every thread of each server on one core and wrk on the other (elsewhere wrk shares the server's cores). Same nginx origin, same files, each pair measured alternately; a throughput row is the median of %d rounds, each round's ratio beside it.\n\n" % (
        os.uname().nodename, os.cpu_count(), datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), a.rounds)
    from results import write_section
    write_section("proxy", head + table + "\n")


if __name__ == "__main__":
    main()
