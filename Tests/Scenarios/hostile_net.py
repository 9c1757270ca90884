#!/usr/bin/env python3
"""What a hostile network puts where an origin was, on a loopback port (issue 28's scenarios):

  blackhole   accepts connections and reads requests, never answers (a dead route, a hotel
              network that swallows packets once connected)
  portal200   answers every request 200 text/html (a captive portal's login page)
  portal302   answers every request 302 to http://login.portal.example/ (a captive portal)

Each connection is held at most 600 s. Stopped by its pid."""
import argparse, socket, threading, time

PAGE = b"<!doctype html><html><body><form>Log in to the hotel Wi-Fi</form></body></html>\n"


def serve(conn, mode):
    conn.settimeout(600)
    try:
        while True:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            if mode == "blackhole":
                time.sleep(600)
                return
            if mode == "portal200":
                head = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\nCache-Control: no-cache\r\n\r\n" % len(PAGE)
                conn.sendall(head.encode() + (b"" if data.startswith(b"HEAD") else PAGE))
            else:
                conn.sendall(b"HTTP/1.1 302 Found\r\nLocation: http://login.portal.example/?from=x\r\nContent-Length: 0\r\n\r\n")
    except OSError:
        pass
    finally:
        conn.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("mode", choices=["blackhole", "portal200", "portal302"])
    a = ap.parse_args()
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", a.port))
    s.listen(511)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve, args=(conn, a.mode), daemon=True).start()


if __name__ == "__main__":
    main()
