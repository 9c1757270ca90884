#!/usr/bin/env python3
"""Start-up to the first hit with ~100,000 cached resources: two eddy binaries and nginx, alternately.

    python3 bench/startup.py --a OLD --b NEW [--rounds 11]

Fills one eddy cache and one nginx cache with 100,000 distinct 16 KiB URLs (wrk and
bench/unique.lua, as `scripts/bench proxy` does), syncs, then restarts A, B and nginx in turn and
times each from the start of the process to a 200 for a stored URL. The first round follows the
fills and is left out of the medians. Every process is stopped by its pid; the files are removed."""
import argparse, os, random, shutil, statistics, subprocess, sys, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import Origin, Peer, Eddy, get  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--rounds", type=int, default=11)
    a = ap.parse_args()
    base = tempfile.mkdtemp(prefix="eddy-startup-")
    origin = Origin(base)
    with open(os.path.join(origin.www, "o16k.bin"), "wb") as f:
        f.write(random.Random(1).randbytes(16 << 10))
    eddy = Eddy(base, origin, a.a)
    peer = Peer(base, origin)
    times = {"A": [], "B": [], "nginx": []}
    try:
        for s in (eddy, peer):
            subprocess.run(["wrk", "-t", "2", "-c", "64", "-d", "60s", "-s", os.path.join(os.path.dirname(__file__), "unique.lua"),
                            "http://127.0.0.1:%d/o16k.bin" % s.port], capture_output=True, timeout=120)
        os.sync()
        for _ in range(a.rounds):
            for name in times:
                s = peer if name == "nginx" else eddy
                if s is eddy:
                    eddy.binary = a.a if name == "A" else a.b
                s.stop()
                t0 = time.monotonic()
                s.start()
                deadline = t0 + 30
                while get(s.port, "/o16k.bin?u=7")[0] != 200:
                    assert time.monotonic() < deadline, "no hit in 30 s"
                times[name].append((time.monotonic() - t0) * 1000)
    finally:
        eddy.stop()
        peer.stop()
        origin.proc.terminate()
        origin.proc.wait(10)
        shutil.rmtree(base, ignore_errors=True)
    for name, v in times.items():
        print("%-5s median %5.1f ms   %s" % (name, statistics.median(v[1:]), " ".join("%.1f" % x for x in v)))


if __name__ == "__main__":
    main()
