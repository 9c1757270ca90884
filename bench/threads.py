#!/usr/bin/env python3
"""Where eddy's CPU goes, by thread: binaries measured alternately (A, B, A, B) on one Range
request repeated by wrk, with each thread's CPU time read from /proc before and after.

    python3 bench/threads.py --workers 1|2 [--range-bytes 16384] [--rounds 2] [--cold] BINARY...

Prints requests/s, CPU ticks (1/100 s) per thread over the run, and ticks per 1,000 requests.
The 64 MiB object is fetched whole first, so every answer is a hit. With several loops, the
threads' shares say how the work spreads over them. With --cold, every request is a miss of
its own 16 KiB resource instead (bench/unique.lua: a query parameter per request), so each
one is a fill on its resource's home loop.
"""
import argparse, os, random, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from bench import MiB, Eddy, Origin, get, wrk  # noqa: E402


def ticks(pid):
    """utime + stime of each thread of `pid`, by thread id: (name, ticks)."""
    out = {}
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            st = open("/proc/%d/task/%s/stat" % (pid, tid)).read()
        except FileNotFoundError:
            continue  # a thread that ended meanwhile
        name = st[st.index("(") + 1:st.rindex(")")]
        f = st[st.rindex(")") + 2:].split()
        out[tid] = (name, int(f[11]) + int(f[12]))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binaries", nargs="+")
    ap.add_argument("--workers", default="1")
    ap.add_argument("--range-bytes", type=int, default=16384)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seconds", type=int, default=4)
    ap.add_argument("--cold", action="store_true")
    a = ap.parse_args()
    base = tempfile.mkdtemp(prefix="eddy-threads-")
    origin = Origin(base)
    rnd = random.Random(2)
    with open(os.path.join(origin.www, "o64m.bin"), "wb") as f:
        for _ in range(8):
            f.write(rnd.randbytes(8 * MiB))
    with open(os.path.join(origin.www, "o16k.bin"), "wb") as f:
        f.write(rnd.randbytes(16 << 10))
    unique = os.path.join(os.path.dirname(os.path.abspath(__file__)), "unique.lua")
    span = {"Range": "bytes=%d-%d" % (20 * MiB, 20 * MiB + a.range_bytes - 1)}
    try:
        for n in range(a.rounds):
            for binary in a.binaries:
                # A cache of its own each time: a cold round must find nothing stored.
                e = Eddy(os.path.join(base, "%s-%d" % (os.path.basename(binary), n)), origin, binary, workers=a.workers)
                try:
                    for _ in range(0 if a.cold else 2):
                        assert get(e.port, "/o64m.bin")[0] == 200
                    before = ticks(e.proc.pid)
                    if a.cold:
                        rps, _, bad = wrk(e.port, "/o16k.bin", 64, a.seconds, script=unique)
                    else:
                        rps, _, bad = wrk(e.port, "/o64m.bin", 64, a.seconds, span)
                    after = ticks(e.proc.pid)
                finally:
                    e.stop()
                use = {}
                for tid, (name, t) in after.items():
                    d = t - before.get(tid, (name, 0))[1]
                    if d:
                        use[name] = use.get(name, 0) + d
                print("%s: %.0f requests/s, %d errors, CPU ticks by thread %s, %.2f ticks per 1,000 requests"
                      % (binary, rps, bad, use, sum(use.values()) * 1000 / (rps * a.seconds)))
    finally:
        origin.proc.terminate()
        origin.proc.wait(10)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
