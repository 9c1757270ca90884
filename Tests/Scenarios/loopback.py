"""A listening socket on a free loopback port, for the test origins and relays that run in the
test's own process (lying_origin.py, shaped_link.py)."""
import socket


def listener(backlog=64):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(backlog)
    return s
