"""HTTPS origins: certificate and host verification on, HTTP/2 when offered."""
import os, subprocess
import pytest
from conftest import free_port, wait_port, Eddy, sha


@pytest.fixture(scope="module")
def tls_origin(origins, tmp_path_factory):
    ng, _, data = origins
    d = str(tmp_path_factory.mktemp("tls"))
    def run(*a):
        subprocess.run(a, check=True, capture_output=True, cwd=d, timeout=60)
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem",
        "-days", "2", "-subj", "/CN=eddy test CA")
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=localhost")
    open(os.path.join(d, "ext.cnf"), "w").write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    run("openssl", "x509", "-req", "-in", "srv.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "srv.pem", "-days", "2", "-extfile", "ext.cnf")
    port = free_port()
    conf = os.path.join(d, "nginx.conf")
    open(conf, "w").write(f"""
daemon off; user root; worker_processes 1; pid {d}/nginx.pid; error_log {d}/error.log;
events {{ worker_connections 64; }}
http {{
  log_format proto '$request_uri $server_protocol $status $body_bytes_sent';
  access_log {d}/access.log proto;
  client_body_temp_path {d}; proxy_temp_path {d}; fastcgi_temp_path {d}; uwsgi_temp_path {d}; scgi_temp_path {d};
  server {{
    listen 127.0.0.1:{port} ssl http2;
    ssl_certificate {d}/srv.pem; ssl_certificate_key {d}/srv.key;
    root {ng.www};
  }}
}}
""")
    proc = subprocess.Popen(["nginx", "-c", conf, "-p", d], stderr=subprocess.DEVNULL)
    wait_port(port, proc)
    yield port, os.path.join(d, "ca.pem"), os.path.join(d, "access.log"), data
    proc.terminate()
    proc.wait(10)


def test_https_origin_with_trusted_ca_uses_http2(origins, tls_origin, tmp_path):
    ng, fo, _ = origins
    port, ca, log, data = tls_origin
    e = Eddy(str(tmp_path), ng, fo, extra=["--origin", "/tls/=https://localhost:%d" % port, "--ca-file", ca])
    try:
        r = e.get("/tls/medium.bin", {"Range": "bytes=0-999999"})
        assert r.status == 206 and r.body == data["medium.bin"][:1000000]
        r = e.get("/tls/small.bin")
        assert r.status == 200 and sha(r.body) == sha(data["small.bin"])
        lines = open(log).read().splitlines()
        assert lines and all(" HTTP/2.0 " in l for l in lines), lines
    finally:
        e.stop()


def test_https_origin_with_untrusted_certificate_is_502(origins, tls_origin, tmp_path):
    ng, fo, _ = origins
    port, _, _, _ = tls_origin
    e = Eddy(str(tmp_path), ng, fo, extra=["--origin", "/tls/=https://localhost:%d" % port])
    try:
        r = e.get("/tls/small.bin")
        assert r.status == 502 and b"upstream" in r.body
    finally:
        e.stop()
