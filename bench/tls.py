#!/usr/bin/env python3
"""eddy's TLS listener vs nginx's TLS (issue 61): hits over HTTPS/1.1, measured alternately in one run.

Both serve the same nginx origin's files from their caches, one loop against one worker, with the
same ECDSA P-256 certificate, TLS 1.3 and the same cipher (wrk's OpenSSL picks AES-256-GCM with
both). Cells: 16 KiB and 1 MiB hits on kept-alive connections (bulk encryption and the writer),
and 16 KiB hits each on a new connection (`Connection: close`: a full handshake per request).
Every process started here is stopped by its pid; every load is bounded in time."""
import argparse, datetime, os, platform, subprocess, sys, tempfile
from bench import Eddy, Origin, Peer, get, wrk
from cells import alternate, median_row
from results import write_section

MiB = 1 << 20


def make_certificate(d):
    """A self-signed ECDSA P-256 certificate for 127.0.0.1 (the same one for both servers)."""
    cert, key = os.path.join(d, "cert.pem"), os.path.join(d, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                    "-keyout", key, "-out", cert, "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=30)
    return cert, key


class TLSPeer(Peer):
    """nginx's caching proxy (bench.Peer) with `listen ... ssl` and a session cache, as its TLS guide has it."""
    def __init__(self, base, origin, cert, key):
        self.cert, self.key = cert, key
        super().__init__(base, origin)

    def start(self):
        text = open(self.conf).read()
        if " ssl;" not in text:
            text = text.replace("listen 127.0.0.1:%d;" % self.port,
                                "listen 127.0.0.1:%d ssl; ssl_certificate %s; ssl_certificate_key %s; "
                                "ssl_protocols TLSv1.2 TLSv1.3; ssl_session_cache shared:tls:10m;" % (self.port, self.cert, self.key))
            open(self.conf, "w").write(text)
        super().start()


class TLSEddy(Eddy):
    """eddy with a TLS listener; `port` is the TLS one (what wrk measures)."""
    def __init__(self, base, origin, binary, cert, key):
        self.cert, self.key = cert, key
        super().__init__(base, origin, binary)

    def start(self):
        from bench import free_port, wait_port
        import signal
        self.plain, self.port = free_port(), free_port()
        self.proc = subprocess.Popen([self.binary, "serve", "--listen", "127.0.0.1:%d" % self.plain,
                                      "--tls-listen", "127.0.0.1:%d" % self.port, "--tls-cert", self.cert, "--tls-key", self.key,
                                      "--cache-dir", self.dir + "/cache", "--max-size", "20G", "--access-log", "off", "--no-admin",
                                      "--origin", "http://127.0.0.1:%d" % self.origin.port, "--log-level", "error", "--workers", "1"])
        wait_port(self.port)


def https_wrk(port, path, conns, seconds, headers=None):
    return wrk(port, path, conns, seconds, headers, scheme="https")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--eddy", required=True)
    ap.add_argument("--seconds", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    base = tempfile.mkdtemp(prefix="eddy-tls-bench-")
    origin = Origin(base)
    for name, size in [("o16k.bin", 16 << 10), ("o1m.bin", MiB)]:
        with open(os.path.join(origin.www, name), "wb") as f:
            f.write(os.urandom(size))
    cert, key = make_certificate(base)
    both = []
    try:
        both = [TLSEddy(base, origin, a.eddy, cert, key), TLSPeer(base, origin, cert, key)]
        for s in both:  # warm both caches over their TLS listeners
            for obj in ["o16k.bin", "o1m.bin"]:
                for _ in range(2):
                    out = subprocess.run(["curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}", "https://127.0.0.1:%d/%s" % (s.port, obj)],
                                         capture_output=True, text=True, timeout=30).stdout
                    assert out == "200", (s.name, obj, out)
        rows = []
        for obj, index, unit in [("o16k.bin", 0, "requests/s"), ("o1m.bin", 1, "MB/s")]:
            for conns in [8, 64]:
                got = alternate(both, a.rounds, lambda s: https_wrk(s.port, "/" + obj, conns, a.seconds))
                rows.append(median_row("HTTPS/1.1 hits of %s, %d conns, kept alive (%s)" % (obj, conns, unit), got, index, "higher is better"))
        got = alternate(both, a.rounds, lambda s: https_wrk(s.port, "/o16k.bin", 8, a.seconds, {"Connection": "close"}))
        rows.append(median_row("HTTPS/1.1 hits of o16k.bin, 8 conns, a handshake each (requests/s)", got, 0, "higher is better"))
    finally:
        for s in both:
            s.stop()
        origin.proc.terminate()
        origin.proc.wait(30)
    text = ("## TLS: eddy vs nginx over HTTPS/1.1\n\nOne run of `scripts/bench tls` on %s, %d cores, %s. One loop against one "
            "nginx worker (proxy_cache, slice 1m), the same ECDSA P-256 certificate, TLS 1.3; wrk over https, each pair "
            "measured alternately, a row the median of %d rounds.\n\n| | eddy | nginx | eddy/nginx | |\n|---|---|---|---|---|\n"
            % (datetime.date.today(), os.cpu_count(), platform.platform(), a.rounds))
    for label, e, n, note, bad in rows:
        text += "| %s | %.1f | %.1f | %.2f | %s%s |\n" % (label, e, n, e / n if n else 0, note,
                                                         "; non-2xx %d/%d" % bad if any(bad) else "")
    print(text)
    write_section("tls", text)


if __name__ == "__main__":
    sys.exit(main())
