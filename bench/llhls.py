#!/usr/bin/env python3
"""Live at scale (issue 62): N viewers of one Low-Latency HLS rendition through eddy, in front of
the project's LL-HLS origin (Tests/Scenarios/ll_hls_origin.py: 0.5 s parts, 2 s segments, held
blocking reloads). Each viewer (an asyncio client on one keep-alive connection) follows the
channel with blocking reloads for the next part (`_HLS_msn`, `_HLS_part`, in a random order) and
fetches each part. Rows: origin requests per (playlist, msn, part) key, fetches per part, how long
after the origin's answer each viewer had its playlist (p50, p99; CLOCK_MONOTONIC is one for the
machine), eddy's peak RSS and CPU. No peer: nginx would need one proxy_cache_lock'd key per query.
Rewrites bench/RESULTS.md's `ll-hls` section."""
import argparse, asyncio, datetime, json, os, random, re, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "Tests", "Scenarios"))
from bench import Eddy, free_port, wait_port  # noqa: E402
from results import write_section  # noqa: E402

HINT = re.compile(rb'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="([^"]*seg(\d+)\.(\d+)\.m4s)"')


class Via:
    def __init__(self, port):
        self.port = port


async def get(reader, writer, path):
    writer.write(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = int(re.search(rb"(?i)\r\ncontent-length: *(\d+)", head).group(1))
    return status, await reader.readexactly(length)


async def viewer(port, end, got, errors, seed):
    rnd = random.Random(seed)
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, limit=1 << 20)
        status, text = await get(reader, writer, b"/live/index.m3u8")
        m = HINT.search(text)
        n, p = int(m.group(2)), int(m.group(3))
        while time.monotonic() < end:
            d = [b"_HLS_msn=%d" % n, b"_HLS_part=%d" % p]
            rnd.shuffle(d)
            status, text = await get(reader, writer, b"/live/index.m3u8?" + b"&".join(d))
            got.append(("/live/index.m3u8&_HLS_msn=%d&_HLS_part=%d" % (n, p), time.monotonic()))
            if status != 200:
                errors.append(status)
                break
            part = re.search(rb'URI="([^"]*seg%d\.%d\.m4s)"' % (n, p), text).group(1)
            status, _ = await get(reader, writer, part)
            if status != 200:
                errors.append(status)
            m = HINT.search(text)
            n, p = int(m.group(2)), int(m.group(3))
        writer.close()
    except Exception as e:  # noqa: BLE001 (counted, reported)
        errors.append(repr(e))


def cpu_seconds(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def status_kib(pid, key):
    for line in open("/proc/%d/status" % pid):
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


async def crowd(port, viewers, seconds):
    got, errors = [], []
    end = time.monotonic() + seconds
    await asyncio.gather(*[viewer(port, end, got, errors, i) for i in range(viewers)])
    return got, errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eddy", required=True)
    ap.add_argument("--viewers", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=20)
    a = ap.parse_args()
    base = tempfile.mkdtemp(prefix="eddy-llhls-")
    oport = free_port()
    origin = subprocess.Popen([sys.executable, os.path.join(HERE, "..", "Tests", "Scenarios", "ll_hls_origin.py"), "--port", str(oport)])
    wait_port(oport)
    e = Eddy(base, Via(oport), a.eddy, workers="auto")
    try:
        cpu0, t0, mine0 = cpu_seconds(e.proc.pid), time.monotonic(), time.process_time()
        got, errors = asyncio.run(crowd(e.port, a.viewers, a.seconds))
        wall = time.monotonic() - t0
        cpu, client = (cpu_seconds(e.proc.pid) - cpu0) / wall, (time.process_time() - mine0) / wall
        peak = status_kib(e.proc.pid, "VmHWM") / 1024
        import urllib.request
        s = json.loads(urllib.request.urlopen("http://127.0.0.1:%d/_stats" % oport).read())
    finally:
        e.stop()
        origin.terminate()
        origin.wait(10)
    held = {k: n for k, n in s["keys"].items() if "_HLS_msn" in k}
    parts = {k: n for k, n in s["paths"].items() if re.search(r"seg\d+\.\d+\.m4s$", k)}
    lags = sorted(at - s["answered"][k][0] for k, at in got if k in s["answered"])
    rows = [("viewer reloads answered", "%d (errors: %d)" % (len(got), len(errors))),
            ("origin requests per (playlist, msn, part) key, mean / max", "%.3f / %d over %d keys"
             % (sum(held.values()) / max(1, len(held)), max(held.values() or [0]), len(held))),
            ("origin fetches per part, max", "%d over %d parts" % (max(parts.values() or [0]), len(parts))),
            ("viewer had the playlist after the origin answered, p50 / p99 (ms)", "%.1f / %.1f"
             % (lags[len(lags) // 2] * 1000, lags[int(len(lags) * 0.99)] * 1000)),
            ("eddy peak RSS (MiB)", "%.1f" % peak),
            ("eddy CPU (cores, averaged over the run)", "%.2f" % cpu),
            ("the viewers' own CPU (cores; one Python process: near 1.0, its own queue is in the lags above)", "%.2f" % client)]
    text = ("## Live at scale: LL-HLS viewers through eddy (issue 62)\n\nOne run of `scripts/bench llhls` on %s, %d cores, %s: "
            "%d viewers (asyncio clients, one keep-alive connection each, on the same machine) follow one LL-HLS rendition "
            "(0.5 s parts, 2 s segments; `Tests/Scenarios/ll_hls_origin.py`) for %.0f s with blocking reloads for each next "
            "part and that part's bytes, through eddy (`--workers auto`).\n\n| measure | value |\n|---|---|\n"
            % (os.uname().nodename, os.cpu_count(), datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               a.viewers, a.seconds)
            + "".join("| %s | %s |\n" % r for r in rows))
    print(text)
    write_section("ll-hls", text)


if __name__ == "__main__":
    main()
