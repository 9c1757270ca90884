"""A link with latency and a bandwidth cap, on loopback, where `tc netem` is not available: a TCP
relay in the test's process between eddy and an origin. Every chunk a client sends reaches the
origin `latency` seconds later (so each request pays it once), and everything the origin sends is
paced through one token bucket of `rate` bytes a second that all connections share, as a home
line is. `bytes_down` counts what the origin sent through it. Stopped by `stop()`."""
import socket, threading, time
from loopback import listener


class ShapedLink:
    def __init__(self, upstream_port, latency=0.025, rate=6_000_000):
        self.upstream_port, self.latency, self.rate = upstream_port, latency, rate
        self.lock = threading.Lock()
        self.bytes_down = 0
        self.tokens, self.stamp = 0.0, time.monotonic()
        self.sock = listener(128)
        self.port = self.sock.getsockname()[1]
        self.running = True
        self.conns = []
        threading.Thread(target=self.accept, daemon=True).start()

    def take(self, n):
        """Waits until `n` bytes may go, by the shared bucket (bursts of at most 64 KiB)."""
        while True:
            with self.lock:
                now = time.monotonic()
                self.tokens = min(65536.0, self.tokens + (now - self.stamp) * self.rate)
                self.stamp = now
                if self.tokens >= n:
                    self.tokens -= n
                    self.bytes_down += n
                    return
                wait = (n - self.tokens) / self.rate
            time.sleep(wait)

    def accept(self):
        while self.running:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            try:
                u = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=10)
            except OSError:
                c.close()
                continue
            for s in (c, u):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                s.settimeout(None)
            self.conns += [c, u]
            threading.Thread(target=self.up, args=(c, u), daemon=True).start()
            threading.Thread(target=self.down, args=(u, c), daemon=True).start()

    def up(self, src, dst):
        try:
            while True:
                d = src.recv(65536)
                if not d:
                    break
                time.sleep(self.latency)
                dst.sendall(d)
        except OSError:
            pass
        self.close(src, dst)

    def down(self, src, dst):
        try:
            while True:
                d = src.recv(16384)
                if not d:
                    break
                self.take(len(d))
                dst.sendall(d)
        except OSError:
            pass
        self.close(src, dst)

    @staticmethod
    def close(*socks):
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def stop(self):
        self.running = False
        self.sock.close()
        self.close(*self.conns)
