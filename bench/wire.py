#!/usr/bin/env python3
"""The HTTP layer alone: eddy's connection layer (HTTPServer) against nginx, each answering a
16 KiB 200 with a stored hit's fields, on one core each, measured alternately in one run (wrk,
loopback).

    python3 bench/wire.py [--wirebench .build/release/wirebench] [--rounds 3] [--seconds 4] [--size 16384]

wirebench serves from memory with no cache behind it, and nginx a static file from the page
cache, so the table isolates what a request costs in each HTTP layer. (Up to commit 44d6764,
wirebench also served through evhttp, the layer eddy used before its own: bench/RESULTS.md.)"""
import argparse, os, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from bench import free_port, wait_port, wrk  # noqa: E402


class Server:
    def __init__(self, name, argv, port):
        self.name, self.port = name, port
        self.proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(port)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)


def nginx(base, size):
    d = os.path.join(base, "nginx")
    os.makedirs(os.path.join(d, "www"))
    with open(os.path.join(d, "www", "o.bin"), "wb") as f:
        f.write(bytes((i * 31) & 0xFF for i in range(size)))
    port = free_port()
    conf = os.path.join(d, "nginx.conf")
    open(conf, "w").write(f"""
daemon off; user root; worker_processes 1; pid {d}/pid; error_log {d}/error.log;
worker_rlimit_nofile 8192;
events {{ worker_connections 4096; }}
http {{
  access_log off; sendfile on; tcp_nopush on; keepalive_requests 1000000;
  client_body_temp_path {d}; proxy_temp_path {d}; fastcgi_temp_path {d}; uwsgi_temp_path {d}; scgi_temp_path {d};
  server {{ listen 127.0.0.1:{port}; root {d}/www; expires 1d; }}
}}""")
    return Server("nginx", ["nginx", "-c", conf, "-p", d], port)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wirebench", default=".build/release/wirebench")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=4)
    ap.add_argument("--size", type=int, default=16384)
    args = ap.parse_args()
    base = tempfile.mkdtemp(prefix="eddy-wire-")
    servers = []
    try:
        port = free_port()
        servers.append(Server("wire", [args.wirebench, "wire", str(port), str(args.size)], port))
        servers.append(nginx(base, args.size))
        rows = []
        for conns in (8, 64, 256):
            got = {s.name: [] for s in servers}
            for r in range(args.rounds):
                order = servers if r % 2 == 0 else list(reversed(servers))
                for s in order:
                    rps, _, bad = wrk(s.port, "/o.bin", conns, args.seconds)
                    assert bad == 0, (s.name, bad)
                    got[s.name].append(rps)
            rows.append((conns, got))
        print("| connections | eddy req/s | nginx req/s | eddy/nginx |")
        print("|---:|---:|---:|---:|")
        for conns, got in rows:
            m = {k: statistics.median(v) for k, v in got.items()}
            print("| %d | %.0f | %.0f | %.2f |" % (conns, m["wire"], m["nginx"], m["wire"] / m["nginx"]))
        print("\nper round (wire/nginx):", {c: ["%.2f" % (w / n) for w, n in zip(g["wire"], g["nginx"])] for c, g in rows})
    finally:
        for s in servers:
            s.stop()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
