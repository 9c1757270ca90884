"""Fixtures for eddy's scenario tests: a real nginx origin, the fault-injecting origin, and the real
eddy binary, each on a free loopback port, each stopped by pid at the end."""
import hashlib, http.client, json, os, random, re, shutil, signal, socket, subprocess, sys, time
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
EDDY = os.environ.get("EDDY_BIN", os.path.join(ROOT, ".build", "debug", "eddy"))
# EDDY_TEST_WORKERS=N runs every eddy the fixtures start with N event loops (scripts/test runs
# the loop-sharing scenarios that way too); a test that passes --workers itself keeps its own.
TEST_WORKERS = os.environ.get("EDDY_TEST_WORKERS")
MiB = 1 << 20


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_free(port):
    """True when `port` on loopback can be bound as eddy binds it (SO_REUSEADDR: a connection of an
    earlier test in TIME_WAIT does not count)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        s.bind(("127.0.0.1", port))
        return True
    except OSError:
        return False
    finally:
        s.close()


def wait_for(predicate, timeout, interval=0.05, what=None):
    """Calls `predicate` every `interval` seconds until it returns something truthy, and returns
    that: a test waits for the state it needs (a job completed, a line logged, a count published)
    instead of sleeping for a guessed time. After `timeout` seconds (the predicate is asked once
    more then) it raises AssertionError naming `what` it waited for (a string, or a function
    giving one then) and the predicate's last value. Exceptions from the predicate propagate."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            if callable(what):
                what = what()
            raise AssertionError("waited %.1f s for %s; last value: %r" % (timeout, what or predicate, value))
        time.sleep(interval)


def wait_port(port, proc=None, timeout=15):
    def listening():
        if proc is not None and proc.poll() is not None:
            raise RuntimeError("process exited with %s" % proc.returncode)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            return False
    wait_for(listening, timeout, what="port %d to accept connections" % port)


def stop_process(proc, timeout=10):
    """SIGTERM by pid, then SIGKILL if it has not exited within `timeout` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def play(url):
    """ffmpeg copies every stream and mpv plays 3 s of the HLS asset at `url` (decoded as fast as it
    can), both without an error, within 30 s."""
    t = time.monotonic()
    r = subprocess.run(["ffmpeg", "-v", "error", "-i", url, "-map", "0", "-c", "copy", "-f", "null", "-"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # As fast as it decodes, not at the wall clock's pace (3 s each time, about 40 plays a session):
    # the same 3 s fetched, demuxed and decoded, and the same exit status.
    r = subprocess.run(["mpv", "--no-config", "--vo=null", "--ao=null", "--untimed", "--ao-null-untimed", "--length=3",
                        "--really-quiet", url],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - t < 30


def tree(folder):
    """{relative path: bytes} of every file under `folder`."""
    out = {}
    for root, _, names in os.walk(folder):
        for n in names:
            out[os.path.relpath(os.path.join(root, n), folder)] = open(os.path.join(root, n), "rb").read()
    return out


def proc_status(pid, field):
    """A /proc/PID/status figure in bytes (VmHWM, VmRSS)."""
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise KeyError(field)


def tcp_sockets():
    """The machine's IPv4 TCP sockets, from one read of /proc/net/tcp: (local port, remote port,
    state, tx_queue, rx_queue) each. State 0A is listening; there rx_queue is the accept queue,
    elsewhere the bytes unread, and tx_queue the bytes unsent or unacknowledged."""
    out = []
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            tx, rx = fields[4].split(":")
            out.append((int(fields[1].split(":")[1], 16), int(fields[2].split(":")[1], 16), fields[3], int(tx, 16), int(rx, 16)))
    return out


def sha(b):
    return hashlib.sha256(b).hexdigest()


def stream_in_background(port, path):
    """GETs `path` on a thread that reads the body as it arrives (a long response a test acts
    during); returns the thread and a dict that gets status, bytes and sha when the body ends."""
    import http.client, threading
    got = {}

    def run():
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        c.request("GET", path)
        r = c.getresponse()
        h, n = hashlib.sha256(), 0
        while True:
            chunk = r.read(1 << 16)
            if not chunk:
                break
            h.update(chunk)
            n += len(chunk)
        got.update(status=r.status, bytes=n, sha=h.hexdigest())
        c.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, got


def make_file(path, size, seed):
    rnd = random.Random(seed)
    with open(path, "wb") as f:
        left = size
        while left:
            n = min(left, 4 * MiB)
            f.write(rnd.randbytes(n))
            left -= n


class Response:
    def __init__(self, status, headers, body, ttfb):
        self.status, self.headers, self.body, self.ttfb = status, headers, body, ttfb

    def h(self, name):
        return self.headers.get(name.lower())


def request(port, path, headers=None, method="GET", timeout=60, host="127.0.0.1"):
    """One request on a new connection; returns status, lower-cased headers, body and time to first body byte."""
    c = http.client.HTTPConnection(host, port, timeout=timeout)
    t0 = time.monotonic()
    c.request(method, path, headers=headers or {})
    r = c.getresponse()
    first = r.read(1) if method != "HEAD" else b""
    ttfb = time.monotonic() - t0
    body = first + r.read()
    hdrs = {k.lower(): v for k, v in r.getheaders()}
    c.close()
    # http.client's read(1) returns b"" without a word when the connection closes before the
    # first body byte: a response cut off after its head would pass as an empty body.
    expected = int(hdrs["content-length"]) if "content-length" in hdrs and not r.chunked else None
    if method != "HEAD" and r.status not in (204, 304) and expected is not None and len(body) != expected:
        raise http.client.IncompleteRead(body, expected - len(body))
    return Response(r.status, hdrs, body, ttfb)


def raw_exchange(port, data, timeout=5):
    """Sends raw bytes on a new connection and reads until eddy closes it (or `timeout` passes
    with nothing more); returns the bytes and the seconds it took."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    t0, got = time.monotonic(), b""
    try:
        s.sendall(data)
        while True:
            d = s.recv(65536)
            if not d:
                break
            got += d
    except (socket.timeout, ConnectionError):
        pass
    finally:
        s.close()
    return got, time.monotonic() - t0


def read_head(s):
    """Reads from socket `s` until a response head is whole: (head, the body bytes read past it)."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(65536)
        assert d, "the connection ended before the head: %r" % buf[:200]
        buf += d
    return buf.split(b"\r\n\r\n", 1)


def open_body(port, path, headers=None):
    """A player mid-body: the head and the first 64 KiB read, the rest left in the socket (eddy's
    queue and the kernel's buffers hold far less than a body of several MiB), so the response is
    still in flight. Returns (connection, response, first bytes); read the rest with `response.read()`."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.request("GET", path, headers=headers or {})
    r = c.getresponse()
    return c, r, r.read(65536)


class Nginx:
    """nginx from Debian as the origin; body bytes counted from its access log."""

    def __init__(self, base):
        self.dir = os.path.join(base, "nginx")
        self.www = os.path.join(self.dir, "www")
        os.makedirs(self.www, exist_ok=True)
        self.port = free_port()
        self.log = os.path.join(self.dir, "access.log")
        conf = os.path.join(self.dir, "nginx.conf")
        with open(conf, "w") as f:
            f.write(f"""
daemon off; user root; worker_processes 1; pid {self.dir}/nginx.pid; error_log {self.dir}/error.log;
events {{ worker_connections 1024; }}
http {{
  types {{ video/mp4 mp4; application/octet-stream bin; application/vnd.apple.mpegurl m3u8; video/mp2t ts;
           text/vtt vtt; video/iso.segment m4s; text/html html; }}
  log_format bytes '$status $body_bytes_sent "$http_via" $request_uri';
  access_log {self.log} bytes;
  client_body_temp_path {self.dir}/tmp; proxy_temp_path {self.dir}/tmp; fastcgi_temp_path {self.dir}/tmp;
  uwsgi_temp_path {self.dir}/tmp; scgi_temp_path {self.dir}/tmp;
  server {{
    listen 127.0.0.1:{self.port};
    root {self.www};
    expires 1h;  # an explicit lifetime: eddy's default for responses without one is 0 (RFC 9111 s4.2.2)
    location /slow/ {{ alias {self.www}/; limit_rate 5m; }}
    location /nocache/ {{ alias {self.www}/; add_header Cache-Control no-store; }}
  }}
}}
""")
        os.makedirs(os.path.join(self.dir, "tmp"), exist_ok=True)
        self.proc = subprocess.Popen(["nginx", "-c", conf, "-p", self.dir], stderr=subprocess.DEVNULL)
        wait_port(self.port, self.proc)

    def requests(self):
        """(status, body bytes, Via, request URI) for every request nginx answered so far."""
        out = []
        with open(self.log) as f:
            for line in f:
                m = re.match(r'(\d+) (\d+) "([^"]*)" (.*)$', line.rstrip("\n"))
                if m:
                    out.append((int(m.group(1)), int(m.group(2)), m.group(3), m.group(4)))
        return out

    def bytes_sent(self):
        return sum(r[1] for r in self.requests())

    def stop(self):
        stop_process(self.proc)


class FaultOrigin:
    def __init__(self, base, args=(), port=None):
        """`port`: the port of an origin stopped before (the same origin back again)."""
        self.www = os.path.join(base, "fault")
        os.makedirs(self.www, exist_ok=True)
        self.port = port or free_port()
        self.err = open(os.path.join(base, "fault.log"), "a")
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "fault_origin.py"), "--port", str(self.port),
                                      "--root", self.www, *args], stderr=self.err)
        wait_port(self.port, self.proc)

    def stats(self):
        return json.loads(request(self.port, "/_stats").body)

    def reset(self):
        request(self.port, "/_reset")

    def stop(self):
        stop_process(self.proc)
        self.err.close()


class Eddy:
    """The real eddy binary with its own cache directory."""

    def __init__(self, base, nginx, fault, extra=(), port=None):
        """`port`: listen there (a cluster's nodes name each other before they start)."""
        self.cache = os.path.join(base, "cache")
        self.base = base
        self.fixed_port = port
        self.nginx, self.fault = nginx, fault
        self.extra = list(extra)
        self.proc = None
        self.start()

    def start(self):
        # A port free_port() found can be taken (as a client's ephemeral port) before eddy binds
        # it; eddy then exits with "Address already in use". Only that race is retried.
        for attempt in range(3):
            try:
                return self._start_once()
            except RuntimeError as e:
                if attempt == 2 or "Address already in use" not in str(e):
                    raise

    def _start_once(self):
        self.port = self.fixed_port or free_port()
        self.admin = free_port()
        while self.admin == self.port:
            self.admin = free_port()
        self.logpath = os.path.join(self.base, "eddy-access.log")
        self.errpath = os.path.join(self.base, "eddy.err")
        # Lines an eddy before this one wrote (access_log counts this one's).
        self.log_lines_before = open(self.logpath).read().count("\n") if os.path.exists(self.logpath) else 0
        args = [EDDY, "serve", "--listen", f"127.0.0.1:{self.port}", "--cache-dir", self.cache,
                "--origin", f"/n/=http://127.0.0.1:{self.nginx.port}", "--origin", f"/f/=http://127.0.0.1:{self.fault.port}",
                "--access-log", self.logpath, "--admin", f"127.0.0.1:{self.admin}"] + self.extra
        if TEST_WORKERS and "--workers" not in self.extra:
            args += ["--workers", TEST_WORKERS]
        self.err = open(self.errpath, "a")
        # A crash names its frames in eddy.err (the Swift runtime's backtracer).
        env = dict(os.environ, SWIFT_BACKTRACE="enable=yes,limit=none,sanitize=no")
        self.proc = subprocess.Popen(args, stderr=self.err, preexec_fn=self.preexec, env=env)
        try:
            wait_port(self.port, self.proc)
            # The admin listener is bound just after the main one: a test's first admin request
            # could otherwise be refused.
            wait_port(self.admin, self.proc)
        except RuntimeError as e:
            self.err.close()
            tail = open(self.errpath, errors="replace").read()[-2000:]
            raise RuntimeError("%s; eddy.err ends: %s" % (e, tail)) from None
        except AssertionError:  # wait_port's timeout
            stop_process(self.proc)
            raise

    # Runs in the child before exec (e.g. to set resource limits); None for none.
    preexec = None

    def access_log(self):
        """The access log's text once it holds a line for every request this eddy counted (it
        writes them at each periodic flush, every 0.5 s, and at exit)."""
        def written():
            if self.proc.poll() is not None:
                return True  # it flushed at exit
            lines = open(self.logpath).read().count("\n") - self.log_lines_before
            return lines >= self.metrics()["eddy_requests_total"]
        wait_for(written, 10, what="an access log line for every request eddy counted")
        return open(self.logpath).read()

    def answered(self):
        """(path, status) of every request in the access log (combined format), in order."""
        out = []
        for l in self.access_log().splitlines():
            p = l.split('"')
            if len(p) >= 3:
                out.append((p[1].split()[1], int(p[2].split()[0])))
        return out

    def stop(self, sig=signal.SIGTERM, timeout=40):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.err.close()
        return self.proc.returncode

    def get(self, path, headers=None, method="GET", timeout=60):
        return request(self.port, path, headers, method, timeout)

    def fills(self):
        """The fills in flight (the admin API's /api/fills)."""
        return json.loads(request(self.admin, "/api/fills").body)["fills"]

    def metrics(self):
        out = {}
        for line in request(self.admin, "/metrics").body.decode().splitlines():
            if line and not line.startswith("#"):
                k, v = line.split()
                out[k] = int(v) if v.isdigit() else float(v)  # histogram sums are fractions
        return out


@pytest.fixture(scope="session")
def origins(tmp_path_factory):
    base = str(tmp_path_factory.mktemp("origins"))
    ng = Nginx(base)
    fo = FaultOrigin(base)
    files = {"small.bin": (100 * 1024 + 7, 1), "medium.bin": (20 * MiB + 12345, 2), "big.bin": (256 * MiB, 3)}
    data = {}
    for name, (size, seed) in files.items():
        make_file(os.path.join(ng.www, name), size, seed)
        os.link(os.path.join(ng.www, name), os.path.join(fo.www, name))
    for name in files:
        with open(os.path.join(ng.www, name), "rb") as f:
            data[name] = f.read() if files[name][0] <= 32 * MiB else None
    yield ng, fo, data
    ng.stop()
    fo.stop()


@pytest.fixture
def eddy(origins, tmp_path):
    ng, fo, _ = origins
    e = Eddy(str(tmp_path), ng, fo)
    yield e
    e.stop()


@pytest.fixture(scope="module")
def tls_origin(origins, tmp_path_factory):
    ng, _, data = origins
    d = str(tmp_path_factory.mktemp("tls"))
    def run(*a):
        subprocess.run(a, check=True, capture_output=True, cwd=d, timeout=60)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
        "-days", "2", "-subj", "/CN=eddy test CA")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=localhost")
    open(os.path.join(d, "ext.cnf"), "w").write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "srv.pem", "-days", "2", "-extfile", "ext.cnf")
    port = free_port()
    conf = os.path.join(d, "nginx.conf")
    open(conf, "w").write(f"""
daemon off; user root; worker_processes 1; pid {d}/nginx.pid; error_log {d}/error.log;
events {{ worker_connections 64; }}
http {{
  log_format proto '$request_uri $server_protocol $status $body_bytes_sent $connection';
  access_log {d}/access.log proto;
  client_body_temp_path {d}; proxy_temp_path {d}; fastcgi_temp_path {d}; uwsgi_temp_path {d}; scgi_temp_path {d};
  server {{
    listen 127.0.0.1:{port} ssl http2;
    ssl_certificate {d}/srv.pem; ssl_certificate_key {d}/srv.key;
    root {ng.www};
  }}
}}
""")
    proc = subprocess.Popen(["nginx", "-c", conf, "-p", d], stderr=subprocess.DEVNULL)
    wait_port(port, proc)
    yield port, os.path.join(d, "ca.pem"), os.path.join(d, "access.log"), data
    proc.terminate()
    proc.wait(10)


def read_range(path, start, end):
    with open(path, "rb") as f:
        f.seek(start)
        return f.read(end - start + 1)


def ff(*args, timeout=120):
    return subprocess.run(["ffmpeg", "-v", "error", "-y", *args], capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def streams(origins):
    ng = origins[0]
    base = os.path.join(ng.www, "hls")
    if os.path.exists(os.path.join(base, "done")):
        return base
    shutil.rmtree(base, ignore_errors=True)
    # 1. Multi-variant fMP4: two video variants, English and French audio, WebVTT subtitles.
    d = os.path.join(base, "fmp4")
    os.makedirs(os.path.join(d, "sub"))
    vtt = os.path.join(base, "subs.vtt")
    open(vtt, "w").write("WEBVTT\n\n00:00:00.000 --> 00:00:04.000\nHello\n\n00:00:04.000 --> 00:00:08.000\nWorld\n\n"
                         "00:00:08.000 --> 00:00:10.000\nBye\n")
    r = ff("-f", "lavfi", "-i", "testsrc=duration=10:size=320x180:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:duration=10",
           "-f", "lavfi", "-i", "sine=frequency=660:duration=10",
           "-filter_complex", "[0:v]split=2[v1][v2];[v2]scale=160:90[v2o]", "-map", "[v1]", "-map", "[v2o]", "-map", "1:a", "-map", "2:a",
           "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-c:a", "aac", "-b:a", "64k",
           "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4", "-master_pl_name", "master.m3u8",
           "-var_stream_map", "v:0,agroup:aud,name:hi v:1,agroup:aud,name:lo a:0,agroup:aud,language:en,name:en,default:yes "
                              "a:1,agroup:aud,language:fr,name:fr",
           "-hls_segment_filename", os.path.join(d, "%v", "seg%d.m4s"), os.path.join(d, "%v", "index.m3u8"))
    assert r.returncode == 0, r.stderr
    r = ff("-i", vtt, "-c:s", "webvtt", "-f", "segment", "-segment_time", "4", "-segment_list", os.path.join(d, "sub", "index.m3u8"),
           "-segment_list_type", "m3u8", "-segment_format", "webvtt", os.path.join(d, "sub", "seg%d.vtt"))
    assert r.returncode == 0, r.stderr
    master = open(os.path.join(d, "master.m3u8")).read()
    master = master.replace("#EXT-X-STREAM-INF:", '#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",'
                                                   'AUTOSELECT=YES,URI="sub/index.m3u8"\n#EXT-X-STREAM-INF:', 1)
    master = re.sub(r'(#EXT-X-STREAM-INF:[^\n]*)', r'\1,SUBTITLES="subs"', master)
    open(os.path.join(d, "master.m3u8"), "w").write(master)
    # 2. MPEG-TS with AES-128.
    d = os.path.join(base, "aes")
    os.makedirs(d)
    open(os.path.join(d, "key.bin"), "wb").write(bytes(range(16)))
    open(os.path.join(base, "keyinfo"), "w").write("key.bin\n%s\n" % os.path.join(d, "key.bin"))
    r = ff("-f", "lavfi", "-i", "testsrc=duration=10:size=320x180:rate=25", "-f", "lavfi", "-i", "sine=duration=10",
           "-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-c:a", "aac", "-f", "hls", "-hls_time", "2",
           "-hls_playlist_type", "vod", "-hls_key_info_file", os.path.join(base, "keyinfo"),
           "-hls_segment_filename", os.path.join(d, "seg%d.ts"), os.path.join(d, "index.m3u8"))
    assert r.returncode == 0, r.stderr
    # 3. One file with EXT-X-BYTERANGE.
    d = os.path.join(base, "single")
    os.makedirs(d)
    r = ff("-f", "lavfi", "-i", "testsrc=duration=10:size=320x180:rate=25", "-c:v", "libx264", "-preset", "ultrafast", "-g", "50",
           "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_flags", "single_file", os.path.join(d, "index.m3u8"))
    assert r.returncode == 0, r.stderr
    open(os.path.join(base, "done"), "w").write("ok")
    return base


def shaped_origin(origins, tmp_path_factory, name, size, seed, prefix, extra=()):
    """A `size`-byte file `name` on nginx, reached by an eddy through a link of 25 ms and a shared
    48 Mbit/s (`shaped_link.py`) under `prefix`. Returns (eddy, link, the file's bytes); the caller
    stops both."""
    from shaped_link import ShapedLink
    ng, fo, _ = origins
    make_file(os.path.join(ng.www, name), size, seed)
    with open(os.path.join(ng.www, name), "rb") as f:
        data = f.read()
    link = ShapedLink(ng.port, latency=0.025, rate=6_000_000)
    e = Eddy(str(tmp_path_factory.mktemp(name.split(".")[0])), ng, fo,
             extra=["--origin", f"{prefix}=http://127.0.0.1:{link.port}", *extra])
    return e, link, data
