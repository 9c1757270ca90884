"""A purge while a player is mid-body. The purge forgets the resource at once (the next request
goes to the origin), and a response already sending it goes on from its open, unlinked file, as
nginx and Varnish keep a replaced object for its readers: whole when the origin still has that
version, cut off (never mixed with another version) when it changed. Before, the response found
its bytes gone and fetched the rest from the origin, or was cut off. Bytes are counted at the
project's fault origin, per path."""
import os, time, urllib.parse
import pytest
from conftest import Eddy, FaultOrigin, make_file, open_body, request, sha
from test_downloads import api

MiB = 1 << 20


@pytest.fixture
def clip(origins, tmp_path):
    """(eddy, fault origin) of their own."""
    fo = FaultOrigin(str(tmp_path))
    e = Eddy(str(tmp_path), origins[0], fo)
    yield e, fo
    request(fo.port, "/_set?rate=0")
    e.stop()
    fo.stop()


def put(fo, name, size, seed, mtime=1_000_000_000):
    """The origin's file, old enough to be heuristically fresh (no revalidation on a hit); put
    in place by a rename, so that a read already open on the old one goes on with the old bytes."""
    path = os.path.join(fo.www, name)
    make_file(path + ".tmp", size, seed)
    os.utime(path + ".tmp", (mtime, mtime))
    os.replace(path + ".tmp", path)
    return open(path, "rb").read()


def origin_bytes(fo, path):
    return fo.stats()["paths"].get(path, {}).get("bytes", 0)


def purge(e, path):
    status, r = api(e, "DELETE", "/api/resources/" + urllib.parse.quote(path, safe=""))
    assert status == 200 and r["purged"] == 1, r


def read_until_cut(resp, have):
    """The rest of the body after the `have` bytes read already, and whether it was cut short of
    its Content-Length (http.client's read(n) returns b"" at a closed connection, without a word)."""
    expected, body = int(resp.getheader("Content-Length")), b""
    while True:
        try:
            b = resp.read(65536)
        except (ConnectionError, OSError):  # a reset ends the body too
            return body, True
        if not b:
            return body, have + len(body) < expected
        body += b


def finish(c, resp, first):
    """The whole body the player got (`first`, then the rest), whether it was cut short, and how
    long the rest took; the connection closed."""
    t0 = time.monotonic()
    rest, cut = read_until_cut(resp, len(first))
    took = time.monotonic() - t0
    c.close()
    return first + rest, cut, took


def test_a_whole_hit_purged_mid_body_ends_whole_from_its_file(clip):
    e, fo = clip
    old = put(fo, "clip.bin", 6 * MiB, 6)
    assert sha(e.get("/f/clip.bin").body) == sha(old)
    before = origin_bytes(fo, "/clip.bin")
    c, resp, first = open_body(e.port, "/f/clip.bin")
    assert resp.status == 200 and "hit" in resp.getheader("Cache-Status", ""), resp.getheaders()
    purge(e, "/f/clip.bin")
    body = first + resp.read()
    c.close()
    assert sha(body) == sha(old), (len(body), len(old))
    assert origin_bytes(fo, "/clip.bin") == before, "the rest came from the old file, not the origin"
    g = e.get("/f/clip.bin")
    assert g.status == 200 and sha(g.body) == sha(old)
    assert origin_bytes(fo, "/clip.bin") - before == len(old), "fetched again after the purge"


def half_stored_and_purged_mid_body(e, fo, name, seed):
    """An 8 MiB file whose first half eddy stores; a player mid-body on it, the origin paced
    (1 MB/s) so that no fill brings the rest before the purge, which then comes.
    Returns (old bytes, connection, response, first bytes)."""
    old = put(fo, name, 8 * MiB, seed)
    r = e.get("/f/" + name, {"Range": "bytes=0-%d" % (4 * MiB - 1)})
    assert r.status == 206 and r.body == old[:4 * MiB]
    request(fo.port, "/_set?rate=1000000")
    c, resp, first = open_body(e.port, "/f/" + name)
    assert resp.status == 200 and int(resp.getheader("Content-Length")) == len(old)
    purge(e, "/f/" + name)
    return old, c, resp, first


def test_a_partly_stored_resource_purged_mid_body_ends_whole(clip):
    """The rest comes from the origin, and the response still ends whole and right."""
    e, fo = clip
    old, c, resp, first = half_stored_and_purged_mid_body(e, fo, "part.bin", 7)
    request(fo.port, "/_set?rate=0")
    body = first + resp.read()
    c.close()
    assert sha(body) == sha(old), (len(body), len(old))
    g = e.get("/f/part.bin")
    assert g.status == 200 and sha(g.body) == sha(old)
    assert "miss" in g.headers["cache-status"], g.headers  # fetched again


def test_a_partly_stored_resource_purged_and_changed_mid_body_is_cut_off_never_mixed(clip):
    """The rest of the purged version is gone from the origin too: the response can only stop
    short (the If-Range of its uncached tail finds another version), never send new bytes."""
    e, fo = clip
    old, c, resp, first = half_stored_and_purged_mid_body(e, fo, "moving.bin", 8)
    new = put(fo, "moving.bin", 8 * MiB, 9, mtime=1_100_000_000)
    request(fo.port, "/_set?rate=0")
    rest, cut = read_until_cut(resp, len(first))
    c.close()
    body = first + rest
    assert cut and len(body) < len(old), (len(body), cut)
    assert body == old[:len(body)], "never a mix of two versions"
    # The stored half is sent before the cut; the cut's reset may take with it what the client's
    # socket still held unread (seen: 64 KiB short of the half, once in a dozen runs). Before,
    # the response stopped at 512 KiB.
    assert len(body) > 2 * MiB, "most of the stored half is sent before the cut (%d)" % len(body)
    assert sha(e.get("/f/moving.bin").body) == sha(new)


def test_a_purged_tail_from_an_origin_answering_more_than_asked_sends_only_the_bytes_asked(clip):
    """After the purge the tail comes straight from the origin, which answers its Range with a
    valid 206 that starts 1,000 bytes early and runs to the end (RFC 9110 section 15.3.7 lets it).
    Only the bytes from the response's position on are the client's: the body ends whole and
    right, not with 1,000 bytes sent twice."""
    e, fo = clip
    old, c, resp, first = half_stored_and_purged_mid_body(e, fo, "wide.bin", 11)
    request(fo.port, "/_set?path=/wide.bin&fail=wide")
    request(fo.port, "/_set?rate=0")
    body, cut, _ = finish(c, resp, first)
    assert not cut and sha(body) == sha(old), (len(body), cut, body[:len(old)] == old[:len(body)])
    request(fo.port, "/_set?path=/wide.bin&fail=")


@pytest.fixture
def touchy(origins, tmp_path):
    """(eddy, [fault origin]) where a stalled origin is given up after 3 s; the list holds the
    origin running now (a test may stop it and start it again on its port)."""
    fo = [FaultOrigin(str(tmp_path))]
    e = Eddy(str(tmp_path), origins[0], fo[0], extra=["--stall-timeout", "3", "--connect-timeout", "2"])
    yield e, fo
    e.stop()
    fo[-1].stop()


@pytest.mark.parametrize("fault", ["refused", "drop", "503", "hang", "portal", "portal302"])
def test_a_partly_stored_resource_purged_mid_body_whose_origin_then_fails_stops_short_never_mixed(touchy, tmp_path, fault):
    """After the purge the uncached tail can only come from the origin, and the origin then fails
    as networks do: refuses (stopped), closes at once, answers 503, accepts and never answers, or
    is a captive portal answering its login page with 200 or 302. The response sends the stored
    half and stops short within the stall timeout, never a byte of the portal's page, and eddy
    keeps nothing of it: once the origin is back, the file comes whole. (An origin that trickles
    the right bytes is slow, not failing: as with nginx's proxy_read_timeout, the stall timeout
    ends a transfer that sends nothing, and the response goes on while bytes come.)"""
    e, fos = touchy
    fo = fos[0]
    name = "tail-%s.bin" % fault
    old, c, resp, first = half_stored_and_purged_mid_body(e, fo, name, 10)
    before = fo.stats()["paths"]["/" + name]["requests"]
    if fault == "refused":
        fo.stop()
    else:
        request(fo.port, "/_set?path=/%s&fail=%s" % (name, fault))
        request(fo.port, "/_set?rate=0")
    body, cut, took = finish(c, resp, first)
    assert cut and len(body) < len(old), (len(body), cut)
    assert body == old[:len(body)], "never a byte of another answer"
    assert len(body) > 2 * MiB, "most of the stored half is sent before the cut (%d)" % len(body)
    assert took < 20, "stopped within the stall timeout (%.1f s)" % took
    if fault == "refused":
        fos.append(FaultOrigin(str(tmp_path), port=fo.port))
        fo = fos[-1]
    else:
        assert fo.stats()["paths"]["/" + name]["requests"] > before, "the tail was asked of the failing origin"
        request(fo.port, "/_set?path=/%s&fail=" % name)
    g = e.get("/f/" + name)
    assert g.status == 200 and sha(g.body) == sha(old), (g.status, len(g.body))
    h = e.get("/f/" + name)
    assert sha(h.body) == sha(old) and "hit" in h.headers["cache-status"], h.headers


SEEDS = [int(s) for s in os.environ.get("EDDY_FAULT_SEEDS", "1,2,3,4,5,6").split(",")]


@pytest.mark.parametrize("seed", SEEDS)
def test_purged_mid_body_behind_a_flaky_origin_ends_whole(touchy, seed):
    """The uncached tail after a purge comes from an origin that answers half its requests with a
    503 or by closing after a random part of the body (seeded). The tail's transfer is tried again
    from the byte it reached, as a fill is: the response ends whole, every byte the old version's,
    and the next request gets the file whole once the origin is sound. Before, the first failure
    cut the response off (seeds 1, 3 and 4 at 4.2-4.3 MB of 8.4)."""
    e, fos = touchy
    fo = fos[0]
    name = "flaky-%d.bin" % seed
    old, c, resp, first = half_stored_and_purged_mid_body(e, fo, name, 20 + seed)
    request(fo.port, "/_set?flaky=0.5&seed=%d" % seed)
    request(fo.port, "/_set?rate=0")
    body, cut, took = finish(c, resp, first)
    print("seed %d: %d of %d bytes, cut %s, %.1f s" % (seed, len(body), len(old), cut, took))
    assert not cut and sha(body) == sha(old), (len(body), cut)
    assert took < 30, took
    request(fo.port, "/_set?flaky=0")
    g = e.get("/f/" + name)
    assert g.status == 200 and sha(g.body) == sha(old), (g.status, len(g.body))
