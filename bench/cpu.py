#!/usr/bin/env python3
"""CPU time per request of eddy binaries and nginx, side by side: 16 KiB hits from memory and
16 KiB ranges of a 64 MiB object (stored only around the span unless --whole), each server in
turn (A, B, nginx, A, B, nginx...) under the same wrk load.

    python3 bench/cpu.py --a OLD [--b NEW] [--workers 1|auto] [--conns 8,64] [--rounds 4] [--whole]

On a machine that wrk shares, throughput follows CPU per request (wrk's and the server's), so
this says whether a change made a request cheaper where requests/s alone is within noise. Each
server's CPU is the utime+stime of all its threads (all nginx processes) read from /proc
before and after each run. Prints each run, then medians: requests/s and µs of CPU a request.
"""
import argparse, os, random, shutil, statistics, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ab import Named  # noqa: E402
from bench import MiB, Origin, Peer, get, wrk  # noqa: E402
from threads import ticks  # noqa: E402


def cpu_seconds(pids):
    return sum(t for pid in pids for _, t in ticks(pid).values()) / os.sysconf("SC_CLK_TCK")


def run(server, path, headers, conns, seconds):
    """requests/s, and CPU µs a request (wrk's rate over the nominal seconds it ran)."""
    c0 = cpu_seconds(server.pids())
    rps = wrk(server.port, path, conns, seconds, headers)[0]
    return rps, (cpu_seconds(server.pids()) - c0) / (rps * seconds) * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b")
    ap.add_argument("--workers", default="auto")
    ap.add_argument("--conns", default="8,64")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--seconds", type=int, default=4)
    ap.add_argument("--whole", action="store_true", help="store the 64 MiB object whole first")
    a = ap.parse_args()
    base = tempfile.mkdtemp(prefix="eddy-cpu-")
    origin = Origin(base)
    rnd = random.Random(1)
    for name, size in [("o16k.bin", 16 << 10), ("o64m.bin", 64 << 20)]:
        with open(os.path.join(origin.www, name), "wb") as f:
            f.write(rnd.randbytes(size))
    servers = [Named(base, origin, a.a, "A", a.workers)] + ([Named(base, origin, a.b, "B", a.workers)] if a.b else [])
    servers.append(Peer(base, origin, workers=a.workers))
    span = "bytes=%d-%d" % (20 * MiB, 20 * MiB + 16383)
    kinds = [("hit", "/o16k.bin", None), ("range", "/o64m.bin", {"Range": span})]
    results = {}
    try:
        for s in servers:
            for _ in range(2):
                assert get(s.port, "/o16k.bin")[0] == 200 and get(s.port, "/o64m.bin", {"Range": span})[0] == 206, s.name
            if a.whole:
                assert get(s.port, "/o64m.bin")[0] == 200, s.name
        for r in range(a.rounds):
            for conns in map(int, a.conns.split(",")):
                for kind, path, headers in kinds:
                    for s in servers:
                        results.setdefault((kind, conns, s.name), []).append(run(s, path, headers, conns, a.seconds))
                    print(r, kind, conns, " ".join("%s %.0f/s %.1f µs" % ((s.name,) + results[(kind, conns, s.name)][-1]) for s in servers),
                          flush=True)
        print("medians: requests/s and µs of CPU a request")
        for (kind, conns, name), xs in sorted(results.items()):
            print("%-5s %3d conns %-5s %8.0f/s %6.1f µs" % (kind, conns, name, statistics.median(x[0] for x in xs),
                                                            statistics.median(x[1] for x in xs)))
    finally:
        for s in servers:
            s.stop()
        origin.proc.terminate()
        origin.proc.wait(10)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
