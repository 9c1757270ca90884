"""Scale-out behind HAProxy (issue 32, items 4 and 5): config/haproxy.cfg as shipped (its ports
rewritten) in front of three edge eddys whose parents are two parent eddys, nginx the origin,
each node on its own cache directory, all on loopback. 30 clients read 3 HLS assets and 3 MP4s:
the origin sends each object once, each object is held by one parent, and an asset's files come
from one edge. Then an edge is killed with kill -9 mid-run: HAProxy takes it out within 3 s,
only requests that were on it fail, its assets move to the other edges, which fill from the
parents: the origin sends nothing new."""
import concurrent.futures, http.client, os, random, re, shutil, signal, subprocess, time, uuid
import pytest
from conftest import HERE, Eddy, free_port, make_file, sha, stop_process, wait_for, wait_port

MiB = 1 << 20
CFG = os.path.join(HERE, "..", "..", "config", "haproxy.cfg")


def get(port, path):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        c.request("GET", path)
        r = c.getresponse()
        return r.status, r.read(), r.getheader("Cache-Status")
    finally:
        c.close()


class HAProxy:
    """Debian's haproxy with config/haproxy.cfg, listening on `port`, in front of `edges`."""
    def __init__(self, base, port, edges):
        text = open(CFG).read()
        text = text.replace("bind :8080", "bind 127.0.0.1:%d" % port)
        for i, e in enumerate(edges, 1):
            text = re.sub(r"server edge%d \S+ check port \d+" % i, "server edge%d 127.0.0.1:%d check port %d" % (i, e.port, e.admin), text)
        assert text.count("127.0.0.1:") == 1 + len(edges), text
        self.sock = os.path.join(base, "haproxy.sock")
        text = text.replace("global\n", "global\n    stats socket %s level admin\n" % self.sock, 1)
        self.cfg = os.path.join(base, "haproxy.cfg")
        open(self.cfg, "w").write(text)
        check = subprocess.run(["haproxy", "-c", "-f", self.cfg], capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, check.stdout + check.stderr
        self.err = open(os.path.join(base, "haproxy.log"), "w")
        self.proc = subprocess.Popen(["haproxy", "-db", "-f", self.cfg], stdout=self.err, stderr=self.err)
        self.port = port
        wait_port(port, self.proc)

    def servers_up(self):
        """Names of the edges HAProxy has in the pool now (its stats socket)."""
        import socket
        s = socket.socket(socket.AF_UNIX)
        s.connect(self.sock)
        s.sendall(b"show stat\n")
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
        s.close()
        up = set()
        for line in out.decode().splitlines():
            f = line.split(",")
            if len(f) > 17 and f[0] == "edges" and f[1].startswith("edge") and f[17].startswith("UP"):
                up.add(f[1])
        return up

    def stop(self):
        stop_process(self.proc)
        self.err.close()


@pytest.fixture
def cluster(origins, streams, tmp_path):
    ng, fo, _ = origins
    top = "hx-" + uuid.uuid4().hex[:8]
    root = os.path.join(ng.www, top)
    files = {}
    for a in ("show1", "show2", "show3"):
        shutil.copytree(os.path.join(streams, "fmp4"), os.path.join(root, a))
    for i in range(3):
        os.makedirs(os.path.join(root, "film%d" % i))
        make_file(os.path.join(root, "film%d" % i, "movie.mp4"), 3 * MiB + i * 777, 900 + i)
    for dirpath, _, names in os.walk(root):
        for n in names:
            p = os.path.join(dirpath, n)
            files["/%s" % os.path.relpath(p, ng.www)] = open(p, "rb").read()
    nodes, hap = start_cluster(str(tmp_path), ng, fo)
    parents, edges = nodes[:2], nodes[2:]
    yield ng, files, parents, edges, hap
    hap.stop()
    for e in nodes:
        e.stop()


def start_cluster(base, ng, fo):
    """Two parents, three edges and HAProxy in front of them, each node under `base`; returns
    ([parent-1, parent-2, edge1, edge2, edge3], haproxy), HAProxy's checks passed."""
    nodes = []

    def node(name, *extra):
        d = os.path.join(base, name)
        os.makedirs(d)
        nodes.append(Eddy(d, ng, fo, ["--name", name, *extra]))
        return nodes[-1]

    try:
        parents = [node("parent-%d" % i, "--child", "127.0.0.1") for i in (1, 2)]
        plist = sum((["--parent", "http://127.0.0.1:%d" % p.port] for p in parents), [])
        cfg = os.path.join(base, "edge.yaml")
        open(cfg, "w").write("trusted_proxies: [127.0.0.1]\n")
        edges = [node("edge%d" % i, *plist, "--config", cfg) for i in (1, 2, 3)]
        hap = HAProxy(base, free_port(), edges)
    except BaseException:
        for e in nodes:
            e.stop()
        raise
    try:
        wait_for(lambda: hap.servers_up() == {"edge1", "edge2", "edge3"}, 15, 0.2, what="HAProxy's checks to pass")
    except BaseException:
        hap.stop()
        for e in nodes:
            e.stop()
        raise
    return nodes, hap


def origin_counts(ng, files):
    """{path: requests on which the origin sent the object (200 or 206)}."""
    counts = {p: 0 for p in files}
    for status, _, _, uri in ng.requests():
        if uri in counts and status in (200, 206):
            counts[uri] += 1
    return counts


def master_checks(ng, files):
    """{path: the origin's answers that sent no object}: only playlists may have them, 304s to the
    parents' revalidations. An edge asks its parent with max-age=1 for a master, which may be a
    download's held on the other parent (README, "Downloads in a cluster"), and for a playlist it
    has not seen yet, which may be a master: once per edge for a media playlist."""
    checks = {}
    for status, _, _, uri in ng.requests():
        if uri in files and status not in (200, 206):
            assert uri.endswith(".m3u8") and status == 304, (uri, status)
            checks[uri] = checks.get(uri, 0) + 1
    return checks


def served_by(edges, files):
    """{path: set of edges whose access log answered it}."""
    out = {p: set() for p in files}
    for e in edges:
        for path, _ in e.answered():
            p = path[2:] if path.startswith("/n/") else path
            if p in out:
                out[p].add(e)
    return out


def wave(port, files, clients, seed, errors_ok=lambda: False):
    """`clients` concurrent clients, each reading every file in its own random order; returns
    the failures [(path, what)]."""
    paths = sorted(files)

    def client(k):
        rnd = random.Random(seed * 1000 + k)
        order = paths[:]
        rnd.shuffle(order)
        bad = []
        for p in order:
            try:
                s, body, _ = get(port, "/n" + p)
                if p.endswith(".m3u8"):  # eddy writes its URIs as paths through itself
                    body = body.replace(("/n%s/" % os.path.dirname(p)).encode(), b"")
                if s != 200 or sha(body) != sha(files[p]):
                    bad.append((p, s))
            except (OSError, http.client.HTTPException) as e:
                bad.append((p, repr(e)))
        return bad

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        return [b for bad in pool.map(client, range(clients)) for b in bad]


def test_thirty_clients_through_haproxy_cost_one_origin_fetch_per_object_and_survive_an_edge_kill(cluster):
    ng, files, parents, edges, hap = cluster
    t0 = time.monotonic()
    bad = wave(hap.port, files, 30, seed=1)
    took = time.monotonic() - t0
    assert bad == [], bad[:10]
    counts = origin_counts(ng, files)
    assert all(n == 1 for n in counts.values()), {p: n for p, n in counts.items() if n != 1}
    # A master's revalidations reach the origin at most once a second through its one parent.
    checks = master_checks(ng, files)
    assert all(n <= (took + 2 if p.endswith("/master.m3u8") else len(edges)) for p, n in checks.items()), (checks, took)
    # Each object on one parent (the parents' access logs, absolute-form requests).
    held = {p: set() for p in files}
    for par in parents:
        for path, status in par.answered():
            m = re.match(r"http://127\.0\.0\.1:\d+(/.*)$", path)
            if m and m.group(1) in held and status in (200, 206):
                held[m.group(1)].add(par)
    assert all(len(v) == 1 for v in held.values()), {p: len(v) for p, v in held.items() if len(v) != 1}
    # An asset's files from one edge (bounded loads would spill a hot asset's requests to a second
    # edge, which fills from the parents: the origin saw each object once above).
    by = served_by(edges, files)
    assets = {}
    for p, es in by.items():
        assets.setdefault(p.split("/")[2], set()).update(es)
    assert all(len(es) == 1 for es in assets.values()), {a: sorted(e.base[-5:] for e in es) for a, es in assets.items()}

    # An edge dies mid-run: the one serving the most assets (the URIs hash anew each run, and an
    # edge serving none would make the kill a test of nothing).
    before = origin_counts(ng, files)
    first = {a: next(iter(es)) for a, es in assets.items()}
    victim = max(edges, key=lambda e: sum(1 for x in first.values() if x is e))
    name = "edge%d" % (edges.index(victim) + 1)
    t = {}

    def kill_soon():
        time.sleep(1.0)
        t["killed"] = time.monotonic()
        victim.stop(sig=signal.SIGKILL)
        # Watched while the wave runs: after it, the time would be the wave's, not HAProxy's.
        return wait_for(lambda: name not in hap.servers_up() and time.monotonic(), 10, 0.05, what="HAProxy to drop " + name)

    with concurrent.futures.ThreadPoolExecutor(1) as k:
        dropped = k.submit(kill_soon)
        bad = wave(hap.port, files, 30, seed=2)
        out = dropped.result(timeout=30)
    assert out - t["killed"] < 3.0, out - t["killed"]
    # Only requests that were on the dead edge failed (at most one per client), and none after.
    assert len(bad) <= 30, bad[:10]
    others = [e for e in edges if e is not victim]
    logged = {e: len(e.answered()) for e in others}
    assert wave(hap.port, files, 10, seed=3) == []
    # The moved assets were filled from the parents: the origin sent nothing new.
    assert origin_counts(ng, files) == before
    # Only the dead edge's assets moved; the others stayed where they were.
    after = {}
    for e in others:
        for path, _ in e.answered()[logged[e]:]:
            if path.startswith("/n/"):
                after.setdefault(path.split("/")[3], set()).add(e)
    moved = [a for a in assets if first[a] is victim]
    assert moved, "the victim served no asset"
    for a, es in after.items():
        if a not in moved:
            assert es == {first[a]}, (a, es)
    ratio = sum(origin_counts(ng, files).values()) / len(files)
    print("MEASURED objects=%d origin_fetches_per_object=%.2f master_304s=%d first_wave_s=%.1f out_of_pool_s=%.2f failed_during_kill=%d assets_moved=%d/%d"
          % (len(files), ratio, sum(master_checks(ng, files).values()), took, out - t["killed"], len(bad), len(moved), len(assets)))


def test_a_download_on_a_parent_plays_through_haproxy_and_the_edges_with_the_origin_stopped(origins, tmp_path):
    """Item 5's last line: a download added on a parent completes; with the origin stopped it plays
    through HAProxy and the edges, byte-exact, the master cut to what was downloaded."""
    from conftest import FaultOrigin, play
    from test_downloads import ASSET, cli_download_completes, files_of, make_asset
    from test_offline_trust import uris
    ng = origins[0]
    fo = FaultOrigin(str(tmp_path))
    d = make_asset(os.path.join(fo.www, ASSET))
    nodes, hap = start_cluster(str(tmp_path), ng, fo)
    try:
        cli_download_completes(nodes[0], "/f/%s/master.m3u8" % ASSET, "--variant-index", "1", "--audio", "en", "--subtitles", "none")
        fo.stop()
        status, body, _ = get(hap.port, "/f/%s/master.m3u8" % ASSET)
        assert status == 200 and {u.split("/")[-2] for u in uris(body.decode())} == {"v1"}, (status, body)
        for path, data in files_of(d, "v1", "a0").items():
            status, body, cs = get(hap.port, "/f" + path)
            assert status == 200, (path, status, cs)
            if not path.endswith(".m3u8"):
                assert sha(body) == sha(data), path
        play("http://127.0.0.1:%d/f/%s/master.m3u8" % (hap.port, ASSET))
    finally:
        hap.stop()
        for e in nodes:
            e.stop()
        fo.stop()
