"""An origin scripted per path, for the HTTP caching conformance scenarios (test_conformance.py):
the way the public cache-tests suite drives a cache, each case names the answers its origin gives
to the first, second... request for a path, and reads back every request the origin saw (method,
headers, body). It runs in the test's own process on a loopback port, in a thread, and answers
over HTTP/1.1 with keep-alive. An `interim` answer sends a 103 Early Hints head first (after
`think` seconds), and waits `hold` seconds after it before the final head."""
import email.utils, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def http_date(offset=0):
    """An IMF-fixdate `offset` seconds from now."""
    return email.utils.formatdate(time.time() + offset, usegmt=True)


class Answer:
    """One scripted answer: status, header list (in order, repeats kept) and body."""

    def __init__(self, status=200, headers=(), body=b"", interim=(), hold=0, think=0):
        self.status, self.headers, self.interim, self.hold, self.think = status, list(headers), list(interim), hold, think
        self.body = body.encode() if isinstance(body, str) else body


class ScriptedOrigin:
    """`script(path, answers)` sets the answers for a path (the last one repeats);
    `seen(path)` lists the requests it got, as dicts with method, headers (lower-cased names,
    a list of values each) and body."""

    def __init__(self):
        self.lock = threading.Lock()
        self.answers, self.requests = {}, {}
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, fmt, *args):
                pass

            def handle_one_request(self):
                # Any method token is answered (M-SEARCH included), not only do_GET and friends.
                self.raw_requestline = self.rfile.readline(65537)
                if not self.raw_requestline:
                    self.close_connection = True
                    return
                if not self.parse_request():
                    return
                origin.answer(self)
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def script(self, path, *answers):
        with self.lock:
            self.answers[path] = list(answers)
            self.requests[path] = []

    def seen(self, path):
        with self.lock:
            return list(self.requests.get(path, []))

    def answer(self, h):
        path = h.path
        n = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(n) if n else b""
        headers = {}
        for k, v in h.headers.items():
            headers.setdefault(k.lower(), []).append(v)
        with self.lock:
            seen = self.requests.setdefault(path, [])
            seen.append({"method": h.command, "headers": headers, "body": body})
            script = self.answers.get(path) or [Answer(404, [("Cache-Control", "no-store")], "no script\n")]
            a = script[min(len(seen), len(script)) - 1]
        out = []
        if a.think:
            time.sleep(a.think)  # the subject: an origin slow to its first head
        for status, fields in a.interim:
            out.append("HTTP/1.1 %d Early Hints\r\n" % status)
            out += ["%s: %s\r\n" % kv for kv in fields]
            out.append("\r\n")
        if a.interim and a.hold:
            h.wfile.write("".join(out).encode("latin-1"))
            h.wfile.flush()
            time.sleep(a.hold)  # the subject: an origin that thinks before its final answer
            out = []
        out.append("HTTP/1.1 %d %s\r\n" % (a.status, h.responses.get(a.status, ("X",))[0]))
        names = {k.lower() for k, _ in a.headers}
        fields = list(a.headers)
        if "date" not in names:
            fields.append(("Date", http_date()))
        if h.command != "HEAD" or "content-length" not in names:
            fields = [kv for kv in fields if kv[0].lower() != "content-length"] + [("Content-Length", str(len(a.body)))]
        out += ["%s: %s\r\n" % kv for kv in fields]
        out.append("\r\n")
        h.wfile.write("".join(out).encode("latin-1") + (a.body if h.command != "HEAD" else b""))

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(10)
