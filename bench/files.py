#!/usr/bin/env python3
"""File downloads (issue 31): eddy (`POST /api/downloads` of a plain file) vs `aria2c -x8 -s8`
and `curl`, alternately in one run, against one nginx origin that adds 40 ms to every response
and limits each connection to 2 MiB/s (as bench/downloads.py's far CDN edge). The link is then
8 x 2 MiB/s for the tools that open 8 connections. Then eddy with `--download-rate-limit 4M`: its
measured rate against the cap. Each run starts from nothing (a fresh eddy cache, a fresh output
directory); the origin's access log gives the bytes each run fetched. Every process started here
is stopped by its pid; every run is bounded in time."""
import argparse, datetime, hashlib, os, shutil, signal, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import free_port, wait_port  # noqa: E402
from downloads import Origin, download  # noqa: E402
from results import write_section  # noqa: E402

MiB = 1 << 20


def make_file(path, size):
    """Random bytes (incompressible, as video is), made once and kept."""
    if os.path.exists(path) and os.path.getsize(path) == size:
        return
    with open(path + ".tmp", "wb") as f:
        for _ in range(size // MiB):
            f.write(os.urandom(MiB))
    os.rename(path + ".tmp", path)


def digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(4 * MiB), b""):
            h.update(chunk)
    return h.hexdigest()


def run_eddy(binary, work, url, size, extra=()):
    """Wall seconds from POST to `completed`, and the file's sha256 as eddy exports it."""
    port, adm = free_port(), free_port()
    proc = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:%d" % port, "--admin", "127.0.0.1:%d" % adm,
                             "--cache-dir", os.path.join(work, "cache"), "--allow-host", "127.0.0.1:*",
                             "--access-log", "off", "--log-level", "error", *extra])
    try:
        wait_port(port)
        wait_port(adm)
        wall, j = download(adm, url)
        assert j["kind"] == "file", j
        assert j["bytes_done"] == size and j["file"]["ranges"] == [[0, size]], j
        out = os.path.join(work, "export")
        r = subprocess.run([binary, "download", "export", j["id"], out, "--admin", "127.0.0.1:%d" % adm],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        return wall, digest(os.path.join(out, os.path.basename(url)))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)


def run_aria2(work, url, size):
    t0 = time.monotonic()
    r = subprocess.run(["aria2c", "-x8", "-s8", "-k1M", "-q", "--file-allocation=none", "--allow-overwrite=true",
                        "-d", work, "-o", "out.bin", url], capture_output=True, text=True, timeout=900)
    wall = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    return wall, digest(os.path.join(work, "out.bin"))


def run_curl(work, url, size):
    t0 = time.monotonic()
    r = subprocess.run(["curl", "-sS", "-o", os.path.join(work, "out.bin"), url], capture_output=True, text=True, timeout=900)
    wall = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    return wall, digest(os.path.join(work, "out.bin"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eddy", required=True)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="one round")
    ap.add_argument("--size-mib", type=int, default=256)
    a = ap.parse_args()
    if a.quick:
        a.rounds = 1
    size = a.size_mib * MiB
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "eddy-bench")
    os.makedirs(cache, exist_ok=True)
    src = os.path.join(cache, "file-%dM.bin" % a.size_mib)
    make_file(src, size)
    capped = os.path.join(cache, "file-64M.bin")
    make_file(capped, 64 * MiB)
    want = digest(src)
    base = tempfile.mkdtemp(prefix="eddy-bench-files-")
    www = os.path.join(base, "www")
    os.makedirs(www)
    os.symlink(src, os.path.join(www, "big.bin"))
    os.symlink(capped, os.path.join(www, "capped.bin"))
    origin = Origin(base, www)
    url = "http://127.0.0.1:%d/big.bin" % origin.port
    tools = [("eddy", lambda w: run_eddy(a.eddy, w, url, size)), ("aria2c -x8 -s8", lambda w: run_aria2(w, url, size)),
             ("curl", lambda w: run_curl(w, url, size))]
    times = {n: [] for n, _ in tools}
    fetched = {n: [] for n, _ in tools}
    try:
        for r in range(a.rounds):
            order = tools[r % 3:] + tools[:r % 3]
            for name, run in order:
                work = os.path.join(base, "run-%d" % r)
                shutil.rmtree(work, ignore_errors=True)
                os.makedirs(work)
                m = origin.mark()
                t, got = run(work)
                assert got == want, "%s: the file differs" % name
                time.sleep(0.3)
                sent, reqs, conns, bad = origin.since(m)
                times[name].append(t)
                fetched[name].append((sent, reqs, conns, bad))
                print("round %d %-15s %7.2f s  %6.1f MiB/s  origin: %.1f MiB in %d requests on %d connections, %d non-2xx"
                      % (r, name, t, size / t / MiB, sent / MiB, reqs, conns, bad), flush=True)
                shutil.rmtree(work, ignore_errors=True)
        # The cap: 64 MiB with download_rate_limit 4M, a rate measured from POST to completed.
        work = os.path.join(base, "run-cap")
        os.makedirs(work)
        cap_url = "http://127.0.0.1:%d/capped.bin" % origin.port
        t, got = run_eddy(a.eddy, work, cap_url, 64 * MiB, extra=("--download-rate-limit", "4M"))
        assert got == digest(capped)
        cap_rate = 64 * MiB / t
        print("cap 4M: %.2f s, %.2f MiB/s (%.1f%% of the cap)" % (t, cap_rate / MiB, 100 * cap_rate / (4 * MiB)), flush=True)
    finally:
        origin.stop()
        shutil.rmtree(base, ignore_errors=True)
    med = {n: statistics.median(v) for n, v in times.items()}
    link = 8 * 2 * MiB
    lines = ["| tool | wall time per round (s) | median (s) | MiB/s | share of the 8 x 2 MiB/s link | origin MiB / requests / connections (last round) | eddy / tool |",
             "|---|---|---:|---:|---:|---|---:|"]
    for n, _ in tools:
        s, q, c, _ = fetched[n][-1]
        lines.append("| %s | %s | %.2f | %.1f | %.0f%% | %.1f / %d / %d | %.2f |" % (
            n, ", ".join("%.2f" % t for t in times[n]), med[n], size / med[n] / MiB, 100 * size / med[n] / link,
            s / MiB, q, c, med["eddy"] / med[n]))
    lines.append("")
    lines.append("With `download_rate_limit: 4M` (4 MiB/s), 64 MiB took %.2f s: %.2f MiB/s, %.1f%% of the cap." % (
        t, cap_rate / MiB, 100 * cap_rate / (4 * MiB)))
    table = "\n".join(lines)
    print(table)
    head = ("One run of `scripts/bench files` on %s, %d cores, %s, %d rounds, the three tools alternately (the first "
            "rotates each round). A %d MiB file of random bytes from nginx adding 40 ms to every response and sending at "
            "most 2 MiB/s per connection. eddy: a fresh cache each round, `POST /api/downloads` until `completed` "
            "(download_concurrency 8, ranges of at most 8 MiB); aria2: `aria2c -x8 -s8 -k1M`; curl: one connection. "
            "Every output's sha256 is checked.\n\n"
            % (os.uname().nodename, os.cpu_count(), datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               a.rounds, a.size_mib))
    write_section("files", "## File downloads: eddy vs aria2 and curl\n\n" + head + table + "\n")


if __name__ == "__main__":
    main()
