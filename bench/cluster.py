#!/usr/bin/env python3
"""Scale-out (issue 32): the same 30 clients against HAProxy in front of 3 edge eddys with 2
parent eddys (config/haproxy.cfg as shipped, its ports rewritten), and against one eddy,
alternately in one run, each run from empty caches. The origin is nginx adding 40 ms to every
response and sending 2 MiB/s per connection (bench/downloads.py's far origin). The content: 3
assets of 30 segments of 256 KiB and 3 files of 4 MiB, random bytes. Each client reads every
object once, in its own random order. Reported: origin bytes per object (1.00 is each object
once), time to first byte (median and p99) and wall time. Every process started here is stopped
by its pid; every run is bounded in time."""
import argparse, concurrent.futures, datetime, http.client, os, random, re, shutil, signal, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import free_port, wait_port  # noqa: E402
from downloads import Origin  # noqa: E402
from results import write_section  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CFG = os.path.join(HERE, "..", "config", "haproxy.cfg")
KiB, MiB = 1 << 10, 1 << 20


def make_content(root):
    """{path: size} of the objects, made once."""
    files = {}
    for a in range(3):
        for s in range(30):
            files["/asset%d/seg%02d.m4s" % (a, s)] = 256 * KiB
    for f in range(3):
        files["/film%d/movie.mp4" % f] = 4 * MiB
    for p, size in files.items():
        path = root + p
        if not os.path.exists(path) or os.path.getsize(path) != size:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as f:
                f.write(os.urandom(size))
    return files


class Node:
    def __init__(self, binary, work, name, origin, extra=()):
        self.port, self.admin = free_port(), free_port()
        self.proc = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:%d" % self.port, "--admin", "127.0.0.1:%d" % self.admin,
                                      "--cache-dir", os.path.join(work, name), "--origin", "/n/=http://127.0.0.1:%d" % origin,
                                      "--name", name, "--access-log", "off", "--log-level", "error", *extra])
        wait_port(self.port)
        wait_port(self.admin)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


class HAProxy:
    def __init__(self, work, edges):
        text = open(CFG).read()
        self.port = free_port()
        text = text.replace("bind :8080", "bind 127.0.0.1:%d" % self.port)
        for i, e in enumerate(edges, 1):
            text = re.sub(r"server edge%d \S+ check port \d+" % i, "server edge%d 127.0.0.1:%d check port %d" % (i, e.port, e.admin), text)
        cfg = os.path.join(work, "haproxy.cfg")
        open(cfg, "w").write(text)
        self.proc = subprocess.Popen(["haproxy", "-db", "-f", cfg], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port)
        time.sleep(2.5)  # two health checks pass (rise 2, inter 1s)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(10)


def clients(port, files, n, seed):
    """Every object once per client; returns (first-byte seconds, errors)."""
    paths = sorted(files)

    def one(k):
        rnd = random.Random(seed * 100 + k)
        order = paths[:]
        rnd.shuffle(order)
        ttfb, bad = [], 0
        for p in order:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            t0 = time.monotonic()
            try:
                c.request("GET", "/n" + p)
                r = c.getresponse()
                r.read(1)
                ttfb.append(time.monotonic() - t0)
                body = r.read()
                if r.status != 200 or len(body) + 1 != files[p]:
                    bad += 1
            except (OSError, http.client.HTTPException):
                bad += 1
            finally:
                c.close()
        return ttfb, bad

    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        out = list(pool.map(one, range(n)))
    return [t for ts, _ in out for t in ts], sum(b for _, b in out)


def run(kind, binary, root, files, n, seed):
    work = tempfile.mkdtemp(prefix="eddy-cluster-")
    origin = Origin(work, root)
    nodes, hap = [], None
    try:
        if kind == "cluster":
            parents = [Node(binary, work, "parent-%d" % i, origin.port, ["--child", "127.0.0.1"]) for i in (1, 2)]
            nodes += parents
            plist = sum((["--parent", "http://127.0.0.1:%d" % p.port] for p in parents), [])
            edges = [Node(binary, work, "edge%d" % i, origin.port, plist) for i in (1, 2, 3)]
            nodes += edges
            hap = HAProxy(work, edges)
            port = hap.port
        else:
            nodes.append(Node(binary, work, "single", origin.port))
            port = nodes[0].port
        mark = origin.mark()
        t0 = time.monotonic()
        ttfb, bad = clients(port, files, n, seed)
        wall = time.monotonic() - t0
        sent, requests, _, _ = origin.since(mark)
        return {"per_object": sent / sum(files.values()), "requests": requests, "median": statistics.median(ttfb),
                "p99": sorted(ttfb)[int(0.99 * (len(ttfb) - 1))], "wall": wall, "errors": bad}
    finally:
        if hap:
            hap.stop()
        for nd in nodes:
            nd.stop()
        origin.stop()
        shutil.rmtree(work, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eddy", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--clients", type=int, default=30)
    args = ap.parse_args()
    root = os.path.join(tempfile.gettempdir(), "eddy-cluster-content")
    files = make_content(root)
    results = {"cluster": [], "single": []}
    for r in range(args.rounds):
        for kind in ("cluster", "single"):
            res = run(kind, os.path.abspath(args.eddy), root, files, args.clients, seed=r)
            results[kind].append(res)
            print(kind, r, res, flush=True)
    med = {k: {m: statistics.median(x[m] for x in v) for m in v[0]} for k, v in results.items()}
    rows = [("origin bytes per object", "per_object", "%.2f"), ("origin requests", "requests", "%d"),
            ("median time to first byte (s)", "median", "%.3f"), ("p99 time to first byte (s)", "p99", "%.3f"),
            ("wall time (s)", "wall", "%.1f"), ("errors", "errors", "%d")]
    lines = ["## Scale-out: HAProxy, 3 edges and 2 parents against one eddy (bench/cluster.py)", "",
             "%s; %d clients, each reading %d objects (%.0f MiB) once, in its own order; the origin adds 40 ms per"
             " response and sends 2 MiB/s per connection. Medians of %d alternated rounds, each from empty caches;"
             " both set-ups share this 2-core machine with the clients and the origin." %
             (datetime.date.today().isoformat(), args.clients, len(files), sum(files.values()) / MiB, args.rounds), "",
             "| measure | cluster | one eddy | cluster / one eddy |", "|---|---|---|---|"]
    for label, key, fmt in rows:
        c, s = med["cluster"][key], med["single"][key]
        ratio = "%.2f" % (c / s) if s else "-"
        lines.append("| %s | %s | %s | %s |" % (label, fmt % c, fmt % s, ratio))
    text = "\n".join(lines) + "\n"
    print(text)
    write_section("cluster", text)


if __name__ == "__main__":
    main()
