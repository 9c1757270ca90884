#!/usr/bin/env python3
"""A scriptable, fault-injecting HTTP/1.1 origin for eddy's scenario tests.

Serves files from --root with ETag/Last-Modified/Range like a normal static server, and misbehaves
on request through query parameters (so each behaviour is also its own cache key):

  rate=N          send at most N bytes/s
  drop_after=N    close the connection after N body bytes (while the per-path counter of drops,
                  set by drops=K, is not used up; default: every time)
  ignore_range=1  answer 200 with the whole body to a Range request
  wrong_range=1   answer 206 with a Content-Range shifted by one block
  chunked=1       no Content-Length: chunked transfer coding
  cc=VALUE        Cache-Control value (default max-age=3600, or --cc; cc=none sends none)
  no_validators=1 send neither ETag nor Last-Modified
  trickle=N       after the head, send N body bytes once a second (trickle=1: one byte a second)
  stall=1         send the head, then no body byte at all
                  (trickle and stall end their handler when the client disconnects, and after
                  at most 600 s in any case)

  head_delay=S    wait S seconds (a float) before answering
  status=N        answer N with the body "status N for PATH\n" (and cc, h), whatever the file
  h=Name:Value    add a response header (repeatable)
  te=CODING       send Transfer-Encoding: CODING and the body as it is

GET /_stats returns JSON {"requests": n, "bytes": body bytes sent, "paths": {...}}; GET /_reset zeroes it.
GET /_last?path=P returns the method, headers and body sha256 of the last request for path P.
GET /_set?path=P&fail=503 makes requests for P answer 503 (fail=drop: close the connection at
once; fail=trickle: the head, then 2 body bytes a second; fail=hang: read the request and never
answer, as a black hole past the connect; fail=portal: a captive portal's 200 text/html login page;
fail=portal302: its 302 to the login page; fail=wide: a 206 to a Range request that starts 1,000
bytes before the range asked and runs to the file's end, as RFC 9110 section 15.3.7 allows) until
/_set?path=P&fail= clears it; &retry_after=V adds
Retry-After: V to those answers.
GET /_set?rate=N sends every file at most N bytes/s unless its URL says otherwise (0: unlimited);
GET /_set?flaky=P answers each file request, with probability P, with a 503 or by closing the
connection after part of the body (0 turns it off); the random draws are seeded by each /_set
(&seed=N, default 12345). For downloads, whose segment URLs come from
playlists and carry no parameters.
POST, PUT, PATCH, DELETE and OPTIONS to any other path answer 200 with JSON {"method", "length",
"sha256"} of the request body they read (Content-Length or chunked); read_rate=N reads it at N
bytes/s; drop_after_read=N reads N bytes of it, then closes the connection unanswered (with
reset=1: a TCP reset). /_last has the length and sha256 of what it read, and the client's port.
Every request is logged to stderr with its Range and If-Range headers.
"""
import argparse, email.utils, hashlib, json, os, random, re, select, socket, socketserver, struct, sys, threading, time, zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs, unquote

LOCK = threading.Lock()
STATS = {"requests": 0, "bytes": 0, "paths": {}}
DROPS = {}
LAST = {}
FAIL = {}
GLOBAL = {"rate": 0, "flaky": 0.0, "rng": random.Random(12345), "cc": "max-age=3600"}


def cc_value(q):
    """The Cache-Control to send: cc=VALUE, none for cc=none, else an hour's explicit lifetime."""
    v = q.get("cc", GLOBAL["cc"])
    return None if v == "none" else v


def count(path, n):
    with LOCK:
        STATS["bytes"] += n
        p = STATS["paths"].setdefault(path, {"requests": 0, "bytes": 0})
        p["bytes"] += n


class Dropped(Exception):
    """A request body read up to drop_after_read: args are the length and sha256 read."""


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = "."

    def log_message(self, fmt, *args):
        sys.stderr.write("origin: %s range=%s if-range=%s\n" % (self.requestline, self.headers.get("Range"), self.headers.get("If-Range")))

    def do_HEAD(self):
        self.do_GET(head=True)

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return body
                body += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def remember(self, path, body=b""):
        with LOCK:
            LAST[path] = {"method": self.command, "target": self.path, "headers": [[k, v] for k, v in self.headers.items()],
                          "length": len(body), "sha256": hashlib.sha256(body).hexdigest(), "peer_port": self.client_address[1]}

    def read_body_slowly(self, rate, drop_at=None):
        """Reads the body at `rate` bytes a second in 64 KiB pieces, hashing as it goes (an origin
        slower than the client: what the proxy holds meanwhile is its own buffer). Returns the
        length and sha256; the length is short if the client's request was cut. With `drop_at`,
        stops there and raises Dropped (the caller cuts the connection without an answer)."""
        h, n, t0 = hashlib.sha256(), 0, time.monotonic()

        def take(size):
            nonlocal n
            while size > 0:
                if drop_at is not None and n >= drop_at:
                    raise Dropped(n, h.hexdigest())
                piece = self.rfile.read(min(size, 65536, drop_at - n) if drop_at is not None else min(size, 65536))
                if not piece:
                    raise EOFError
                h.update(piece)
                n += len(piece)
                size -= len(piece)
                ahead = n / rate - (time.monotonic() - t0)
                if ahead > 0:
                    time.sleep(ahead)
        try:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        break
                    take(size)
                    self.rfile.readline()
            else:
                take(int(self.headers.get("Content-Length") or 0))
        except (EOFError, ValueError, OSError):
            pass
        return n, h.hexdigest()

    def do_POST(self):
        u = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(u.query).items()}
        rate = q.get("read_rate")
        if "drop_after_read" in q:
            # An origin that dies mid-upload: reads that much of the body, then closes (or, with
            # reset=1, resets) the connection without a word.
            try:
                n, digest = self.read_body_slowly(int(rate or 10**12), drop_at=int(q["drop_after_read"]))
            except Dropped as d:
                n, digest = d.args
            with LOCK:
                LAST[u.path] = {"method": self.command, "length": n, "sha256": digest, "peer_port": self.client_address[1]}
            self.close_connection = True
            if q.get("reset") == "1":
                # A bare reset: closed here with a zero linger, before the server's own
                # shutdown(SHUT_WR) could send a FIN first.
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                os.close(self.connection.detach())
            else:
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        if rate:
            n, digest = self.read_body_slowly(int(rate))
            with LOCK:
                LAST[u.path] = {"method": self.command, "length": n, "sha256": digest, "peer_port": self.client_address[1]}
            self.send_json({"method": self.command, "length": n, "sha256": digest})
            return
        body = self.read_body()
        self.remember(u.path, body)
        with LOCK:
            STATS["requests"] += 1
            STATS["paths"].setdefault(u.path, {"requests": 0, "bytes": 0})["requests"] += 1
        self.send_json({"method": self.command, "length": len(body), "sha256": hashlib.sha256(body).hexdigest()})

    do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_POST

    def do_GET(self, head=False):
        u = urlsplit(self.path)
        q = {k: v[0] for k, v in parse_qs(u.query).items()}
        extra = [h.split(":", 1) for h in parse_qs(u.query).get("h", []) if ":" in h]
        if u.path == "/_stats":
            return self.send_json(STATS)
        if u.path == "/_last":
            with LOCK:
                return self.send_json(LAST.get(q.get("path"), {}))
        if u.path == "/_set" and ("rate" in q or "flaky" in q):
            with LOCK:
                if "rate" in q:
                    GLOBAL["rate"] = int(q["rate"])
                if "flaky" in q:
                    GLOBAL["flaky"] = float(q["flaky"])
                    # Seeded on each /_set: the k-th request after it always meets the same fate,
                    # so a test's faults do not depend on luck (only on the order of requests).
                    GLOBAL["rng"] = random.Random(int(q.get("seed", "12345")))
            return self.send_json({"ok": True})
        if u.path == "/_set":
            with LOCK:
                if q.get("fail"):
                    FAIL[q["path"]] = (q["fail"], q.get("retry_after"))
                else:
                    FAIL.pop(q.get("path"), None)
            return self.send_json({"ok": True})
        if u.path == "/_reset":
            with LOCK:
                STATS.update({"requests": 0, "bytes": 0, "paths": {}})
                DROPS.clear()
            return self.send_json({"ok": True})
        self.remember(u.path)
        with LOCK:
            STATS["requests"] += 1
            STATS["paths"].setdefault(u.path, {"requests": 0, "bytes": 0})["requests"] += 1
            fail, retry_after = FAIL.get(u.path, (None, None))
        with LOCK:
            rng = GLOBAL["rng"]
            flaky = GLOBAL["flaky"] > 0 and rng.random() < GLOBAL["flaky"]
            draw, cut = rng.random(), rng.randint(0, 200000)
        wide = fail == "wide"
        if wide:
            fail = None
        if fail == "trickle":  # the head, then 2 body bytes a second (trickle=2): never a curl low-speed abort
            fail, q["trickle"] = None, "2"
        if flaky and draw < 0.5:
            fail = "503"
        elif flaky and "drop_after" not in q:
            q["drop_after"] = str(cut)
        if fail == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if fail == "hang":
            self.client_gone(self.HOLD_LIMIT)
            self.close_connection = True
            return
        if fail in ("portal", "portal302"):
            page = b"<!DOCTYPE html><html><body><form action=/login>Sign in to the hotel Wi-Fi</form></body></html>\n"
            status, fields = (200, [("Content-Type", "text/html")]) if fail == "portal" else \
                (302, [("Location", "http://portal.invalid/login"), ("Content-Type", "text/html")])
            return self.send_whole(status, page, {"cc": "no-store"}, fields, head, u.path)
        if fail:
            self.send_response(int(fail))
            if retry_after:
                self.send_header("Retry-After", retry_after)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if "head_delay" in q:
            time.sleep(float(q["head_delay"]))
        if "vary" in q:
            # vary=F1,F2: a body made from the request's values of the fields, sent with Vary: F1,F2,
            # large enough (size=N, default 300000) to span blocks, so a wrong variant shows in its sha256.
            seed = "|".join("%s=%s" % (f, self.headers.get(f, "<absent>")) for f in q["vary"].split(","))
            size = int(q.get("size", "300000"))
            body = ((seed.encode() + b"\n") * (size // (len(seed) + 1) + 1))[:size]
            return self.send_whole(200, body, q, [("Vary", q["vary"]), ("ETag", '"%08x"' % zlib.crc32(body))], head, u.path)
        if "status" in q:
            body = ("status %s for %s\n" % (q["status"], u.path)).encode()
            return self.send_whole(int(q["status"]), body, q, extra, head, u.path)
        fpath = os.path.join(self.root, unquote(u.path).lstrip("/"))
        if not os.path.isfile(fpath):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        # The validators and the bytes come from one handle, as nginx serves a file: a file
        # replaced between a stat and a later open would pair the old validators with the new
        # bytes (a race the connection layer's faster heads exposed in test_sharing).
        handle = open(fpath, "rb")
        st = os.fstat(handle.fileno())
        size = st.st_size
        etag = '"%x-%x"' % (st.st_mtime_ns, size)
        lm = email.utils.formatdate(st.st_mtime, usegmt=True)
        validators = q.get("no_validators") != "1"
        inm = self.headers.get("If-None-Match")
        ims = self.headers.get("If-Modified-Since")
        if validators and ((inm and etag in [t.strip() for t in inm.split(",")]) or (not inm and ims == lm)):
            self.send_response(304)
            self.send_header("ETag", etag)
            if cc_value(q):
                self.send_header("Cache-Control", cc_value(q))
            for k, v in extra:
                self.send_header(k.strip(), v.strip())
            self.end_headers()
            return
        start, end, status = 0, size - 1, 200
        rng = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        if rng and q.get("ignore_range") != "1" and (not if_range or if_range in (etag, lm)):
            m = re.fullmatch(r"bytes=(\d*)-(\d*)", rng.strip())
            if m:
                a, b = m.group(1), m.group(2)
                if a == "":
                    start, end = max(0, size - int(b)), size - 1
                else:
                    start, end = int(a), min(int(b) if b else size - 1, size - 1)
                if start >= size:
                    self.send_response(416)
                    self.send_header("Content-Range", "bytes */%d" % size)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if wide:
                    start, end = max(0, start - 1000), size - 1
                status = 206
        self.send_response(status)
        if validators:
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", lm)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Accept-Ranges", "bytes")
        if cc_value(q):
            self.send_header("Cache-Control", cc_value(q))
        for k, v in extra:
            self.send_header(k.strip(), v.strip())
        if status == 206:
            shift = (256 << 10) if q.get("wrong_range") == "1" else 0
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start + shift, end + shift, size))
        chunked = q.get("chunked") == "1"
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif "te" in q:
            self.send_header("Transfer-Encoding", q["te"])
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(end - start + 1))
        self.end_headers()
        if head:
            return
        if q.get("stall") == "1":
            return self.hold(fpath, start, end, u.path, 0)
        if int(q.get("trickle", "0")) > 0:
            return self.hold(fpath, start, end, u.path, int(q["trickle"]))
        rate = int(q.get("rate", GLOBAL["rate"]))
        drop_after = int(q["drop_after"]) if "drop_after" in q else None
        if drop_after is not None and "drops" in q:
            with LOCK:
                used = DROPS.get(u.path, 0)
                if used >= int(q["drops"]):
                    drop_after = None
                else:
                    DROPS[u.path] = used + 1
        sent = 0
        t0 = time.monotonic()
        with handle as f:
            f.seek(start)
            remaining = end - start + 1
            while remaining > 0:
                n = min(64 << 10, remaining)
                if rate:
                    # Paced in twentieths of a second: a small file is slow too, not one write
                    # followed by a sleep the client never sees.
                    n = min(n, max(1024, rate // 20))
                if drop_after is not None:
                    n = min(n, drop_after - sent)
                    if n <= 0:
                        self.close_connection = True
                        self.wfile.flush()
                        self.connection.shutdown(2)
                        return
                data = f.read(n)
                if not data:
                    break
                try:
                    if chunked:
                        self.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
                    else:
                        self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    return
                sent += len(data)
                count(u.path, len(data))
                remaining -= len(data)
                if rate:
                    ahead = sent / rate - (time.monotonic() - t0)
                    if ahead > 0:
                        time.sleep(ahead)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    HOLD_LIMIT = 600

    def client_gone(self, timeout):
        """Waits up to `timeout` seconds; True as soon as the client has closed or reset the connection."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                readable, _, _ = select.select([self.connection], [], [], left)
                if not readable:
                    return False
                if self.connection.recv(1, socket.MSG_PEEK) == b"":
                    return True
            except (OSError, ValueError):
                return True
            time.sleep(left if left < 0.2 else 0.2)  # the client sent more; keep watching, without spinning

    def hold(self, fpath, start, end, path, per_second):
        """The head is out: send `per_second` body bytes once a second (0: none at all) until the body is
        done, the client leaves, or HOLD_LIMIT seconds have passed."""
        self.wfile.flush()
        self.close_connection = True
        t0 = time.monotonic()
        pos = start
        with open(fpath, "rb") as f:
            while time.monotonic() - t0 < self.HOLD_LIMIT:
                if per_second and pos <= end:
                    f.seek(pos)
                    data = f.read(min(per_second, end - pos + 1))
                    try:
                        self.wfile.write(data)
                        self.wfile.flush()
                    except OSError:
                        return
                    pos += len(data)
                    count(path, len(data))
                    if pos > end:
                        return
                if self.client_gone(1.0):
                    return
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def send_whole(self, status, body, q, fields, head, path):
        """A whole response with the cc= Cache-Control and `fields`."""
        self.send_response(status)
        if cc_value(q):
            self.send_header("Cache-Control", cc_value(q))
        for k, v in fields:
            self.send_header(k.strip(), v.strip())
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not head:
            self.wfile.write(body)
            count(path, len(body))

    def send_json(self, obj):
        body = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--cc", default="max-age=3600", help="Cache-Control of responses whose URL has no cc=")
    a = ap.parse_args()
    GLOBAL["cc"] = a.cc
    Handler.root = a.root
    ThreadingHTTPServer.daemon_threads = True
    # socketserver's listen backlog is 5: a burst of new connections (each event loop's curl
    # handle opens its own) overflowed it, and the kernel's SYN retry made a request wait 1 s.
    # nginx listens with 511.
    ThreadingHTTPServer.request_queue_size = 511
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.serve_forever()


if __name__ == "__main__":
    main()
