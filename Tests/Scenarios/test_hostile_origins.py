"""Hostile origins and a hostile disk: a cache file that was deleted, truncated or flipped behind
eddy's back, origins that trickle or stall and hold connections, a cold object under 500 slow
readers, --max-size on disk while a big object fills, and an origin whose version changes while the
stored copy is still fresh. Each test prints the figure it measures."""
import http.client, os, re, socket, subprocess, threading, time
from conftest import EDDY, MiB, Eddy, make_file, sha, tcp_sockets, wait_for

BLOCK = 256 * 1024

# Flags the fixed binary takes; an older binary reads the same settings from its config file, so a
# test against it measures its real behaviour rather than failing on an unknown flag.
CONFIG_KEYS = {"--connect-timeout": "connect_timeout", "--stall-timeout": "stall_timeout",
               "--max-upstream-per-host": "max_upstream_per_host"}
_help = {}


def serve_help():
    if "text" not in _help:
        _help["text"] = subprocess.run([EDDY, "serve", "--help"], capture_output=True, text=True, timeout=30).stdout
    return _help["text"]


def start_eddy(base, ng, fo, flags):
    extra, conf = [], []
    i = 0
    while i < len(flags):
        f = flags[i]
        if f in CONFIG_KEYS and not re.search(re.escape(f) + r"\b", serve_help()):
            print("note: %s lacks %s; set as config key %s" % (EDDY, f, CONFIG_KEYS[f]))
            conf.append("%s: %s" % (CONFIG_KEYS[f], flags[i + 1]))
            i += 2
            continue
        extra.append(f)
        i += 1
    if conf:
        path = os.path.join(base, "hostile.yaml")
        with open(path, "w") as fh:
            fh.write("\n".join(conf) + "\n")
        extra += ["--config", path]
    return Eddy(base, ng, fo, extra=extra)


def fetch(port, path, headers=None, timeout=10, total=None):
    """GET with a bound on every socket operation (`timeout`) and on the whole exchange (`total`).
    Never raises: returns status, headers, body, outcome ("complete", "short", "timeout", "error:...",
    "no-response") and elapsed seconds."""
    total = total if total is not None else timeout
    out = {"status": None, "headers": {}, "body": b"", "outcome": None}
    t0 = time.monotonic()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    chunks = []
    try:
        c.request("GET", path, headers=headers or {})
        r = c.getresponse()
        out["status"] = r.status
        out["headers"] = {k.lower(): v for k, v in r.getheaders()}
        while True:
            if time.monotonic() - t0 > total:
                out["outcome"] = "timeout"
                break
            try:
                b = r.read(65536)
            except http.client.IncompleteRead as e:
                chunks.append(e.partial)
                out["outcome"] = "short"
                break
            if not b:
                break
            chunks.append(b)
    except socket.timeout:
        out["outcome"] = "timeout" if out["status"] is not None else "no-response"
    except (OSError, http.client.HTTPException) as e:
        out["outcome"] = "error:" + type(e).__name__
    finally:
        c.close()
    out["body"] = b"".join(chunks)
    out["elapsed"] = time.monotonic() - t0
    if out["outcome"] is None:
        cl = out["headers"].get("content-length")
        out["outcome"] = "complete" if cl is None or int(cl) == len(out["body"]) else "short"
    return out


def data_files(cache):
    found = []
    for dp, _, names in os.walk(os.path.join(cache, "data")):
        for n in names:
            p = os.path.join(dp, n)
            if os.path.isfile(p):
                found.append(p)
    return found


def nginx_after(ng, mark, uri):
    """nginx log entries for `uri` after the first `mark` entries."""
    return [r for r in ng.requests()[mark:] if r[3] == uri]


def err_text(e, offset=0):
    with open(e.errpath, errors="replace") as f:
        f.seek(offset)
        return f.read()


def nginx_file(ng, name, size, seed):
    path = os.path.join(ng.www, name)
    make_file(path, size, seed)
    with open(path, "rb") as f:
        return f.read()


# ---- 5. a data file deleted or truncated while eddy was down -------------------------------------

def cache_then_stop(e, path, body):
    r = e.get(path, timeout=60)
    assert r.status == 200 and sha(r.body) == sha(body)
    assert e.stop() == 0
    files = data_files(e.cache)
    assert len(files) == 1, files
    return files[0]


def test_deleted_data_file_is_refetched(origins, tmp_path):
    ng, fo, _ = origins
    body = nginx_file(ng, "ho_deleted.bin", 2 * MiB, 501)
    e = Eddy(str(tmp_path), ng, fo)
    try:
        f = cache_then_stop(e, "/n/ho_deleted.bin", body)
        os.unlink(f)
        mark, errmark = len(ng.requests()), os.path.getsize(e.errpath)
        e.start()
        full = fetch(e.port, "/n/ho_deleted.bin", timeout=10, total=20)
        part = fetch(e.port, "/n/ho_deleted.bin", {"Range": "bytes=1500000-1599999"}, timeout=10)
        again = fetch(e.port, "/n/ho_deleted.bin", timeout=10, total=20)
    finally:
        e.stop()
    refetched = sum(r[1] for r in nginx_after(ng, mark, "/ho_deleted.bin"))
    damaged = err_text(e, errmark).lower().count("damaged")
    print("deleted data file: full GET %s %s %d bytes in %.2f s; range %s %s in %.2f s; second GET %s %d bytes; "
          "origin re-sent %d bytes; 'damaged' logged %d times" % (full["status"], full["outcome"], len(full["body"]),
          full["elapsed"], part["status"], part["outcome"], part["elapsed"], again["status"], len(again["body"]), refetched, damaged))
    assert full["status"] == 200 and full["outcome"] == "complete" and sha(full["body"]) == sha(body), "full body after the file was deleted"
    assert part["status"] == 206 and part["body"] == body[1500000:1600000] and part["elapsed"] < 5
    assert again["status"] == 200 and sha(again["body"]) == sha(body)
    assert refetched >= len(body), "the origin must be asked again for the lost bytes"
    assert 1 <= damaged <= 2, "the damage is logged, once, not once per request"


def test_truncated_data_file_is_refetched(origins, tmp_path):
    ng, fo, _ = origins
    body = nginx_file(ng, "ho_truncated.bin", 2 * MiB, 502)
    e = Eddy(str(tmp_path), ng, fo)
    try:
        f = cache_then_stop(e, "/n/ho_truncated.bin", body)
        os.truncate(f, os.path.getsize(f) // 2)
        mark, errmark = len(ng.requests()), os.path.getsize(e.errpath)
        e.start()
        part = fetch(e.port, "/n/ho_truncated.bin", {"Range": "bytes=1500000-1599999"}, timeout=10)
        full = fetch(e.port, "/n/ho_truncated.bin", timeout=10, total=20)
        again = fetch(e.port, "/n/ho_truncated.bin", {"Range": "bytes=1900000-1999999"}, timeout=10)
    finally:
        e.stop()
    refetched = sum(r[1] for r in nginx_after(ng, mark, "/ho_truncated.bin"))
    damaged = err_text(e, errmark).lower().count("damaged")
    print("truncated data file: range %s %s %d bytes in %.2f s; full GET %s %s %d bytes in %.2f s; second range %s in %.2f s; "
          "origin re-sent %d bytes; 'damaged' logged %d times" % (part["status"], part["outcome"], len(part["body"]), part["elapsed"],
          full["status"], full["outcome"], len(full["body"]), full["elapsed"], again["status"], again["elapsed"], refetched, damaged))
    assert part["status"] == 206 and part["body"] == body[1500000:1600000] and part["elapsed"] < 5, \
        "a range in the lost half must be fetched again, not wait on bytes that are not there"
    assert full["status"] == 200 and full["outcome"] == "complete" and sha(full["body"]) == sha(body)
    assert again["status"] == 206 and again["body"] == body[1900000:2000000] and again["elapsed"] < 5
    assert refetched >= len(body) // 2 - BLOCK, "the origin must be asked again for the lost half"
    assert 1 <= damaged <= 2, "the damage is logged, once, not once per request"


# ---- 6. a byte flipped on disk -------------------------------------------------------------------

def flip(path, offset, expect):
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)
        assert b == expect, "the data file holds the object at its own offsets"
        f.seek(offset)
        f.write(bytes([b[0] ^ 0x5A]))


def test_flipped_byte_is_detected_and_refetched(origins, tmp_path):
    ng, fo, _ = origins
    body = nginx_file(ng, "ho_flipped.bin", MiB + 5, 601)
    e = Eddy(str(tmp_path), ng, fo)
    try:
        f = cache_then_stop(e, "/n/ho_flipped.bin", body)
        size_before = os.path.getsize(f)
        flip(f, 300000, body[300000:300001])
        assert os.path.getsize(f) == size_before
        mark, errmark = len(ng.requests()), os.path.getsize(e.errpath)
        e.start()
        full = fetch(e.port, "/n/ho_flipped.bin", timeout=10, total=20)
        again = fetch(e.port, "/n/ho_flipped.bin", timeout=10, total=20)
    finally:
        e.stop()
    log = nginx_after(ng, mark, "/ho_flipped.bin")
    refetched = sum(r[1] for r in log)
    damaged = err_text(e, errmark).lower().count("damaged")
    print("flipped byte at 300000: GET %s sha %s (original %s); origin re-sent %d bytes in %s; 'damaged' logged %d times"
          % (full["status"], sha(full["body"])[:12], sha(body)[:12], refetched, [(r[0], r[1]) for r in log], damaged))
    assert full["status"] == 200 and sha(full["body"]) == sha(body), "a damaged block must never be served"
    assert sha(again["body"]) == sha(body)
    assert BLOCK <= refetched <= 2 * BLOCK and any(r[0] == 206 for r in log), "only the damaged block is fetched again"
    assert 1 <= damaged <= 2


def test_cache_verify_drops_a_flipped_block(origins, tmp_path):
    ng, fo, _ = origins
    body = nginx_file(ng, "ho_verify.bin", MiB + 5, 602)
    e = Eddy(str(tmp_path), ng, fo)
    try:
        f = cache_then_stop(e, "/n/ho_verify.bin", body)
        flip(f, 300000, body[300000:300001])
        v1 = subprocess.run([EDDY, "cache", "verify", "--cache-dir", e.cache], capture_output=True, text=True, timeout=60)
        v2 = subprocess.run([EDDY, "cache", "verify", "--cache-dir", e.cache], capture_output=True, text=True, timeout=60)
        print("cache verify: first exit %d, stdout %r, stderr %r; second exit %d, stdout %r"
              % (v1.returncode, v1.stdout[-300:], v1.stderr[-300:], v2.returncode, v2.stdout[-300:]))
        assert v1.returncode == 1, "damage found: exit 1"
        assert re.search(r"\b1\s+damaged\b|damaged\D{0,30}\b1\b", v1.stdout, re.I), "reports one damaged block"
        assert v2.returncode == 0, "the damaged block was dropped: the second run is clean"
        mark = len(ng.requests())
        e.start()
        r = fetch(e.port, "/n/ho_verify.bin", timeout=10, total=20)
    finally:
        e.stop()
    refetched = sum(x[1] for x in nginx_after(ng, mark, "/ho_verify.bin"))
    print("after verify: GET %s sha ok %s, origin sent %d bytes" % (r["status"], sha(r["body"]) == sha(body), refetched))
    assert r["status"] == 200 and sha(r["body"]) == sha(body)
    assert BLOCK <= refetched <= 2 * BLOCK, "only the dropped block is fetched again"


# ---- 8. slow and stalled origins must not block the others on that origin ------------------------

def fault_file(fo, name, size, seed):
    path = os.path.join(fo.www, name)
    make_file(path, size, seed)
    with open(path, "rb") as f:
        return f.read()


def open_get(port, path, timeout=3):
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    return s


def read_some(s, want=1):
    """Reads until the end of the head plus `want` body bytes, EOF or the socket's timeout."""
    got = b""
    try:
        while True:
            b = s.recv(4096)
            if not b:
                break
            got += b
            i = got.find(b"\r\n\r\n")
            if i >= 0 and len(got) - i - 4 >= want:
                break
    except OSError:
        pass
    return got


def test_trickling_origin_does_not_block_other_requests(origins, tmp_path):
    ng, fo, _ = origins
    for i in range(6):
        fault_file(fo, "ho_trickleA%d.bin" % i, MiB, 800 + i)
    other = fault_file(fo, "ho_otherA.bin", MiB, 810)
    e = start_eddy(str(tmp_path), ng, fo, ["--max-upstream-per-host", "4", "--connect-timeout", "3"])
    socks, heads = [], []
    try:
        # One after the other, each once the one before has its head (or 1.5 s passed): the first four
        # get a connection each, the last two queue for one.
        for i in range(6):
            socks.append(open_get(e.port, "/f/ho_trickleA%d.bin?trickle=1" % i, timeout=1.5))
            heads.append(read_some(socks[-1]))
        for s in socks:
            s.close()
        wait_for(lambda: e.metrics()["eddy_client_connections"] == 0, 10, what="eddy to see the six clients gone")
        r = fetch(e.port, "/f/ho_otherA.bin", timeout=25, total=25)
    finally:
        for s in socks:
            s.close()
        e.stop(timeout=5)
    print("6 trickling fills (clients gone), limit 4/host: heads seen %d; GET other %s %s in %.2f s"
          % (sum(1 for h in heads if h.startswith(b"HTTP/1.1")), r["status"], r["outcome"], r["elapsed"]))
    assert r["status"] == 200 and sha(r["body"]) == sha(other)
    assert r["elapsed"] < 10, "a request to the same origin waited %.1f s behind trickling fills nobody reads" % r["elapsed"]


def test_queued_upstream_request_times_out(origins, tmp_path):
    """Two trickling fills whose clients keep reading hold both connections the origin may have; a
    third request waits for a connection at most about the connect timeout."""
    ng, fo, _ = origins
    for i in range(2):
        fault_file(fo, "ho_trickleB%d.bin" % i, MiB, 820 + i)
    other = fault_file(fo, "ho_otherB.bin", MiB, 830)
    e = start_eddy(str(tmp_path), ng, fo, ["--max-upstream-per-host", "2", "--connect-timeout", "2"])
    stop = threading.Event()
    got = [0, 0]
    socks = []

    def reader(i):
        while not stop.is_set():
            try:
                b = socks[i].recv(4096)
                if not b:
                    break
                got[i] += len(b)
            except OSError:
                pass

    ts = [threading.Thread(target=reader, args=(i,), daemon=True) for i in range(2)]
    try:
        # One after the other: the second starts once the first has its head, so each has a connection.
        for i in range(2):
            socks.append(open_get(e.port, "/f/ho_trickleB%d.bin?trickle=1" % i, timeout=3))
            got[i] = len(read_some(socks[i], 1))
            socks[i].settimeout(1)
            ts[i].start()
        wait_for(lambda: e.metrics()["eddy_upstream_active"] == 2, 10, what="both trickling fills holding a connection")
        r = fetch(e.port, "/f/ho_otherB.bin", timeout=15, total=15)
        stop.set()
        for t in ts:
            t.join(5)
    finally:
        stop.set()
        for s in socks:
            s.close()
        e.stop(timeout=5)
    print("2 trickling fills with readers, limit 2/host, connect-timeout 2: readers got %s bytes; third request %s %s in %.2f s"
          % (got, r["status"], r["outcome"], r["elapsed"]))
    assert all(n > 200 for n in got), "both trickling responses had started (heads %s)" % got
    assert r["status"] is not None, "the third request got no answer in %.1f s" % r["elapsed"]
    assert r["elapsed"] < 2 + 3, "waiting for an upstream connection is bounded by the connect timeout"
    assert r["status"] == 504 or (r["status"] == 200 and sha(r["body"]) == sha(other)), r["status"]


def test_request_beside_a_trickling_one_is_not_parked(origins, tmp_path):
    """Default limits: a trickling transfer that is still connecting must not hold back a second
    request to the same origin (curl's PIPEWAIT parks it until a connection to that host ends)."""
    ng, fo, _ = origins
    fault_file(fo, "ho_trickleD.bin", MiB, 850)
    other = fault_file(fo, "ho_otherD.bin", MiB, 851)
    e = Eddy(str(tmp_path), ng, fo)
    try:
        s = open_get(e.port, "/f/ho_trickleD.bin?trickle=1", timeout=3)
        r = fetch(e.port, "/f/ho_otherD.bin", timeout=15, total=15)
        head = read_some(s, 1)
        s.close()
    finally:
        e.stop(timeout=5)
    print("request beside a trickling one (default limits): %s %s in %.2f s; trickling client got %d bytes"
          % (r["status"], r["outcome"], r["elapsed"], len(head)))
    assert r["status"] == 200 and sha(r["body"]) == sha(other)
    assert r["elapsed"] < 5, "waited %.1f s behind a trickling transfer on another connection" % r["elapsed"]


def test_stalled_origin_is_cut_off(origins, tmp_path):
    ng, fo, _ = origins
    body = fault_file(fo, "ho_stall.bin", MiB, 840)
    e = start_eddy(str(tmp_path), ng, fo, ["--stall-timeout", "2"])
    try:
        r = fetch(e.port, "/f/ho_stall.bin?stall=1", timeout=20, total=20)
    finally:
        e.stop(timeout=5)
    print("origin sends the head, then nothing; stall-timeout 2: client saw %s %s with %d body bytes after %.2f s"
          % (r["status"], r["outcome"], len(r["body"]), r["elapsed"]))
    cut_off = r["status"] is not None and (r["outcome"] == "short" or r["outcome"].startswith("error"))
    error_status = r["status"] is not None and r["status"] >= 500
    assert cut_off or error_status, "neither cut off nor an error: %s %s" % (r["status"], r["outcome"])
    assert r["elapsed"] < 2 + 3, "the client was left waiting %.1f s on a stalled origin" % r["elapsed"]


# ---- 10. memory with a cold object ---------------------------------------------------------------

def vm(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def accept_queue(port):
    """Connections waiting in the kernel's accept queues of the listeners on 127.0.0.1:`port`
    (eddy counts a connection as a client's once it has sent something)."""
    return sum(rx for local, _, state, _, rx in tcp_sockets() if state == "0A" and local == port)


def cold_readers_run(origins, base, name, seed):
    ng, fo, _ = origins
    path = os.path.join(ng.www, name)
    make_file(path, 64 * MiB, seed)
    with open(path, "rb") as f:
        expect = sha(f.read())
    os.makedirs(base, exist_ok=True)
    e = Eddy(base, ng, fo)
    pid = e.proc.pid
    samples = []
    done = threading.Event()

    def sampler():
        while not done.is_set():
            try:
                samples.append(vm(pid, "VmRSS"))
            except OSError:
                break
            time.sleep(0.05)

    st = threading.Thread(target=sampler, daemon=True)
    st.start()
    socks, fast, hwm, fast_time = [], {}, 0, None
    try:
        # Connected first, then all 500 requests at once: every slow reader is waiting on the cold
        # fill from its start (connecting them one by one spreads them over seconds, and the fill,
        # from a fast origin, is then over before most of them ask).
        for _ in range(500):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
            s.settimeout(5)
            s.connect(("127.0.0.1", e.port))
            socks.append([s, 0])
        wait_for(lambda: accept_queue(e.port) == 0, 10, what="eddy to accept the 500 connections")
        t0 = time.monotonic()
        for pair in socks:
            pair[0].sendall(b"GET /n/" + name.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            pair[0].setblocking(False)

        def fast_reader():
            fast["r"] = fetch(e.port, "/n/" + name, timeout=20, total=25)
            fast["t"] = time.monotonic() - t0

        ft = threading.Thread(target=fast_reader, daemon=True)
        ft.start()
        # The slow ones each take a little (up to 64 KiB) over time, while the fast one reads it all
        # and for a while after.
        while time.monotonic() - t0 < 26 and (ft.is_alive() or time.monotonic() - t0 < 8) \
                and (ft.is_alive() or any(p[1] < 64 * 1024 for p in socks)):
            for pair in socks:
                if pair[1] < 64 * 1024:
                    try:
                        b = pair[0].recv(2048)
                        pair[1] += len(b)
                    except (BlockingIOError, InterruptedError):
                        pass
                    except OSError:
                        pair[1] = 1 << 30
            time.sleep(0.1)
        ft.join(1)
        time.sleep(0.3)  # the subject: a moment more in which the peak must stay bounded
        hwm = vm(pid, "VmHWM")
    finally:
        done.set()
        for pair in socks:
            pair[0].close()
        e.stop(timeout=20)
        st.join(2)
        os.unlink(path)
    r = fast.get("r")
    slow_bytes = sorted(p[1] for p in socks)
    peak = max(samples + [hwm])
    print("%s: peak RSS %.1f MiB (sampled %.1f, VmHWM %.1f); fast reader %s %s in %s s; slow readers got %d..%d bytes"
          % (name, peak / MiB, max(samples) / MiB, hwm / MiB, r and r["status"], r and r["outcome"],
             "%.2f" % fast["t"] if "t" in fast else "-", slow_bytes[0], slow_bytes[-1]))
    return r, expect, peak


def test_cold_object_500_slow_readers_memory(origins, tmp_path):
    results = []
    t0 = time.monotonic()
    for run in range(3):
        results.append(cold_readers_run(origins, str(tmp_path / ("run%d" % run)), "ho_cold64_%d.bin" % run, 1000 + run))
    print("peaks (MiB): %s; %.1f s in all" % (["%.1f" % (p / MiB) for _, _, p in results], time.monotonic() - t0))
    for r, expect, peak in results:
        assert r is not None and r["status"] == 200 and sha(r["body"]) == expect, "the fast reader gets the exact body"
        assert peak < 64 * MiB, "peak RSS %.1f MiB with a cold 64 MiB object" % (peak / MiB)


# ---- 11. --max-size held on disk while objects fill -----------------------------------------------

def disk_usage(root):
    """Real disk usage (allocated blocks: the data files are sparse) of all regular files under `root`,
    and of those under root/data."""
    total = data = 0
    datadir = os.path.join(root, "data") + os.sep
    for dp, _, names in os.walk(root):
        for n in names:
            try:
                st = os.lstat(os.path.join(dp, n))
            except OSError:
                continue
            if (st.st_mode & 0o170000) == 0o100000:
                total += st.st_blocks * 512
                if (dp + os.sep).startswith(datadir):
                    data += st.st_blocks * 512
    return total, data


def test_max_size_holds_on_disk_while_filling(origins, tmp_path):
    ng, fo, _ = origins
    objs = [("ho_msA.bin", 16 * MiB, 1101), ("ho_msB.bin", 64 * MiB, 1102), ("ho_msC.bin", 16 * MiB, 1103)]
    bodies = {n: sha(nginx_file(ng, n, size, seed)) for n, size, seed in objs}
    e = Eddy(str(tmp_path), ng, fo, extra=["--max-size", "32M"])
    samples = []
    done = threading.Event()
    t0 = time.monotonic()
    phase = ["start"]

    def sampler():
        while not done.is_set():
            total, data = disk_usage(e.cache)
            samples.append((time.monotonic() - t0, total, data, phase[0]))
            time.sleep(0.02)

    st = threading.Thread(target=sampler, daemon=True)
    results = {}
    try:
        st.start()
        for n, _, _ in objs:
            phase[0] = n
            results[n] = fetch(e.port, "/n/" + n, timeout=30, total=60)
        time.sleep(0.6)  # the subject: the disk watched a moment after the last fill
    finally:
        done.set()
        st.join(5)
        e.stop()
    peak = max(samples, key=lambda s: s[1])
    peak_data = max(samples, key=lambda s: s[2])
    over = [s for s in samples if s[1] > 32 * MiB]
    print("--max-size 32M, 16+64+16 MiB read through: peak on disk %d bytes (%.2f MiB) at %.2f s during %s (data files %.2f MiB); "
          "peak of data files %.2f MiB; index files up to %d KiB; %d of %d samples over 32 MiB, first at %s s"
          % (peak[1], peak[1] / MiB, peak[0], peak[3], peak[2] / MiB, peak_data[2] / MiB,
             max(s[1] - s[2] for s in samples) // 1024, len(over), len(samples), over and "%.2f" % over[0][0]))
    for n, _, _ in objs:
        assert results[n]["status"] == 200 and sha(results[n]["body"]) == bodies[n], n
    bound = 32 * MiB + BLOCK * 1 + 64 * 1024  # --max-size, one block for the one fill in flight, slack
    assert peak_data[2] <= bound, "the data files reached %.2f MiB on disk" % (peak_data[2] / MiB)
    # The SQLite index and its WAL (up to ~0.3 MiB seen) are not data: allowed 1 MiB on top.
    assert peak[1] <= bound + MiB, "the cache directory reached %.2f MiB on disk" % (peak[1] / MiB)


# ---- 12. the origin's version changes while the stored part is fresh -----------------------------

def two_versions(fo, name, size, seed):
    path = os.path.join(fo.www, name)
    make_file(path, size, seed)
    os.utime(path, (1_000_000_000, 1_000_000_000))
    with open(path, "rb") as f:
        old = f.read()
    return path, old


def replace_version(path, size, seed):
    tmp = path + ".tmp"
    make_file(tmp, size, seed)
    os.utime(tmp, (1_200_000_000, 1_200_000_000))
    os.replace(tmp, path)
    with open(path, "rb") as f:
        return f.read()


def test_version_change_under_a_fresh_partial_copy_self_heals(eddy, origins):
    _, fo, _ = origins
    size = 4 * MiB
    path, old = two_versions(fo, "ho_heal.bin", size, 1201)
    r = eddy.get("/f/ho_heal.bin", {"Range": "bytes=0-262143"})
    assert r.status == 206 and r.body == old[:BLOCK]
    new = replace_version(path, size, 1202)
    assert new[:BLOCK] != old[:BLOCK]
    full = fetch(eddy.port, "/f/ho_heal.bin", timeout=10, total=30)
    head = fetch(eddy.port, "/f/ho_heal.bin", {"Range": "bytes=0-99"}, timeout=10)
    mixed = len(full["body"]) >= BLOCK and full["body"][:BLOCK] == old[:BLOCK]
    print("version changed under a fresh first block: GET %s %s, %d of %d bytes, sha is new %s, starts with old block %s; "
          "then bytes=0-99 new %s" % (full["status"], full["outcome"], len(full["body"]), size, sha(full["body"]) == sha(new),
          mixed, head["body"] == new[:100]))
    assert full["status"] == 200 and len(full["body"]) == size, "the response must not be cut off"
    assert sha(full["body"]) == sha(new), "the whole body is the new version"
    assert head["status"] == 206 and head["body"] == new[:100]

