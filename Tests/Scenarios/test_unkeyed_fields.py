"""No request field the cache key does not hold shapes what other viewers get (issue 57). An
origin that reflects request fields into a cacheable body (as frameworks do with X-Forwarded-Host
in absolute URLs) is asked by a client carrying one; the next, clean client must get a clean body.
From `trusted_proxies` the fields pass as before; pass-through requests carry them all; cookies
follow the `cookies:` policy (stripped from fills by default, forwarded by name, or bypass)."""
import json, os, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
import pytest
from conftest import Eddy, request

FIELDS = ["X-Forwarded-Host", "X-Forwarded-Proto", "X-Forwarded-Scheme", "X-Forwarded-Port", "X-Forwarded-Server",
          "X-Forwarded-Prefix", "X-Host", "X-Original-URL", "X-Rewrite-URL", "X-HTTP-Method-Override", "Cookie"]


class Reflector:
    """Answers every GET with a cacheable JSON body of the request's fields, and records them."""

    def __init__(self):
        self.seen = {}
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_GET(self):
                fields = {k.lower(): v for k, v in self.headers.items()}
                origin.seen.setdefault(self.path, []).append(fields)
                body = json.dumps({k: v for k, v in fields.items() if k.startswith("x-") or k == "cookie"}, sort_keys=True).encode()
                self.send_response(200)
                self.send_header("Cache-Control", "max-age=600")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def refl():
    r = Reflector()
    yield r
    r.stop()


def start(base, origins, refl, config=""):
    ng, fo, _ = origins
    os.makedirs(base, exist_ok=True)
    path = os.path.join(base, "eddy.yaml")
    with open(path, "w") as f:
        f.write(config)
    return Eddy(base, ng, fo, extra=["--origin", f"/r/=http://127.0.0.1:{refl.port}", "--config", path])


@pytest.fixture(scope="module")
def ed(origins, refl, tmp_path_factory):
    e = start(str(tmp_path_factory.mktemp("unkeyed")), origins, refl,
              "cookies:\n  - { url: \"http://127.0.0.1:%d/signed/\", forward: [CloudFront-Signature] }\n"
              "  - { url: \"http://127.0.0.1:%d/shop/\", bypass: true }\n" % (refl.port, refl.port))
    yield e
    e.stop()


def get(port, path, headers=None):
    r = request(port, path, headers)
    return r.status, r.headers, r.body


def value_for(field):
    return "session=evil" if field == "Cookie" else "evil.example"


@pytest.mark.parametrize("field", FIELDS)
def test_an_untrusted_clients_field_does_not_reach_a_shared_fill_nor_the_next_viewer(ed, refl, field):
    path = "/r/page-" + field.lower()
    status, _, poisoned = get(ed.port, path, {field: value_for(field)})
    assert status == 200 and b"evil" not in poisoned, poisoned
    assert field.lower() not in refl.seen["/page-" + field.lower()][0], refl.seen["/page-" + field.lower()][0]
    status, h, clean = get(ed.port, path)
    assert status == 200 and clean == poisoned and b"evil" not in clean and "hit" in h["cache-status"], (clean, h)
    assert len(refl.seen["/page-" + field.lower()]) == 1


@pytest.mark.parametrize("field", FIELDS)
def test_a_pass_through_request_still_carries_every_field(ed, refl, field):
    path = "/r/private-" + field.lower()
    status, _, body = get(ed.port, path, {field: value_for(field), "Authorization": "Bearer t"})
    assert status == 200 and json.loads(body).get(field.lower()) == value_for(field), body


def test_from_a_trusted_proxy_the_fields_pass(origins, refl, tmp_path):
    e = start(str(tmp_path), origins, refl, "trusted_proxies: [127.0.0.1]\n")
    try:
        for field in FIELDS[:-1]:
            path = "/r/trusted-" + field.lower()
            status, _, body = get(e.port, path, {field: "front.example"})
            assert status == 200 and json.loads(body).get(field.lower()) == "front.example", (field, body)
        status, _, body = get(e.port, "/r/trusted-cookie", {"Cookie": "a=1"})
        assert "cookie" not in json.loads(body), "cookies follow cookies:, whoever sends them"
    finally:
        e.stop()


def test_named_cookies_are_forwarded_on_fills_and_the_others_are_not(ed, refl):
    status, _, body = get(ed.port, "/r/signed/a", {"Cookie": "theme=evil; CloudFront-Signature=abc; x=1"})
    assert status == 200 and json.loads(body).get("cookie") == "CloudFront-Signature=abc", body
    assert refl.seen["/signed/a"][0]["cookie"] == "CloudFront-Signature=abc"


def test_a_bypass_origin_passes_requests_with_cookies_through(ed, refl):
    status, h, body = get(ed.port, "/r/shop/cart", {"Cookie": "cart=1"})
    assert status == 200 and json.loads(body).get("cookie") == "cart=1" and "fwd=bypass" in h["cache-status"], (body, h)
    status, h, body = get(ed.port, "/r/shop/cart", {"Cookie": "cart=2"})
    assert json.loads(body).get("cookie") == "cart=2" and len(refl.seen["/shop/cart"]) == 2, body
    # Without cookies the URL is cached as any other.
    get(ed.port, "/r/shop/cart")
    status, h, body = get(ed.port, "/r/shop/cart")
    assert "hit" in h["cache-status"] and "cookie" not in json.loads(body) and len(refl.seen["/shop/cart"]) == 3
    # A hit is never what a request with cookies gets there.
    status, h, body = get(ed.port, "/r/shop/cart", {"Cookie": "cart=3"})
    assert json.loads(body).get("cookie") == "cart=3" and len(refl.seen["/shop/cart"]) == 4
