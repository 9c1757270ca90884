#!/usr/bin/env python3
"""A/B of two eddy binaries on this machine: the same nginx origin, the measures alternated A, B,
A, B... in one run, so that the ratio B/A is not swamped by the VM's drift between runs.

    python3 bench/ab.py --a OLD_BINARY --b NEW_BINARY [--rounds 3] [--seconds 4] [--workers 1|N|auto]

Prints a markdown table of B/A per round for hit throughput (16 KiB at 8 and 64 connections,
1 MiB and 64 MiB at 64, and a 1 MiB and a 16 KiB range of the 64 MiB object at 64) and the cold far-seek
first byte (behind nginx limit_rate 5m). Both eddys run with `--workers` (default 1: per core).
"""
import argparse, itertools, os, random, shutil, statistics, sys, tempfile

sys.path.insert(0, os.path.dirname(__file__))
from bench import MiB, Eddy, Origin, get, wrk  # noqa: E402
from cells import alternate  # noqa: E402


class Named(Eddy):
    def __init__(self, base, origin, binary, name, workers):
        self.name = name
        Eddy.__init__(self, os.path.join(base, name), origin, binary, workers=workers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=int, default=4)
    ap.add_argument("--workers", default="1")
    args = ap.parse_args()
    base = tempfile.mkdtemp(prefix="eddy-ab-")
    origin = Origin(base)
    rnd = random.Random(2)
    rows = []
    a = b = None
    try:
        for name, size in [("o16k.bin", 16 << 10), ("o1m.bin", 1 << 20), ("o64m.bin", 64 << 20), ("o256m.bin", 256 << 20)]:
            with open(os.path.join(origin.www, name), "wb") as f:
                for _ in range(0, size, 8 * MiB):
                    f.write(rnd.randbytes(min(size, 8 * MiB)))
        os.makedirs(os.path.join(base, "a"))
        os.makedirs(os.path.join(base, "b"))
        a, b = Named(base, origin, args.a, "a", args.workers), Named(base, origin, args.b, "b", args.workers)
        for obj in ["o16k.bin", "o1m.bin", "o64m.bin"]:
            for s in (a, b):
                for _ in range(2):
                    assert get(s.port, "/" + obj)[0] == 200
        one_mib = {"Range": "bytes=%d-%d" % (20 * MiB, 21 * MiB - 1)}
        sixteen_kib = {"Range": "bytes=%d-%d" % (20 * MiB, 20 * MiB + 16383)}  # scripts/bench proxy's range row
        for label, obj, conns, h in [("hit o16k.bin, 8 conns", "o16k.bin", 8, None), ("hit o16k.bin, 64 conns", "o16k.bin", 64, None),
                                     ("hit o1m.bin, 64 conns", "o1m.bin", 64, None), ("hit o64m.bin, 64 conns", "o64m.bin", 64, None),
                                     ("1 MiB range hit of o64m.bin, 64 conns", "o64m.bin", 64, one_mib),
                                     ("16 KiB range hit of o64m.bin, 64 conns", "o64m.bin", 64, sixteen_kib)]:
            got = alternate((a, b), args.rounds, lambda s: wrk(s.port, "/" + obj, conns, args.seconds, h)[1])
            rows.append((label + " (throughput B/A)", [y / x for x, y in zip(got["a"], got["b"])]))
        seeks = itertools.count()  # a new URL each time: every seek is cold

        def far_seek(s):
            st, n, t = get(s.port, "/slow/o256m.bin?ab=%d%s" % (next(seeks), s.name),
                           {"Range": "bytes=%d-%d" % (200 * MiB + 4321, 200 * MiB + 4321 + 65535)})
            assert st == 206 and n == 65536, (s.name, st, n)
            return t
        got = alternate((a, b), args.rounds, far_seek)
        ratios = [y / x for x, y in zip(got["a"], got["b"])]
        rows.append(("cold far-seek first byte (time B/A, lower is better)", ratios))
    finally:
        for s in (a, b):
            if s:
                s.stop()
        origin.proc.terminate()
        origin.proc.wait(30)
        shutil.rmtree(base, ignore_errors=True)
    print("| measure | B/A per round | median |")
    print("|---|---|---:|")
    for label, ratios in rows:
        print("| %s | %s | %.2f |" % (label, ", ".join("%.2f" % x for x in ratios), statistics.median(ratios)))


if __name__ == "__main__":
    main()
