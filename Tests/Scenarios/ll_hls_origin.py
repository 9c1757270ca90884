#!/usr/bin/env python3
"""An LL-HLS origin for the tests (no packaged tool writes EXT-X-PART): one live rendition cut on a
clock into parts of PART seconds, SEG seconds a segment (RFC 8216bis, Apple's LL-HLS rules).

  GET /live/index.m3u8                      the media playlist now: the last 6 segments, parts for
                                            the last 2 and the one in progress, a preload hint
  GET /live/index.m3u8?_HLS_msn=M[&_HLS_part=P][&_HLS_skip=YES]
                                            a blocking reload: held until the playlist holds
                                            segment M (part P of it), at most 3 target durations
                                            (then 503); 400 past the spec's limit (M more than 2
                                            segments ahead of the last); _HLS_skip=YES gives a
                                            delta update (EXT-X-SKIP)
  GET /live/segN.m4s, /live/segN.P.m4s     a segment, a part (a preload-hinted part is held until
                                            it exists); their bytes are fixed by N and P
  GET /_stats                               {"keys": {canonical key: requests}, "answered": {key:
                                            [monotonic times]}, "paths": {path: requests}}
  GET /_reset                               zeroes the counts
  GET /_set?fail=503                        answers every blocking reload 503 (fail= to stop)

--part, --seg set the durations; the first part is done PART seconds after start.
"""
import argparse, json, threading, time, urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--part", type=float, default=0.5)
ap.add_argument("--seg", type=float, default=2.0)
A = ap.parse_args()
PARTS = int(round(A.seg / A.part))
T0 = time.monotonic()
LOCK = threading.Lock()
CHANGED = threading.Condition(LOCK)
STATS = {"keys": {}, "answered": {}, "paths": {}}
FAIL = {"status": None}


def done_parts():
    """Parts complete now (the whole stream's count)."""
    return int((time.monotonic() - T0) / A.part)


def body(name):
    """A part's or a segment's bytes: fixed by its name, a segment the concatenation of its parts."""
    stem = name[len("seg"):-len(".m4s")]
    if "." in stem:
        n, p = map(int, stem.split("."))
        return (("%d.%d|" % (n, p)) * 400).encode()[:2000]
    n = int(stem)
    return b"".join(body("seg%d.%d.m4s" % (n, p)) for p in range(PARTS))


def playlist(count, skip=False):
    """The playlist when `count` parts are done."""
    last_full = count // PARTS - 1  # the last whole segment
    first = max(0, last_full - 5)
    lines = ["#EXTM3U", "#EXT-X-VERSION:9", "#EXT-X-TARGETDURATION:%d" % max(1, round(A.seg)),
             "#EXT-X-PART-INF:PART-TARGET=%.3f" % A.part,
             "#EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=%.3f,CAN-SKIP-UNTIL=%.1f" % (3 * A.part, 6 * A.seg),
             "#EXT-X-MEDIA-SEQUENCE:%d" % first]
    skipped = 0
    if skip and last_full - first >= 4:
        skipped = 2
        lines.append("#EXT-X-SKIP:SKIPPED-SEGMENTS=%d" % skipped)
    for n in range(first + skipped, last_full + 1):
        if n >= last_full - 1:
            lines += ['#EXT-X-PART:DURATION=%.3f,URI="seg%d.%d.m4s"%s' % (A.part, n, p, ",INDEPENDENT=YES" if p == 0 else "")
                      for p in range(PARTS)]
        lines += ["#EXTINF:%.3f," % A.seg, "seg%d.m4s" % n]
    cur, have = count // PARTS, count % PARTS
    lines += ['#EXT-X-PART:DURATION=%.3f,URI="seg%d.%d.m4s"%s' % (A.part, cur, p, ",INDEPENDENT=YES" if p == 0 else "")
              for p in range(have)]
    lines.append('#EXT-X-PRELOAD-HINT:TYPE=PART,URI="seg%d.%d.m4s"' % (cur, have))
    return ("\n".join(lines) + "\n").encode()


def has(count, msn, part):
    """Whether the playlist at `count` parts holds segment `msn` (part `part` of it)."""
    if part is None:
        return count // PARTS > msn
    return count > msn * PARTS + part


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, status, data, ctype="application/octet-stream", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        if u.path == "/_stats":
            with LOCK:
                return self.send(200, json.dumps(STATS).encode(), "application/json")
        if u.path == "/_set":
            FAIL["status"] = int(q["fail"][0]) if q.get("fail", [""])[0] else None
            return self.send(200, b"ok")
        if u.path == "/_reset":
            with LOCK:
                for v in STATS.values():
                    v.clear()
            return self.send(200, b"ok")
        with LOCK:
            STATS["paths"][u.path] = STATS["paths"].get(u.path, 0) + 1
        if u.path == "/live/index.m3u8":
            return self.media(q)
        name = u.path.rsplit("/", 1)[-1]
        if u.path.startswith("/live/seg") and name.endswith(".m4s"):
            stem = name[3:-4]
            n, p = (map(int, stem.split(".")) if "." in stem else (int(stem), None))
            deadline = time.monotonic() + 3 * A.seg
            while not has(done_parts(), n, p):  # a preload-hinted part: held until it exists
                if time.monotonic() > deadline or n * PARTS > done_parts() + 2 * PARTS:
                    return self.send(404, b"no such part")
                time.sleep(0.01)
            return self.send(200, body(name), "video/iso.segment", [("Cache-Control", "max-age=600")])
        self.send(404, b"not found")

    def media(self, q):
        msn = q.get("_HLS_msn", [None])[0]
        part = q.get("_HLS_part", [None])[0]
        skip = q.get("_HLS_skip", [""])[0] == "YES"
        key = "/live/index.m3u8" + "".join("&%s=%s" % (k, q[k][0]) for k in ("_HLS_msn", "_HLS_part", "_HLS_skip") if k in q)
        with LOCK:
            STATS["keys"][key] = STATS["keys"].get(key, 0) + 1
        cc = [("Cache-Control", "max-age=%d" % max(1, round(A.seg / 2)))]
        if msn is not None and FAIL["status"]:
            return self.send(FAIL["status"], b"failing on purpose", extra=[("Retry-After", "1")])
        if msn is not None:
            try:
                msn, part = int(msn), (int(part) if part is not None else None)
            except ValueError:
                return self.send(400, b"bad directive")
            if msn > done_parts() // PARTS + 2:
                return self.send(400, b"_HLS_msn too far ahead")
            deadline = time.monotonic() + 3 * A.seg
            while not has(done_parts(), msn, part):
                if time.monotonic() > deadline:
                    return self.send(503, b"not yet", extra=[("Retry-After", "1")])
                time.sleep(0.005)
            cc = [("Cache-Control", "max-age=%d" % max(1, round(6 * A.part)))]
        data = playlist(done_parts(), skip)
        with LOCK:
            STATS["answered"].setdefault(key, []).append(time.monotonic())
        self.send(200, data, "application/vnd.apple.mpegurl", cc)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024


Server(("127.0.0.1", A.port), Handler).serve_forever()
