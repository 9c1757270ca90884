"""An origin that writes raw bytes, for what no well-behaved server will send: heads that frame
their body two ways (two Content-Lengths, Content-Length with chunked), lengths shorter or longer
than the body, bodies that look like a response. `script(path, raw)` sets the bytes written for
every request of that path (after reading its head); the connection is closed after them, as a
lying origin's would be once its trick is played. `seen(path)` counts the requests, and
`heads(path)` lists their raw heads. It runs in the test's process, in a thread, on loopback."""
import socket, threading
from loopback import listener


class LyingOrigin:
    def __init__(self):
        self.lock = threading.Lock()
        self.scripts, self.requests = {}, {}
        self.sock = listener(64)
        self.port = self.sock.getsockname()[1]
        self.running = True
        threading.Thread(target=self.accept, daemon=True).start()

    def script(self, path, raw):
        with self.lock:
            self.scripts[path] = raw if isinstance(raw, bytes) else raw.encode()
            self.requests[path] = []

    def seen(self, path):
        with self.lock:
            return len(self.requests.get(path, []))

    def heads(self, path):
        with self.lock:
            return list(self.requests.get(path, []))

    def accept(self):
        while self.running:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(c,), daemon=True).start()

    def serve(self, c):
        c.settimeout(10)
        try:
            data = b""
            while b"\r\n\r\n" not in data:
                more = c.recv(65536)
                if not more:
                    return
                data += more
            head = data.split(b"\r\n\r\n", 1)[0]
            path = head.split(b" ")[1].decode("latin-1")
            with self.lock:
                raw = self.scripts.get(path, b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                self.requests.setdefault(path, []).append(head)
            c.sendall(raw)
            c.shutdown(socket.SHUT_WR)
            c.settimeout(2)
            while c.recv(65536):  # until the peer closes, so nothing is reset before it reads
                pass
        except OSError:
            pass
        finally:
            c.close()

    def stop(self):
        self.running = False
        self.sock.close()
