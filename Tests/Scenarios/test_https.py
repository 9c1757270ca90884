"""HTTPS origins: certificate and host verification on, HTTP/2 when offered."""
import os, subprocess
import pytest
from conftest import free_port, wait_port, Eddy, sha


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
