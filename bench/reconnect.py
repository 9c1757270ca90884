#!/usr/bin/env python3
"""A viewer on a flapping link (issue 58), eddy beside nginx (proxy_cache, slice 1m), alternately
in one run, each on a cold cache: one viewer reads a file in pieces, dropping the connection after
each and coming back with `Range: bytes=N-`, ten times, from one nginx origin behind 25 ms a
request and a 48 Mbit/s cap (Tests/Scenarios/shaped_link.py). Rows: each reconnect's first byte
(median and max of reconnects 2 to 10, where the bytes at N were fetched already) and the bytes
the origin sent for those read. Rewrites bench/RESULTS.md's `reconnect` section."""
import argparse, datetime, hashlib, os, random, socket, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Scenarios"))
from bench import Eddy, Origin, Peer  # noqa: E402
from results import write_section  # noqa: E402
from shaped_link import ShapedLink  # noqa: E402

MiB = 1 << 20


class Via:
    """What Peer and Eddy need of an origin: its port (here the shaped link's)."""

    def __init__(self, port):
        self.port = port


def viewer(port, path, data, piece, reconnects):
    firsts, pos = [], 0
    for _ in range(reconnects):
        s = socket.create_connection(("127.0.0.1", port), timeout=60)
        t0 = time.monotonic()
        s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nRange: bytes=%d-\r\n\r\n" % (path.encode(), pos))
        buf = b""
        while b"\r\n\r\n" not in buf:
            buf += s.recv(65536)
        body = buf.split(b"\r\n\r\n", 1)[1]
        while not body:
            body += s.recv(65536)
        firsts.append(time.monotonic() - t0)
        while len(body) < piece:
            d = s.recv(65536)
            assert d, "cut short"
            body += d
        assert hashlib.sha256(body[:piece]).digest() == hashlib.sha256(data[pos:pos + piece]).digest()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
        s.close()
        pos += piece
        time.sleep(0.5)  # the link is down a moment
    return firsts, pos


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eddy", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--size", type=int, default=128 * MiB)
    ap.add_argument("--piece", type=int, default=5 * MiB)
    args, _ = ap.parse_known_args()
    base = tempfile.mkdtemp(prefix="eddy-reconnect-")
    origin = Origin(base)
    data = random.Random(58).randbytes(args.size)
    rows = {"eddy": [], "nginx": []}
    try:
        for r in range(args.rounds):
            for name in ("eddy", "nginx") if r % 2 == 0 else ("nginx", "eddy"):
                fname = "r%d-%s.bin" % (r, name)  # a cold copy for each
                with open(os.path.join(origin.www, fname), "wb") as f:
                    f.write(data)
                link = ShapedLink(origin.port, latency=0.025, rate=6_000_000)
                server = Eddy(base, Via(link.port), args.eddy) if name == "eddy" else Peer(base, Via(link.port))
                try:
                    firsts, read = viewer(server.port, "/" + fname, data, args.piece, 10)
                finally:
                    server.stop()
                    link.stop()
                later = firsts[1:]
                rows[name].append((statistics.median(later), max(later), link.bytes_down, read))
                print("%s round %d: reconnect first byte median %.1f ms, max %.1f; origin %.1f MiB for %.1f MiB read"
                      % (name, r, statistics.median(later) * 1000, max(later) * 1000, link.bytes_down / MiB, read / MiB), flush=True)
    finally:
        origin.proc.terminate()
        origin.proc.wait(30)
    text = ["## Reconnects: eddy vs nginx slice behind 25 ms and 48 Mbit/s\n",
            "One run of `scripts/bench reconnect` on %s: a viewer reads %d MiB pieces of a %d MiB file ten times, "
            "dropping the connection after each and coming back with `Range: bytes=N-` 0.5 s later; each server "
            "on a cold cache, alternately, %d rounds. First byte: reconnects 2 to 10.\n"
            % (datetime.date.today(), args.piece // MiB, args.size // MiB, args.rounds),
            "| server | first byte median (ms) | first byte max (ms) | origin bytes / bytes read |",
            "|---|---|---|---|"]
    for name in ("eddy", "nginx"):
        for med, mx, sent, read in rows[name]:
            text.append("| %s | %.1f | %.1f | %.2f |" % (name, med * 1000, mx * 1000, sent / read))
    write_section("reconnect", "\n".join(text) + "\n")


if __name__ == "__main__":
    main()
