"""Soak: 1,000 concurrent keep-alive clients for $EDDY_SOAK_SECONDS (default 60) of mixed traffic
against one eddy: hits on small objects, cold misses, random single ranges and a few multi-range
reads of a 32 MiB object that starts partly cold, an HLS stream (rewritten playlist and segments) and
clients that leave mid-body. Every response that is not abandoned is checked byte for byte; afterwards
eddy is alive and answers, its peak RSS is bounded, its descriptors are back to where they were, and
SIGTERM stops it cleanly (exit 0).

Descriptors: eddy keeps one open per cached resource it holds in memory (CacheStore, up to 4,096), so
the data files the soak cached are counted apart: every other descriptor must be back to the baseline
(+16), and no data file may be open more than once.

The clients are asyncio tasks on raw streams, each parsing HTTP/1.1 itself. Every request has a time
limit and so has the whole soak. Figures are printed (run with -s) and recorded as junit properties.
$EDDY_SOAK_CLIENTS overrides the number of clients, $EDDY_SOAK_CLOSE_FRACTION the share of hits sent
with Connection: close (default 0.02)."""
import asyncio, collections, os, random, re, resource, shutil, subprocess, time
from conftest import MiB, Eddy, request, sha

KiB = 1024
SECONDS = float(os.environ.get("EDDY_SOAK_SECONDS", "60"))
CLIENTS = int(os.environ.get("EDDY_SOAK_CLIENTS", "1000"))
REQUEST_TIMEOUT = 30.0     # one request, head to last byte
DRAIN_TIMEOUT = 45.0       # after the soak's end, for the requests in flight
RSS_BOUND = 256 * MiB
FD_MARGIN = 16
CLOSE_FRACTION = float(os.environ.get("EDDY_SOAK_CLOSE_FRACTION", "0.02"))  # hits sent with Connection: close
FD_SETTLE = 3.0            # seconds after the last client closed before descriptors are counted

# Request mix (relative weights). A cold request with no unread file left in its time share is a hit.
MIX = [("hit", 38), ("hit-range", 10), ("cold", 8), ("range", 18), ("multirange", 3),
       ("hls-playlist", 4), ("hls-segment", 13), ("abandon", 6)]
HOT_SIZES = [16 * KiB, 16 * KiB, 64 * KiB, 64 * KiB + 1, 100 * KiB, 100 * KiB, 100 * KiB + 7, 16 * KiB + 3]
RANGE_SIZE = 32 * MiB + 4321
PREFIX = "/n/soak/"


class ProtocolError(Exception):
    pass


class StaleConnection(Exception):
    pass


def seeded(size, seed):
    return random.Random(seed).randbytes(size)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


class Corpus:
    """Everything the soak reads, made in nginx's www under soak/, with what each body must be."""

    def __init__(self, www):
        root = os.path.join(www, "soak")
        shutil.rmtree(root, ignore_errors=True)
        os.makedirs(root)
        t0 = time.monotonic()
        # Small objects, read many times (some bodies fit the memory tier, some do not).
        self.hot = []
        for i, size in enumerate(HOT_SIZES):
            body = seeded(size, 1000 + i)
            name = "hot/h%d.bin" % i
            write(os.path.join(root, name), body)
            self.hot.append((PREFIX + name, body, sha(body)))
        # Cold misses: distinct files, each first read during the soak, paced over its length.
        rnd = random.Random(7)
        self.cold = []
        for i in range(max(200, int(25 * SECONDS))):
            x = rnd.random()
            size = rnd.randint(1, 64 * KiB) if x < 0.7 else rnd.randint(64 * KiB, 512 * KiB) if x < 0.98 else rnd.randint(1 * MiB, 3 * MiB)
            body = seeded(size, 20000 + i)
            name = "cold/c%d.bin" % i
            write(os.path.join(root, name), body)
            self.cold.append((PREFIX + name, size, sha(body)))
        # One ~32 MiB object for random ranges.
        self.range_body = seeded(RANGE_SIZE, 31)
        self.range_view = memoryview(self.range_body)
        self.range_path = PREFIX + "range32.bin"
        write(os.path.join(root, "range32.bin"), self.range_body)
        # Large objects for clients that leave mid-body (the session's 256 MiB and 20 MiB files).
        self.abandon = [("/n/big.bin", os.path.join(www, "big.bin")), ("/n/medium.bin", os.path.join(www, "medium.bin")),
                        (self.range_path, os.path.join(root, "range32.bin"))]
        self.abandon = [(p, f, os.path.getsize(f)) for p, f in self.abandon]
        t1 = time.monotonic()
        # A small VOD HLS stream.
        d = os.path.join(root, "hls")
        os.makedirs(d)
        r = subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-t", "20",
                            "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-f", "hls", "-hls_time", "2",
                            "-hls_playlist_type", "vod", "-hls_segment_filename", os.path.join(d, "seg%d.ts"),
                            os.path.join(d, "index.m3u8")], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        self.playlist_path = PREFIX + "hls/index.m3u8"
        original = open(os.path.join(d, "index.m3u8"), "rb").read()
        self.playlist_original = original
        lines = original.splitlines(keepends=True)
        uris = [l.strip() for l in lines if l.strip() and not l.startswith(b"#")]
        assert len(uris) >= 8 and all(u.startswith(b"seg") for u in uris), original
        # What eddy must serve: every URI line pointing back at eddy's /n/ route, every other byte kept.
        self.playlist_expected = b"".join(PREFIX.encode() + b"hls/" + l if l.strip() and not l.startswith(b"#") else l
                                          for l in lines)
        self.segments = []
        for u in uris:
            body = open(os.path.join(d, u.decode()), "rb").read()
            self.segments.append((PREFIX + "hls/" + u.decode(), len(body), sha(body)))
        print("\nsoak corpus: %d hot, %d cold (%.1f MiB), range object %.1f MiB, %d HLS segments; files %.1f s, ffmpeg %.1f s"
              % (len(self.hot), len(self.cold), sum(c[1] for c in self.cold) / MiB, RANGE_SIZE / MiB, len(self.segments),
                 t1 - t0, time.monotonic() - t1))


def proc_kib(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fd_table(pid, cache_dir):
    """Descriptor -> kind: 'socket', 'pipe', 'anon_inode:...', 'cache-data:<path>' or the path."""
    out = {}
    d = "/proc/%d/fd" % pid
    for n in os.listdir(d):
        try:
            t = os.readlink(os.path.join(d, n))
        except OSError:
            continue
        if t.startswith("socket:"):
            t = "socket"
        elif t.startswith("pipe:"):
            t = "pipe"
        elif t.startswith(os.path.join(cache_dir, "data") + "/"):
            t = "cache-data:" + t
        out[int(n)] = t
    return out


def summarize_fds(table, base=""):
    c = collections.Counter("cache-data" if t.startswith("cache-data:") else t.replace(base, "<tmp>") if base else t
                            for t in table.values())
    return dict(c.most_common())


def parse_head(head):
    lines = head.decode("latin-1").split("\r\n")
    m = re.match(r"HTTP/1\.([01]) (\d{3})", lines[0])
    if not m:
        raise ProtocolError("bad status line %r" % lines[0][:80])
    hdrs = {}
    for l in lines[1:]:
        if not l:
            continue
        k, sep, v = l.partition(":")
        if not sep:
            raise ProtocolError("bad header line %r" % l[:80])
        k, v = k.strip().lower(), v.strip()
        hdrs[k] = hdrs[k] + ", " + v if k in hdrs else v
    return m.group(1), int(m.group(2)), hdrs


def merge(intervals):
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


class Soak:
    def __init__(self, eddy, corpus):
        self.eddy, self.c = eddy, corpus
        self.errors = []                       # (kind, what, message)
        self.counts = collections.Counter()    # kind -> responses checked (or abandoned as planned)
        self.status = collections.defaultdict(collections.Counter)  # kind -> Cache-Status word
        self.bytes_checked = 0
        self.abandoned_bytes = 0
        self.latency = collections.defaultdict(list)
        self.cold_next = 0
        self.connects = 0
        self.rss_max_kib = 0
        self.fd_max = 0
        self.start = self.end = 0.0
        kinds, weights = zip(*MIX)
        self.kinds, self.cum = kinds, [sum(weights[:i + 1]) for i in range(len(weights))]

    def error(self, kind, what, msg):
        self.errors.append((kind, what, msg))

    def take_cold(self):
        """The next unread cold file, if the time share for it has come (spreads them over the soak)."""
        share = 50 + len(self.c.cold) * (time.monotonic() - self.start) / SECONDS
        if self.cold_next < min(len(self.c.cold), share):
            self.cold_next += 1
            return self.c.cold[self.cold_next - 1]
        return None

    async def monitor(self):
        pid = self.eddy.proc.pid
        while time.monotonic() < self.end:
            if self.eddy.proc.poll() is not None:
                self.error("eddy", "process", "eddy exited with %s during the soak" % self.eddy.proc.returncode)
                self.end = time.monotonic()
                return
            try:
                self.rss_max_kib = max(self.rss_max_kib, proc_kib(pid, "VmRSS"))
                self.fd_max = max(self.fd_max, len(os.listdir("/proc/%d/fd" % pid)))
            except OSError:
                pass  # exited between the two looks: reported on the next turn
            await asyncio.sleep(0.25)

    async def run(self):
        self.start = time.monotonic()
        self.end = self.start + SECONDS
        mon = asyncio.ensure_future(self.monitor())
        clients = [Client(self, i) for i in range(CLIENTS)]
        tasks = [asyncio.ensure_future(cl.run()) for cl in clients]
        done, pending = await asyncio.wait(tasks, timeout=SECONDS + DRAIN_TIMEOUT)
        for t in pending:
            t.cancel()
        if pending:
            self.error("soak", "clients", "%d clients still busy %.0f s after the end" % (len(pending), DRAIN_TIMEOUT))
            await asyncio.wait(pending, timeout=5)
        for t in done:
            if t.exception() is not None:
                self.error("soak", "client task", "crashed: %r" % t.exception())
        for cl in clients:
            cl.drop()
        self.end = min(self.end, time.monotonic())
        await asyncio.wait_for(mon, 5)
        await asyncio.sleep(0.1)  # let the transports' close callbacks run


class Client:
    def __init__(self, soak, idx):
        self.s, self.c, self.idx = soak, soak.c, idx
        self.rnd = random.Random(idx * 7919 + 1)
        self.reader = self.writer = None
        self.used = 0
        self.hls_next = self.rnd.randrange(len(self.c.segments))
        self.what = self.kind = ""
        self.t_sent = self.t_head = self.want = None
        self.got = 0

    async def connect(self):
        self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.s.eddy.port, limit=1 << 20)
        self.used = 0
        self.s.connects += 1

    def drop(self, abort=False):
        if self.writer is not None:
            if abort:
                self.writer.transport.abort()
            else:
                self.writer.close()
        self.reader = self.writer = None

    async def send(self, path, headers=(), close=False):
        """Sends a GET; returns (version, status, headers). The body is the caller's to read."""
        if self.writer is None:
            await self.connect()
        self.what = path + "".join(" [%s: %s]" % h for h in headers)
        req = "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: eddy-soak/%d\r\n" % (path, self.idx)
        req += "".join("%s: %s\r\n" % h for h in headers) + ("Connection: close\r\n" if close else "") + "\r\n"
        reused = self.used > 0
        self.used += 1
        self.t_sent, self.t_head, self.got, self.want = time.monotonic(), None, 0, None
        self.writer.write(req.encode())
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
            self.t_head = time.monotonic()
        except asyncio.IncompleteReadError as e:
            if not e.partial and reused:
                raise StaleConnection("connection closed before any response byte (request %d on a keep-alive connection)"
                                      % self.used)
            raise ProtocolError("connection closed inside the response head after %d bytes" % len(e.partial))
        return parse_head(head)

    async def read_exactly(self, n, what):
        """n body bytes, keeping count of progress for a timeout's report."""
        parts, self.got, self.want = [], 0, n
        while self.got < n:
            chunk = await self.reader.read(min(n - self.got, 1 << 20))
            if not chunk:
                raise ProtocolError("connection closed after %d body bytes %s" % (self.got, what))
            parts.append(chunk)
            self.got += len(chunk)
        return b"".join(parts)

    async def body(self, version, status, hdrs):
        if status in (204, 304):
            return b""
        if "chunked" in hdrs.get("transfer-encoding", "").lower():
            out = []
            while True:
                line = await self.reader.readuntil(b"\r\n")
                n = int(line.split(b";")[0], 16)
                if n == 0:
                    while (await self.reader.readuntil(b"\r\n")) != b"\r\n":
                        pass
                    break
                out.append(await self.reader.readexactly(n))
                await self.reader.readexactly(2)
            data = b"".join(out)
        elif "content-length" in hdrs:
            n = int(hdrs["content-length"])
            data = await self.read_exactly(n, "of %d" % n)
        else:
            data = await self.reader.read(-1)
            self.drop()
            return data
        if version == "0" or "close" in hdrs.get("connection", "").lower():
            self.drop()
        return data

    def choose(self):
        x = self.rnd.random() * self.s.cum[-1]
        for k, c in zip(self.s.kinds, self.s.cum):
            if x < c:
                return k
        return self.s.kinds[-1]

    async def run(self):
        await asyncio.sleep(self.idx * 1.0 / CLIENTS)  # all connected within about a second
        while time.monotonic() < self.s.end:
            self.kind = self.choose()
            t0 = time.monotonic()
            self.what, self.t_sent = "", None
            try:
                await asyncio.wait_for(self.one(self.kind), REQUEST_TIMEOUT)
            except asyncio.TimeoutError:
                if self.t_sent is None:
                    why = "not even connected"
                elif self.t_head is None:
                    why = "no response head (request %d on its connection)" % self.used
                else:
                    why = "head after %.1f s, then %d of %s body bytes" % (self.t_head - self.t_sent, self.got, self.want)
                self.s.error(self.kind, self.what, "no complete response within %.0f s: %s" % (REQUEST_TIMEOUT, why))
                self.drop(abort=True)
                continue
            except (ProtocolError, StaleConnection, ConnectionError, OSError, asyncio.IncompleteReadError,
                    asyncio.LimitOverrunError, ValueError) as e:
                self.s.error(self.kind, self.what, "%s: %s" % (type(e).__name__, e))
                self.drop(abort=True)
                continue
            self.s.latency[self.kind].append(time.monotonic() - t0)
        self.drop()

    def note(self, kind, hdrs, nbytes):
        self.s.counts[kind] += 1
        self.s.bytes_checked += nbytes
        cs = hdrs.get("cache-status", "")
        m = re.search(r"; *(hit|fwd=[\w-]+)", cs)
        self.s.status[kind][m.group(1) if m else cs or "none"] += 1

    @staticmethod
    def bad(status, expected, hdrs, body):
        return "status %d, expected %d (Cache-Status %r, body %r)" % (status, expected, hdrs.get("cache-status"),
                                                                       bytes(body[:120]) if status >= 300 else b"...")

    def check(self, kind, cond, msg):
        if not cond:
            self.s.error(kind, self.what, msg)
        return cond

    async def one(self, kind):
        if kind == "cold":
            cold = self.s.take_cold()
            if cold is not None:
                return await self.cold(cold)
            self.kind = kind = "hit"
        await getattr(self, kind.replace("-", "_"))()

    async def hit(self):
        path, body, digest = self.rnd.choice(self.c.hot)
        close = self.rnd.random() < CLOSE_FRACTION
        v, st, h = await self.send(path, close=close)
        data = await self.body(v, st, h)
        if close:
            self.drop()
        if self.check("hit", st == 200, self.bad(st, 200, h, data)) and \
                self.check("hit", sha(data) == digest, "wrong body: %d bytes, sha256 %s, expected %d bytes" % (len(data), sha(data)[:16], len(body))):
            self.check("hit", h.get("cache-status", "").startswith("eddy; hit"),
                       "warm object not a hit: Cache-Status %r" % h.get("cache-status"))
            self.note("hit", h, len(data))

    async def hit_range(self):
        path, body, _ = self.rnd.choice(self.c.hot)
        a = self.rnd.randrange(len(body))
        b = min(len(body) - 1, a + self.rnd.randint(0, 20 * KiB))
        v, st, h = await self.send(path, [("Range", "bytes=%d-%d" % (a, b))])
        data = await self.body(v, st, h)
        if self.check("hit-range", st == 206, self.bad(st, 206, h, data)) and \
                self.check("hit-range", h.get("content-range") == "bytes %d-%d/%d" % (a, b, len(body)),
                           "Content-Range %r" % h.get("content-range")) and \
                self.check("hit-range", data == body[a:b + 1], "wrong bytes (%d received, %d expected)" % (len(data), b - a + 1)):
            self.note("hit-range", h, len(data))

    async def cold(self, cold):
        path, size, digest = cold
        v, st, h = await self.send(path)
        data = await self.body(v, st, h)
        if self.check("cold", st == 200, self.bad(st, 200, h, data)) and \
                self.check("cold", len(data) == size and sha(data) == digest,
                           "wrong body: %d bytes, expected %d (sha256 %s)" % (len(data), size, "ok" if sha(data) == digest else "differs")):
            self.check("cold", not h.get("cache-status", "").startswith("eddy; hit"),
                       "first read of an object never fetched before answered as a hit: %r" % h.get("cache-status"))
            self.note("cold", h, len(data))

    async def range(self):
        size, x = RANGE_SIZE, self.rnd.random()
        if x < 0.8:
            if self.rnd.random() < 0.03:  # a few past the end: clamped to it
                a = size - int(2 ** self.rnd.uniform(0, 21))
                asked = a + int(2 ** self.rnd.uniform(21, 24))
            else:
                a = self.rnd.randrange(size)
                asked = a + int(2 ** self.rnd.uniform(0, 21)) - 1
            spec, b = "%d-%d" % (a, asked), min(asked, size - 1)
        elif x < 0.9:
            a = size - self.rnd.randint(1, 2 * MiB)
            b, spec = size - 1, "%d-" % a
        else:
            n = self.rnd.randint(1, 2 * MiB)
            a, b, spec = size - n, size - 1, "-%d" % n
        v, st, h = await self.send(self.c.range_path, [("Range", "bytes=" + spec)])
        data = await self.body(v, st, h)
        if self.check("range", st == 206, self.bad(st, 206, h, data)) and \
                self.check("range", h.get("content-range") == "bytes %d-%d/%d" % (a, b, size),
                           "Content-Range %r, expected bytes %d-%d/%d" % (h.get("content-range"), a, b, size)) and \
                self.check("range", len(data) == b - a + 1 and self.c.range_view[a:b + 1] == data,
                           "wrong bytes: %d received, %d expected, %s" % (len(data), b - a + 1, first_diff(data, self.c.range_view[a:b + 1]))):
            self.note("range", h, len(data))

    async def multirange(self):
        size, k = RANGE_SIZE, self.rnd.randint(2, 5)
        starts = sorted(self.rnd.sample(range(0, size - 300 * KiB, 4 * KiB), k))
        ranges = []
        for s in starts:
            a = s + self.rnd.randrange(4 * KiB)
            b = a + self.rnd.randint(1, 256 * KiB) - 1
            if ranges and a <= ranges[-1][1] + 4 * KiB:
                continue  # keep gaps wide enough that coalescing them would not be expected
            ranges.append((a, b))
        if len(ranges) < 2:
            return await self.range()
        v, st, h = await self.send(self.c.range_path, [("Range", "bytes=" + ",".join("%d-%d" % r for r in ranges))])
        body = await self.body(v, st, h)
        kind = "multirange"
        if not self.check(kind, st == 206, self.bad(st, 206, h, body)):
            return
        m = re.match(r'multipart/byteranges;\s*boundary="?([^";]+)"?', h.get("content-type", ""))
        if not self.check(kind, m is not None, "Content-Type %r" % h.get("content-type")):
            return
        delim = b"--" + m.group(1).encode()
        pos, parts = 0, []
        while True:
            i = body.find(delim, pos)
            if not self.check(kind, i >= 0, "multipart body: no delimiter after byte %d" % pos):
                return
            j = i + len(delim)
            if body[j:j + 2] == b"--":
                break
            e = body.find(b"\r\n\r\n", j)
            cr = re.search(rb"(?i)content-range:\s*bytes (\d+)-(\d+)/(\d+)", body[j:e])
            if not self.check(kind, e > 0 and cr is not None, "part %d without Content-Range" % len(parts)):
                return
            a, b, n = (int(g) for g in cr.groups())
            data = body[e + 4:e + 4 + b - a + 1]
            if not self.check(kind, n == size and b < size and len(data) == b - a + 1 and self.c.range_view[a:b + 1] == data,
                              "part bytes %d-%d/%d wrong (%s)" % (a, b, n, first_diff(data, self.c.range_view[a:b + 1]))):
                return
            parts.append((a, b))
            pos = e + 4 + b - a + 1
        got, want = merge(parts), merge(ranges)
        covered = all(any(ga <= a and b <= gb for ga, gb in got) for a, b in want)
        if self.check(kind, len(parts) >= 1 and covered, "parts %s do not cover the ranges asked for %s" % (parts, ranges)):
            self.note(kind, h, sum(b - a + 1 for a, b in parts))

    async def hls_playlist(self):
        v, st, h = await self.send(self.c.playlist_path)
        data = await self.body(v, st, h)
        kind = "hls-playlist"
        if not self.check(kind, st == 200, self.bad(st, 200, h, data)):
            return
        uris = [l.strip() for l in data.splitlines() if l.strip() and not l.startswith(b"#")]
        bad = [u for u in uris if not u.startswith(PREFIX.encode() + b"hls/seg")]
        if self.check(kind, uris and not bad, "segment lines not rewritten to eddy's /n/ route: %r" % (bad or data[:200])) and \
                self.check(kind, data == self.c.playlist_expected, "rewritten playlist differs from the original beyond its URIs: %s"
                           % first_diff(data, self.c.playlist_expected)):
            self.note(kind, h, len(data))

    async def hls_segment(self):
        path, size, digest = self.c.segments[self.hls_next]
        self.hls_next = (self.hls_next + 1) % len(self.c.segments)  # a player plays on
        v, st, h = await self.send(path)
        data = await self.body(v, st, h)
        if self.check("hls-segment", st == 200, self.bad(st, 200, h, data)) and \
                self.check("hls-segment", sha(data) == digest, "wrong body: %d bytes, expected %d" % (len(data), size)):
            self.note("hls-segment", h, len(data))

    async def abandon(self):
        path, fspath, size = self.rnd.choice(self.c.abandon)
        if self.rnd.random() < 0.5:
            a, headers, want = 0, [], (200, None)
        else:
            a = self.rnd.randrange(size - 5 * MiB)
            headers, want = [("Range", "bytes=%d-" % a)], (206, "bytes %d-%d/%d" % (a, size - 1, size))
        v, st, h = await self.send(path, headers)
        kind = "abandon"
        if not (st == want[0] and (want[1] is None or h.get("content-range") == want[1])):
            n = int(h.get("content-length", "-1"))
            data = await self.read_exactly(n, "of %d" % n) if 0 <= n <= 4096 else b""
            self.check(kind, False, "status %d Content-Range %r, expected %s (Cache-Status %r, body %r)"
                       % (st, h.get("content-range"), want, h.get("cache-status"), data[:120]))
            self.drop(abort=True)
            return
        k = int(2 ** self.rnd.uniform(10, 21))
        got = await self.read_exactly(k, "of a %d-byte response the client meant to read %d of" % (size - a, k))
        # Not a body check (the response is left unfinished), but the bytes read must be the file's.
        with open(fspath, "rb") as f:
            f.seek(a)
            expect = f.read(k)
        self.check(kind, got == expect, "the first %d bytes from %d are wrong (%s)" % (k, a, first_diff(got, expect)))
        self.drop(abort=self.rnd.random() < 0.5)
        self.s.counts[kind] += 1
        self.s.abandoned_bytes += k


def first_diff(a, b):
    a, b = bytes(a), bytes(b)
    n = min(len(a), len(b))
    for c in range(0, n, 4096):
        if a[c:c + 4096] != b[c:c + 4096]:
            i = next(i for i in range(c, min(n, c + 4096)) if a[i] != b[i])
            return "first difference at byte %d" % i
    return "lengths %d and %d" % (len(a), len(b)) if len(a) != len(b) else "equal"


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else 0.0


def test_soak_1000_clients_mixed_traffic(origins, tmp_path, record_property):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    ng, fo, _ = origins
    t_setup = time.monotonic()
    corpus = Corpus(ng.www)
    e = Eddy(str(tmp_path), ng, fo)
    try:
        pid = e.proc.pid
        # Warm up: the small objects become hits; parts of the range object (its first 4 MiB, 16-20 MiB)
        # are cached, the rest starts cold. Concurrent, so curl's upstream connections are open too.
        soak = Soak(e, corpus)

        async def warm():
            async def get(i, path, headers=()):
                cl = Client(soak, i)
                v, st, h = await cl.send(path, headers)
                data = await cl.body(v, st, h)
                cl.drop()
                return path, headers, st, data
            jobs = [get(i, p) for i, (p, _, _) in enumerate(corpus.hot)]
            jobs += [get(100 + o, corpus.range_path, [("Range", "bytes=%d-%d" % (o, o + MiB - 1))])
                     for o in list(range(0, 4 * MiB, MiB)) + list(range(16 * MiB, 20 * MiB, MiB))]
            out = await asyncio.wait_for(asyncio.gather(*jobs), 30)
            out += await asyncio.wait_for(asyncio.gather(*[get(i, p) for i, (p, _, _) in enumerate(corpus.hot)]), 30)
            return out
        warmed = asyncio.run(warm())
        hot = {p: b for p, b, _ in corpus.hot}
        wrong = [(p, hd, st) for p, hd, st, d in warmed
                 if not (st == 200 and d == hot.get(p) or st == 206 and d == corpus.range_body[int(hd[0][1][6:].split("-")[0]):][:MiB])]
        assert not wrong, wrong
        time.sleep(1.5)  # index commit, closes settle
        assert e.proc.poll() is None, "eddy exited with %s during the warm-up: %s" % (
            e.proc.returncode, [l for l in open(e.errpath, errors="replace") if "crashed" in l or "Assertion" in l][:2])
        fd_before = fd_table(pid, e.cache)
        rss_before = proc_kib(pid, "VmRSS")
        log_mark = len(ng.requests())
        print("setup %.1f s; eddy pid %d: %d descriptors before the soak %s, RSS %.1f MiB"
              % (time.monotonic() - t_setup, pid, len(fd_before), summarize_fds(fd_before, str(tmp_path)), rss_before / 1024))

        t0, cpu0, own0 = time.monotonic(), cpu_seconds(pid), time.process_time()
        asyncio.run(asyncio.wait_for(soak.run(), SECONDS + DRAIN_TIMEOUT + 20))
        elapsed = time.monotonic() - t0
        cpu = (cpu_seconds(pid) - cpu0 if e.proc.poll() is None else float("nan"), time.process_time() - own0)

        problems = []
        # Descriptors, once every client has closed and a moment has passed.
        deadline = time.monotonic() + FD_SETTLE
        time.sleep(1.0)
        fd_after = fd_table(pid, e.cache) if e.proc.poll() is None else {}
        while time.monotonic() < deadline:
            time.sleep(0.25)
            fd_after = fd_table(pid, e.cache) if e.proc.poll() is None else {}
        hwm = proc_kib(pid, "VmHWM") if e.proc.poll() is None else 0
        metrics = {}
        if e.proc.poll() is None:
            for line in request(e.admin, "/metrics", timeout=10).body.decode().splitlines():
                parts = line.split()
                if len(parts) == 2 and not line.startswith("#"):
                    metrics[parts[0]] = float(parts[1])
        origin_sent = sum(r[1] for r in ng.requests()[log_mark:])
        alive = e.proc.poll() is None
        after_check = None
        if alive:
            path, body, digest = corpus.hot[0]
            r = request(e.port, path, timeout=10)
            after_check = (r.status, sha(r.body) == digest)
            rr = request(e.port, corpus.range_path, {"Range": "bytes=1000-200999"}, timeout=20)
            after_check += (rr.status, rr.body == corpus.range_body[1000:201000])

        total = sum(soak.counts.values())
        print("soak: %d clients, %.0f s (%.1f s with drain), %d requests done (%.0f/s), %d connections opened, "
              "%.1f MiB of bodies checked, %.1f MiB read by clients that left"
              % (CLIENTS, SECONDS, elapsed, total + len(soak.errors), (total + len(soak.errors)) / elapsed, soak.connects,
                 soak.bytes_checked / MiB, soak.abandoned_bytes / MiB))
        print("CPU during the soak: eddy %.1f s, test clients %.1f s" % cpu)
        for kind, _ in MIX:
            lat = soak.latency.get(kind, [])
            print("  %-13s %7d ok  %5d errors  p50 %6.3f s  p99 %6.3f s  max %6.3f s  %s"
                  % (kind, soak.counts[kind], sum(1 for x in soak.errors if x[0] == kind), pct(lat, 0.5), pct(lat, 0.99),
                     max(lat) if lat else 0, dict(soak.status[kind])))
        print("  cold files read: %d of %d" % (soak.cold_next, len(corpus.cold)))
        print("origin: nginx sent %.1f MiB during the soak; eddy: %.1f MiB from origin, %d upstream fetches, %d failures, "
              "%d resumes, %.1f MiB cached, %d connections shed, %d accept failures"
              % (origin_sent / MiB, metrics.get("eddy_bytes_from_origin_total", 0) / MiB, metrics.get("eddy_upstream_fetches_total", 0),
                 metrics.get("eddy_upstream_failures_total", 0), metrics.get("eddy_upstream_resumes_total", 0),
                 metrics.get("eddy_cache_bytes", 0) / MiB, metrics.get("eddy_connections_shed_total", 0),
                 metrics.get("eddy_accept_failures_total", 0)))
        print("eddy peak RSS (VmHWM) %.1f MiB, highest RSS sampled %.1f MiB, most descriptors sampled %d"
              % (hwm / 1024, soak.rss_max_kib / 1024, soak.fd_max))
        print("descriptors: %d before, %d after (%s)" % (len(fd_before), len(fd_after), summarize_fds(fd_after, str(tmp_path))))
        record_property("soak_requests", total)
        record_property("soak_errors", len(soak.errors))
        record_property("soak_bytes_checked", soak.bytes_checked)
        record_property("peak_rss_mib", round(hwm / 1024, 1))
        record_property("fd_before", len(fd_before))
        record_property("fd_after", len(fd_after))

        if not alive:
            problems.append("eddy is not running after the soak (exit status %s): %s" % (e.proc.returncode, [
                l.strip() for l in open(e.errpath, errors="replace") if re.search(r"crashed|Assertion|corrupted|Fatal error", l)][:2]))
        if soak.errors:
            by = collections.Counter((k, re.sub(r"\d+", "N", m)) for k, _, m in soak.errors)
            print("%d errors; by kind and message:" % len(soak.errors))
            for (k, m), n in by.most_common(12):
                print("  %6d  %-13s %s" % (n, k, m))
            print("first errors:")
            for k, w, m in soak.errors[:10]:
                print("  %s %s: %s" % (k, w, m))
            problems.append("%d request errors, first: %s" % (len(soak.errors), soak.errors[:3]))
        for kind in ("hit", "hit-range", "cold", "range", "multirange", "hls-playlist", "hls-segment", "abandon"):
            if soak.counts[kind] == 0:
                problems.append("no %s request completed" % kind)
        if alive and after_check != (200, True, 206, True):
            problems.append("eddy answers wrongly after the soak: %s" % (after_check,))
        if hwm * 1024 >= RSS_BOUND:
            problems.append("peak RSS %.1f MiB, bound %d MiB" % (hwm / 1024, RSS_BOUND // MiB))
        # Descriptors: everything but the cache's data files must be back to the baseline. Each cached
        # resource held in memory keeps its data file open (CacheStore: up to 4,096 resident), so those
        # grow with the objects the soak cached: at most one descriptor per data file, none for others.
        other_before = [t for t in fd_before.values() if not t.startswith("cache-data:")]
        other_after = [t for t in fd_after.values() if not t.startswith("cache-data:")]
        data_after = collections.Counter(t for t in fd_after.values() if t.startswith("cache-data:"))
        resources = len(corpus.hot) + soak.cold_next + len(corpus.segments) + 8  # + playlist, range, big, medium, slack
        print("descriptors other than cache data files: %d before, %d after; cache data files open: %d before, %d after "
              "(resources touched about %d)" % (len(other_before), len(other_after), len(fd_before) - len(other_before),
                                               sum(data_after.values()), resources))
        if alive and len(other_after) > len(other_before) + FD_MARGIN:
            problems.append("descriptors not back to baseline: %d other than cache files before, %d after (%s)"
                            % (len(other_before), len(other_after), dict(collections.Counter(other_after).most_common(6))))
        dup = [p for p, n in data_after.items() if n > 1]
        if dup or sum(data_after.values()) > resources:
            problems.append("cache data files held open: %d descriptors, %d files open more than once (%s), about %d resources"
                            % (sum(data_after.values()), len(dup), dup[:3], resources))
        # The warm small objects cost the origin nothing during the soak.
        hot_uris = {p[len("/n"):] for p, _, _ in corpus.hot}
        refetched = [r for r in ng.requests()[log_mark:] if r[3] in hot_uris]
        if refetched:
            problems.append("warm small objects fetched from the origin again during the soak: %d requests, e.g. %s"
                            % (len(refetched), refetched[:3]))
        errlog = open(e.errpath, errors="replace").read().splitlines()
        notable = [l for l in errlog if re.search(r"(?i)error|fatal|warn|crash", l)]
        print("eddy stderr: %d lines, %d with error/warning%s" % (len(errlog), len(notable),
                                                                  "".join("\n  " + l[:200] for l in notable[:5])))
        # SIGTERM after the soak: a clean drain and exit 0.
        if alive:
            code = e.stop()
            print("eddy exit status after SIGTERM: %s" % code)
            if code != 0:
                why = [l for l in open(e.errpath, errors="replace").read().splitlines()
                       if re.search(r"Assertion|corrupted|Fatal error|crashed|\[err\]|double free", l)]
                problems.append("eddy exited with %s on SIGTERM after the soak: %s" % (code, why[:3]))
        assert not problems, "\n".join(problems)
    finally:
        e.stop()
