"""Origins that misbehave, from the project's fault-injecting origin."""
import http.client, os
from conftest import sha, wait_for


def test_drop_mid_body_resumes_byte_exact(eddy, origins):
    _, fo, data = origins
    r = eddy.get("/f/medium.bin?drop_after=3000000&drops=2", timeout=60)
    assert r.status == 200 and sha(r.body) == sha(data["medium.bin"])
    assert eddy.metrics()["eddy_upstream_resumes_total"] >= 1 or eddy.metrics()["eddy_upstream_failures_total"] >= 1


def test_an_origin_dropping_every_response_is_resumed_to_the_end(eddy, origins):
    """Every response of the origin is cut after 1 MB of body (drop_after counts each response's
    bytes): eddy resumes at the first missing byte each time, and the client gets the whole body,
    the origin's bytes, never a padded or shifted one. (This test used to wrap its assertion in
    `except Exception: pass`, which hid that the body was in fact whole; issue 29.)"""
    _, fo, data = origins
    fo.reset()  # the per-path drop counters: an earlier test's drops=K must not use them up
    failures = eddy.metrics()["eddy_upstream_failures_total"]
    c = http.client.HTTPConnection("127.0.0.1", eddy.port, timeout=60)
    c.request("GET", "/f/medium.bin?drop_after=1000000")
    r = c.getresponse()
    assert r.status == 200
    try:
        body = r.read()
    except http.client.IncompleteRead as e:
        body = e.partial
    c.close()
    assert sha(body) == sha(data["medium.bin"]), len(body)
    # One cut, and one fetch from the first missing byte, per megabyte.
    assert eddy.metrics()["eddy_upstream_failures_total"] >= failures + len(body) // 1000000 - 1
    r = eddy.get("/f/medium.bin?drop_after=1000000", {"Range": "bytes=0-999"})
    assert r.status == 206 and r.body == data["medium.bin"][:1000]


def test_origin_ignoring_range_serves_the_right_bytes(eddy, origins):
    _, fo, data = origins
    d = data["medium.bin"]
    r = eddy.get("/f/medium.bin?ignore_range=1", {"Range": "bytes=1000000-1000999"})
    assert r.status == 206 and r.body == d[1000000:1001000]
    wait_for(lambda: not [f for f in eddy.fills() if "medium.bin" in f["url"]], 30, what="the fill to end")
    fo.reset()
    r = eddy.get("/f/medium.bin?ignore_range=1", {"Range": "bytes=0-999"})
    assert r.body == d[:1000]


def test_wrong_content_range_is_rejected_not_cached(eddy, origins):
    _, fo, data = origins
    r = eddy.get("/f/small.bin?wrong_range=1", {"Range": "bytes=0-99"})
    assert r.status == 502
    r = eddy.get("/f/small.bin?wrong_range=1", {"Range": "bytes=0-99"})
    assert r.status == 502, "a rejected 206 must not have been cached"


def test_chunked_origin_is_served_and_cached_once_complete(eddy, origins):
    _, fo, data = origins
    r = eddy.get("/f/small.bin?chunked=1")
    assert r.status == 200 and r.body == data["small.bin"]
    fo.reset()
    r = eddy.get("/f/small.bin?chunked=1", {"Range": "bytes=10-19"})
    assert r.status == 206 and r.body == data["small.bin"][10:20]
    assert r.h("cache-status").startswith("eddy; hit")
    assert fo.stats()["bytes"] == 0


def test_changed_etag_replaces_the_stored_version(eddy, origins, tmp_path):
    _, fo, _ = origins
    p = os.path.join(fo.www, "changing.bin")
    old, new = os.urandom(600000), os.urandom(600000)
    open(p, "wb").write(old)
    os.utime(p, (1_000_000_000, 1_000_000_000))
    r = eddy.get("/f/changing.bin?cc=max-age=0", {"Range": "bytes=0-99999"})
    assert r.body == old[:100000]
    open(p, "wb").write(new)
    os.utime(p, (1_100_000_000, 1_100_000_000))
    r = eddy.get("/f/changing.bin?cc=max-age=0")
    assert r.status == 200 and r.body == new, "never a mix of two versions"
    assert eddy.metrics()["eddy_validator_changes_total"] >= 1
    r = eddy.get("/f/changing.bin?cc=max-age=0", {"Range": "bytes=0-99"})
    assert r.body == new[:100]


def test_stale_resource_is_revalidated_with_304(eddy, origins):
    _, fo, data = origins
    r = eddy.get("/f/small.bin?cc=max-age=0")
    assert r.status == 200
    fo.reset()
    r = eddy.get("/f/small.bin?cc=max-age=0")
    assert r.status == 200 and r.body == data["small.bin"]
    st = fo.stats()
    assert st["requests"] == 1 and st["bytes"] == 0, "a 304 refreshes without a body"


def test_unreachable_origin_is_502(eddy, origins, tmp_path):
    import socket
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    eddy.stop()
    eddy.extra = ["--origin", "/dead/=http://127.0.0.1:%d" % port]
    eddy.start()
    r = eddy.get("/dead/x.bin")
    assert r.status == 502 and b"upstream" in r.body


def test_resource_without_validators_is_never_combined(eddy, origins):
    _, fo, data = origins
    d = data["medium.bin"]
    r = eddy.get("/f/medium.bin?no_validators=1", {"Range": "bytes=0-99"})
    assert r.status == 206 and r.body == d[:100]
    r = eddy.get("/f/medium.bin?no_validators=1", {"Range": "bytes=5000000-5000099"})
    assert r.status == 206 and r.body == d[5000000:5000100]
    assert "fwd=bypass" in r.h("cache-status"), "missing bytes of a validator-less copy come from a pass-through"
    r = eddy.get("/f/medium.bin?no_validators=1")
    assert r.status == 200 and sha(r.body) == sha(d)
