"""RFC 9110 range semantics through eddy (sections 13.1.5, 14, 15.3.7, 15.5.17), against nginx."""
import re
from conftest import MiB, sha

SMALL = "/n/small.bin"


def warm(eddy):
    r = eddy.get(SMALL)
    assert r.status == 200
    return r


def test_single_range_is_206_with_exact_bytes(eddy, origins):
    data = origins[2]["small.bin"]
    r = eddy.get(SMALL, {"Range": "bytes=100-199"})
    assert r.status == 206
    assert r.h("content-range") == "bytes 100-199/%d" % len(data)
    assert r.body == data[100:200]


def test_open_range_runs_to_the_end(eddy, origins):
    data = origins[2]["small.bin"]
    r = eddy.get(SMALL, {"Range": "bytes=1000-"})
    assert r.status == 206 and r.body == data[1000:]


def test_suffix_range_is_the_last_bytes(eddy, origins):
    data = origins[2]["small.bin"]
    warm(eddy)
    r = eddy.get(SMALL, {"Range": "bytes=-500"})
    assert r.status == 206 and r.body == data[-500:]
    assert r.h("content-range") == "bytes %d-%d/%d" % (len(data) - 500, len(data) - 1, len(data))


def test_suffix_range_on_cold_resource(eddy, origins):
    data = origins[2]["medium.bin"]
    r = eddy.get("/n/medium.bin", {"Range": "bytes=-70000"})
    assert r.status == 206 and r.body == data[-70000:]


def test_last_pos_beyond_length_is_clamped(eddy, origins):
    data = origins[2]["small.bin"]
    r = eddy.get(SMALL, {"Range": "bytes=%d-%d" % (len(data) - 10, len(data) + 1000)})
    assert r.status == 206 and r.body == data[-10:]


def test_first_pos_past_end_is_416_with_length(eddy, origins):
    n = len(origins[2]["small.bin"])
    warm(eddy)
    r = eddy.get(SMALL, {"Range": "bytes=%d-" % n})
    assert r.status == 416
    assert r.h("content-range") == "bytes */%d" % n


def test_suffix_zero_is_unsatisfiable(eddy, origins):
    n = len(origins[2]["small.bin"])
    warm(eddy)
    r = eddy.get(SMALL, {"Range": "bytes=-0"})
    assert r.status == 416 and r.h("content-range") == "bytes */%d" % n


def test_unknown_unit_is_ignored(eddy, origins):
    warm(eddy)
    r = eddy.get(SMALL, {"Range": "pages=1-2"})
    assert r.status == 200 and r.body == origins[2]["small.bin"]


def test_invalid_range_is_ignored(eddy, origins):
    warm(eddy)
    r = eddy.get(SMALL, {"Range": "bytes=500-100"})
    assert r.status == 200 and len(r.body) == len(origins[2]["small.bin"])


def test_if_range_strong_etag_match_gives_206(eddy, origins):
    etag = warm(eddy).h("etag")
    r = eddy.get(SMALL, {"Range": "bytes=0-9", "If-Range": etag})
    assert r.status == 206 and r.body == origins[2]["small.bin"][:10]


def test_if_range_mismatch_gives_full_200(eddy, origins):
    warm(eddy)
    r = eddy.get(SMALL, {"Range": "bytes=0-9", "If-Range": '"nope"'})
    assert r.status == 200 and r.body == origins[2]["small.bin"]


def test_if_range_weak_etag_never_matches(eddy, origins):
    etag = warm(eddy).h("etag")
    r = eddy.get(SMALL, {"Range": "bytes=0-9", "If-Range": "W/" + etag})
    assert r.status == 200


def test_if_range_date_equal_to_last_modified_gives_206(eddy, origins):
    lm = warm(eddy).h("last-modified")
    r = eddy.get(SMALL, {"Range": "bytes=0-9", "If-Range": lm})
    assert r.status == 206


def test_head_has_length_and_no_body(eddy, origins):
    n = len(origins[2]["small.bin"])
    r = eddy.get(SMALL, method="HEAD")
    assert r.status == 200 and r.h("content-length") == str(n) and r.body == b""
    r = eddy.get(SMALL, {"Range": "bytes=0-99"}, method="HEAD")
    assert r.status == 206 and r.h("content-length") == "100" and r.body == b""


def test_multiple_ranges_are_multipart_byteranges(eddy, origins):
    data = origins[2]["small.bin"]
    warm(eddy)
    r = eddy.get(SMALL, {"Range": "bytes=0-9,5000-5009,-5"})
    assert r.status == 206
    m = re.match(r"multipart/byteranges; boundary=(\S+)", r.h("content-type"))
    assert m
    parts = r.body.split(b"--" + m.group(1).encode())
    bodies = []
    for p in parts[1:-1]:
        head, _, body = p.partition(b"\r\n\r\n")
        assert b"Content-Range: bytes" in head
        bodies.append(body[:-2] if body.endswith(b"\r\n") else body)
    assert bodies == [data[0:10], data[5000:5010], data[-5:]]
    assert int(r.h("content-length")) == len(r.body)


def test_overlapping_ranges_coalesce_to_single_part(eddy, origins):
    data = origins[2]["small.bin"]
    warm(eddy)
    r = eddy.get(SMALL, {"Range": "bytes=0-99,50-149"})
    assert r.status == 206 and "multipart" not in r.h("content-type")
    assert r.body == data[:150]


def test_amplifying_ranges_get_200(eddy, origins):
    warm(eddy)
    spec = ",".join(["0-%d" % (len(origins[2]["small.bin"]) - 1)] * 3)
    r = eddy.get(SMALL, {"Range": "bytes=" + spec})
    assert r.status == 200


def test_206_carries_the_headers_a_200_would(eddy):
    full = warm(eddy)
    r = eddy.get(SMALL, {"Range": "bytes=0-0"})
    for h in ("etag", "last-modified", "date", "content-type", "accept-ranges", "via"):
        assert r.h(h) == full.h(h), h


def test_conditional_get_gives_304(eddy):
    etag = warm(eddy).h("etag")
    r = eddy.get(SMALL, {"If-None-Match": etag})
    assert r.status == 304 and r.body == b""
    r = eddy.get(SMALL, {"If-Match": '"other"'})
    assert r.status == 412
