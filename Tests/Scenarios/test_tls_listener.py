"""TLS listeners for clients (issue 61, part 1): `--tls-listen` with a certificate made in the test
(trustme's CA), the same bytes as the plain listener (ranges, HEAD, conditionals, cache hits and
fills, a 256 MiB body read slowly), SNI over several certificates, SIGHUP swapping a certificate
while a connection stays open, files that do not load refusing the start or the reload by name,
plain HTTP sent to the TLS port, and testssl.sh's verdict on the protocols and ciphers."""
import hashlib, http.client, os, signal, socket, ssl, subprocess, time
import pytest
import trustme
from conftest import EDDY, Eddy, free_port, proc_status, sha, wait_for, MiB


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = tmp_path_factory.mktemp("pki")
    ca = trustme.CA()
    paths = {"ca": str(d / "ca.pem")}
    ca.cert_pem.write_to_path(paths["ca"])
    for name, hosts in [("leaf", ["localhost", "127.0.0.1"]), ("media", ["media.example.test", "*.cdn.example.test"])]:
        cert = ca.issue_cert(*hosts)
        paths[name] = write_pair(d, name, cert)
    paths["ca_obj"] = ca
    paths["dir"] = d
    return paths


def write_pair(d, name, cert):
    """Writes the chain (leaf first) and the key of a trustme cert; returns their paths."""
    chain, key = str(d / (name + ".pem")), str(d / (name + ".key"))
    with open(chain, "wb") as f:
        for blob in cert.cert_chain_pems:
            f.write(blob.bytes())
    cert.private_key_pem.write_to_path(key)
    return chain, key


def client_context(pki):
    ctx = ssl.create_default_context(cafile=pki["ca"])
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


class TLSEddy(Eddy):
    """eddy with a TLS listener on `tls_port` besides its plain one."""
    def __init__(self, base, origins, cert, key, extra=()):
        self.tls_port = free_port()
        ng, fo, _ = origins
        super().__init__(base, ng, fo, ["--tls-listen", "127.0.0.1:%d" % self.tls_port, "--tls-cert", cert, "--tls-key", key, *extra])


@pytest.fixture
def tls_eddy(origins, pki, tmp_path):
    e = TLSEddy(str(tmp_path), origins, *pki["leaf"])
    yield e
    e.stop()


def tls_request(port, path, ctx, headers=None, method="GET", host="localhost", conn=None):
    """One request over TLS (on `conn` when given, kept open); (status, headers dict, body, conn)."""
    c = conn or http.client.HTTPSConnection(host, port, context=ctx, timeout=60)
    c.request(method, path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body, c


def plain_request(port, path, headers=None, method="GET"):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request(method, path, headers=headers or {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def test_every_byte_over_tls_is_the_plain_listeners(tls_eddy, origins, pki):
    e, ctx = tls_eddy, client_context(pki)
    _, _, data = origins
    cases = [("GET", "/n/small.bin", {}), ("GET", "/n/medium.bin", {}), ("GET", "/n/medium.bin", {"Range": "bytes=1000-2000999"}),
             ("GET", "/n/medium.bin", {"Range": "bytes=-5000"}), ("GET", "/n/medium.bin", {"Range": "bytes=0-0,100-199"}),
             ("HEAD", "/n/medium.bin", {})]
    # The first asks fill over TLS (misses streamed through OpenSSL); the plain listener then hits.
    over_tls = [tls_request(e.tls_port, p, ctx, h, m) for m, p, h in cases]
    plain = [plain_request(e.port, p, h, m) for m, p, h in cases]
    for (m, p, h), (ts, th, tb, _), (ps, ph, pb) in zip(cases, over_tls, plain):
        assert ts == ps and sha(tb) == sha(pb), (m, p, h, ts, ps)
        for field in ["content-length", "content-range", "content-type", "etag"]:
            assert th.get(field) == ph.get(field), (m, p, h, field)
    assert sha(over_tls[1][2]) == sha(data["medium.bin"]) and over_tls[2][0] == 206
    assert over_tls[2][2] == data["medium.bin"][1000:2001000]
    # A hit over TLS says so, as over plain HTTP.
    s, h, b, c = tls_request(e.tls_port, "/n/medium.bin", ctx, {"Range": "bytes=5-1048580"})
    assert s == 206 and b == data["medium.bin"][5:1048581] and "hit" in h["cache-status"], h
    # Conditionals: a validator the client holds gets 304, on the same kept-alive connection.
    s, h2, b, c = tls_request(e.tls_port, "/n/small.bin", ctx, {"If-None-Match": plain[0][1]["etag"]}, conn=c)
    assert s == 304 and b == b"", h2
    assert c.sock.version() in ("TLSv1.3", "TLSv1.2") and c.sock.selected_alpn_protocol() == "http/1.1"
    c.close()
    # The access log holds every request of both listeners.
    log = e.access_log()
    assert log.count('"GET /n/medium.bin HTTP/1.1" 206') >= 6 and log.count('"HEAD /n/medium.bin HTTP/1.1" 200') == 2, log[-2000:]


def test_curl_over_tls_with_a_verified_certificate(tls_eddy, origins, pki):
    _, _, data = origins
    url = "https://localhost:%d/n/small.bin" % tls_eddy.tls_port
    r = subprocess.run(["curl", "-sS", "--http1.1", "--cacert", pki["ca"], "-o", "-", "-w", "%{http_code} %{http_version} %{ssl_verify_result}", url],
                       capture_output=True, timeout=30)
    body, tail = r.stdout[:-len(b"200 1.1 0")], r.stdout[-len(b"200 1.1 0"):]
    assert r.returncode == 0 and tail == b"200 1.1 0" and sha(body) == sha(data["small.bin"]), (r.stderr, tail)
    # Without the CA, curl refuses the certificate: nothing is trusted by accident.
    r = subprocess.run(["curl", "-sS", "-o", "/dev/null", url], capture_output=True, timeout=30)
    assert r.returncode == 60, r.stderr


def test_a_slow_reader_of_a_large_body_over_tls_holds_little_memory(tls_eddy, origins, pki):
    e, ctx = tls_eddy, client_context(pki)
    ng = origins[0]
    # Cached first, over the plain listener: the TLS response is a hit read from disk.
    s, _, b = plain_request(e.port, "/n/big.bin", {"Range": "bytes=0-0"})
    assert s == 206
    big = os.path.join(ng.www, "big.bin")
    plain = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:%d/n/big.bin" % e.port],
                           capture_output=True, text=True, timeout=120)
    assert plain.stdout == "200"
    before = proc_status(e.proc.pid, "VmRSS")
    c = http.client.HTTPSConnection("localhost", e.tls_port, context=ctx, timeout=60)
    c.request("GET", "/n/big.bin")
    r = c.getresponse()
    assert r.status == 200 and int(r.getheader("Content-Length")) == 256 * MiB
    digest = hashlib.sha256(r.read(MiB))
    time.sleep(2)  # the client stops reading: eddy's socket and buffer fill, then it must wait
    during = proc_status(e.proc.pid, "VmRSS")
    while True:
        piece = r.read(4 * MiB)
        if not piece:
            break
        digest.update(piece)
    with open(big, "rb") as f:
        want = hashlib.sha256(f.read()).hexdigest()
    assert digest.hexdigest() == want
    # A whole body read into memory would be 256 MiB; the feed holds a step of it.
    assert during - before < 16 * MiB, (before, during)


def test_sni_chooses_the_certificate_whose_names_cover_the_request(origins, pki, tmp_path):
    cfg = tmp_path / "eddy.yaml"
    cfg.write_text("tls_certificates:\n  - {cert: %s, key: %s}\n  - {cert: %s, key: %s}\n" % (*pki["leaf"], *pki["media"]))
    e = TLSEddy(str(tmp_path), origins, *pki["leaf"], extra=["--config", str(cfg)])
    try:
        ctx = client_context(pki)
        for name in ["localhost", "media.example.test", "a.cdn.example.test"]:
            with socket.create_connection(("127.0.0.1", e.tls_port), timeout=10) as raw:
                with ctx.wrap_socket(raw, server_hostname=name) as s:  # verifies the name against the certificate
                    s.sendall(b"GET /n/small.bin HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % name.encode())
                    head = s.recv(64)
                    assert head.startswith(b"HTTP/1.1 200"), (name, head)
        # A name no certificate covers gets the default (the first), as nginx's default server.
        loose = ssl.create_default_context(cafile=pki["ca"])
        loose.check_hostname = False
        with socket.create_connection(("127.0.0.1", e.tls_port), timeout=10) as raw:
            with loose.wrap_socket(raw, server_hostname="nothing.example") as s:
                names = [v for k, v in s.getpeercert()["subjectAltName"]]
                assert "localhost" in names, names
    finally:
        e.stop()


def peer_certificate(port, pki):
    ctx = client_context(pki)
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with ctx.wrap_socket(raw, server_hostname="localhost") as s:
            return s.getpeercert(binary_form=True)


def test_sighup_swaps_the_certificate_and_keeps_open_connections(origins, pki, tmp_path):
    d = tmp_path / "certs"
    d.mkdir()
    cert, key = write_pair(d, "live", pki["ca_obj"].issue_cert("localhost", "127.0.0.1"))
    cfg = tmp_path / "eddy.yaml"
    cfg.write_text("tls_cert: %s\ntls_key: %s\n" % (cert, key))
    e = Eddy(str(tmp_path), origins[0], origins[1], ["--config", str(cfg), "--tls-listen", "127.0.0.1:%d" % free_port()])
    port = int(e.extra[-1].rsplit(":", 1)[1])
    try:
        ctx = client_context(pki)
        first = peer_certificate(port, pki)
        s, _, _, conn = tls_request(port, "/n/small.bin", ctx)
        assert s == 200
        old_cert = conn.sock.getpeercert(binary_form=True)
        assert old_cert == first
        # The certificate is renewed in place (as certbot or a cron job does), then SIGHUP.
        write_pair(d, "live", pki["ca_obj"].issue_cert("localhost", "127.0.0.1"))
        e.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "TLS certificates reloaded" in open(e.errpath).read(), 10, what="the reload's log line")
        assert peer_certificate(port, pki) != first
        # The connection opened before the reload goes on, with the certificate it was made with.
        s, _, body, conn = tls_request(port, "/n/small.bin", ctx, conn=conn)
        assert s == 200 and sha(body) == sha(origins[2]["small.bin"]) and conn.sock.getpeercert(binary_form=True) == old_cert
        conn.close()
        # A file that no longer loads refuses the reload, naming it; the running certificate stays.
        now = peer_certificate(port, pki)
        open(cert, "w").write("not a certificate\n")
        e.proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "configuration reload refused" in open(e.errpath).read(), 10, what="the refusal's log line")
        err = open(e.errpath).read()
        assert "cannot load the certificate %s" % cert in err, err[-1500:]
        assert peer_certificate(port, pki) == now
    finally:
        e.stop()


def test_files_that_do_not_load_refuse_the_start_naming_them(origins, pki, tmp_path):
    ng, fo, _ = origins
    cases = [(pki["leaf"][0], pki["media"][1], "does not match the certificate"),
             (str(tmp_path / "missing.pem"), pki["leaf"][1], "cannot load the certificate %s" % (tmp_path / "missing.pem")),
             (pki["leaf"][0], str(tmp_path / "missing.key"), "cannot load the key %s" % (tmp_path / "missing.key"))]
    for i, (cert, key, why) in enumerate(cases):
        base = tmp_path / str(i)
        base.mkdir()
        with pytest.raises(RuntimeError) as failed:
            Eddy(str(base), ng, fo, ["--tls-listen", "127.0.0.1:%d" % free_port(), "--tls-cert", cert, "--tls-key", key])
        assert why in str(failed.value), str(failed.value)[-800:]
    # A TLS listener without a certificate is refused before anything starts.
    r = subprocess.run([EDDY, "serve", "--tls-listen", "127.0.0.1:1"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode != 0 and "tls_listen needs a certificate" in r.stderr, r.stderr


def test_plain_http_sent_to_the_tls_port_is_told_so(tls_eddy, pki):
    with socket.create_connection(("127.0.0.1", tls_eddy.tls_port), timeout=10) as s:
        s.sendall(b"GET /n/small.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        got = b""
        while True:
            b = s.recv(4096)
            if not b:
                break
            got += b
    assert got.startswith(b"HTTP/1.1 400 Bad Request\r\n") and b"use https://" in got, got
    # And the listener goes on serving TLS clients.
    assert tls_request(tls_eddy.tls_port, "/n/small.bin", client_context(pki))[0] == 200


def test_testssl_finds_no_weak_protocol_or_cipher(tls_eddy):
    r = subprocess.run(["testssl", "--quiet", "--color", "0", "--warnings", "off", "-p", "-s", "-U", "--ip", "one",
                        "127.0.0.1:%d" % tls_eddy.tls_port], capture_output=True, text=True, timeout=300)
    out = r.stdout
    lines = {l.split("  ")[0].strip(): l for l in out.splitlines() if l.strip()}
    for proto in ["SSLv2", "SSLv3", "TLS 1", "TLS 1.1"]:
        assert "not offered" in lines[proto], out
    for proto in ["TLS 1.2", "TLS 1.3"]:
        assert "offered (OK)" in lines[proto], out
    for category in ["NULL ciphers", "Anonymous NULL", "Export ciphers", "LOW: 64 Bit", "Triple DES", "Obsolete CBC"]:
        line = next(l for l in out.splitlines() if l.strip().startswith(category))
        assert "not offered" in line, line
    assert "VULNERABLE" not in out and "Heartbleed" in out and "ROBOT" in out, out
