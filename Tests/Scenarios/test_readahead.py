"""Read-ahead is bounded (issue 58): a response's fill asks at most `readahead` past the block its
reader is in, and the next one starts as the reader nears its end, so on a fast origin the origin
pays for what is watched, not for the file. Origin bytes are nginx's own count; every body's
sha256 is checked. (A whole-body first request, a GET without Range, still asks the whole body:
its fill pauses at the readahead, but what the origin put on the wire by then is paid for.)"""
import hashlib, os, socket, subprocess, time
import pytest
from conftest import Eddy, MiB, make_file, read_head, wait_for

READAHEAD = 2 * MiB
BLOCK = 256 * 1024


def origin_bytes(ng, name):
    return sum(r[1] for r in ng.requests() if r[3].startswith("/" + name))


@pytest.fixture(scope="module")
def ed(origins, tmp_path_factory):
    ng, fo, _ = origins
    e = Eddy(str(tmp_path_factory.mktemp("readahead")), ng, fo, extra=["--readahead", "2M"])
    yield e
    e.stop()


def read_and_drop(port, path, start, count):
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nRange: bytes=%d-\r\n\r\n" % (path.encode(), start))
    head, body = read_head(s)
    assert head.startswith(b"HTTP/1.1 206"), head
    while len(body) < count:
        d = s.recv(65536)
        assert d, "cut at %d" % len(body)
        body += d
        time.sleep(0.002)  # a player reads at its pace, far slower than a loopback origin sends
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    s.close()
    return body[:count]


def test_a_viewer_on_a_fast_origin_costs_what_it_read_plus_one_readahead(ed, origins):
    ng = origins[0]
    make_file(os.path.join(ng.www, "ra.bin"), 64 * MiB, 581)
    data = open(os.path.join(ng.www, "ra.bin"), "rb").read()
    # The viewer starts with a seek (a Range from 1 MiB), so every fill it costs asks a bounded
    # range; a whole-body first request is the next test's.
    start = pos = MiB
    for i in range(6):
        got = read_and_drop(ed.port, "/n/ra.bin", pos, MiB)
        assert hashlib.sha256(got).digest() == hashlib.sha256(data[pos:pos + MiB]).digest(), i
        pos += MiB
        wait_for(lambda: not ed.fills(), 15, what="fills to stop after the viewer left")
    sent = origin_bytes(ng, "ra.bin")
    # What eddy sent each response (the viewer's socket buffers take more than it reads): the
    # furthest byte any response was sent bounds what the fills may ask.
    out = [int(l.split('"')[2].split()[1]) for l in ed.access_log().splitlines() if "/n/ra.bin" in l]
    furthest = max(start + i * MiB + n for i, n in enumerate(out))
    print("origin sent %.2f MiB; the viewer read %.2f MiB, eddy sent up to %.2f MiB past its start; readahead %.0f MiB"
          % (sent / MiB, (pos - start) / MiB, (furthest - start) / MiB, READAHEAD / MiB))
    # Up to the furthest byte sent, plus the readahead past its block, plus the block it began in.
    assert len(out) == 6 and sent <= furthest - start + READAHEAD + 2 * BLOCK, (sent, out)


def sent_spans(ed, path):
    """(status, bytes sent) of each response eddy logged for `path`."""
    return [(int(l.split('"')[2].split()[0]), int(l.split('"')[2].split()[1])) for l in ed.access_log().splitlines() if path in l]


def test_an_ffprobe_of_a_cold_mp4_costs_what_it_read_plus_one_readahead(ed, origins):
    """ffprobe of a 20 MB MP4 whose index is at its end (ffmpeg's default, no faststart) reads
    the start, then seeks to the end. The issue measured the whole 20 MB from the origin."""
    ng = origins[0]
    path = os.path.join(ng.www, "probe.mp4")
    r = subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=duration=14:size=1280x720:rate=25",
                        "-c:v", "libx264", "-preset", "ultrafast", "-qp", "8", "-g", "50", path],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    size = os.path.getsize(path)
    assert size > 18 * MiB, size
    r = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                        "http://127.0.0.1:%d/n/probe.mp4" % ed.port], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and abs(float(r.stdout) - 14) < 0.1, (r.stdout, r.stderr)
    wait_for(lambda: not ed.fills(), 15, what="fills to stop after ffprobe left")
    sent = origin_bytes(ng, "probe.mp4")
    out = sent_spans(ed, "/n/probe.mp4")
    print("file %.2f MiB; ffprobe was sent %.2f MiB in %d responses; the origin sent %.2f MiB"
          % (size / MiB, sum(n for _, n in out) / MiB, len(out), sent / MiB))
    # What eddy sent ffprobe, plus one readahead and the two blocks each response may begin and
    # end inside; far from the whole file.
    assert all(s in (200, 206) for s, _ in out), out
    assert sent <= sum(n for _, n in out) + READAHEAD + 2 * BLOCK * len(out), (sent, out)
    # The bytes a client gets afterwards are the file's.
    got = subprocess.run(["curl", "-sf", "http://127.0.0.1:%d/n/probe.mp4" % ed.port], capture_output=True, timeout=60).stdout
    assert hashlib.sha256(got).digest() == hashlib.sha256(open(path, "rb").read()).digest()


def test_a_response_whose_fill_runs_only_readahead_ahead_says_so(ed, origins):
    """Cache-Status `detail=readahead` and the access log's `+READAHEAD` mark a response whose fill
    asked the origin only `readahead` past its reader; a range the readahead covers is not marked."""
    ng = origins[0]
    make_file(os.path.join(ng.www, "ra-said.bin"), 16 * MiB, 582)
    s = socket.create_connection(("127.0.0.1", ed.port), timeout=30)
    s.sendall(b"GET /n/ra-said.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=%d-\r\n\r\n" % MiB)
    head, _ = read_head(s)
    s.close()
    assert head.startswith(b"HTTP/1.1 206") and b"detail=readahead" in head, head
    s = socket.create_connection(("127.0.0.1", ed.port), timeout=30)
    s.sendall(b"GET /n/ra-said.bin HTTP/1.1\r\nHost: x\r\nRange: bytes=%d-%d\r\n\r\n" % (8 * MiB, 8 * MiB + 999))
    head, _ = read_head(s)
    s.close()
    assert head.startswith(b"HTTP/1.1 206") and b"detail=" not in head, head
    lines = [l for l in wait_for(lambda: [l for l in ed.access_log().splitlines() if "/n/ra-said.bin" in l and '" 206 ' in l]
                                 if len([l for l in ed.access_log().splitlines() if "/n/ra-said.bin" in l]) >= 2 else None,
                                 10, what="both lines logged")]
    assert "+READAHEAD " in lines[0] and "+READAHEAD" not in lines[1], lines
