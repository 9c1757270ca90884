"""The admin listener against the browser (issue 34): what a web page in the user's own browser
can do to it. Plain HTTP requests imitate a browser (a rebinding Host, a foreign Origin,
Sec-Fetch-Site, text/plain bodies) against every state-changing operation of docs/openapi.json:
each is refused and changes nothing. The same calls with the CLI's and the dashboard's headers
work. A page on another origin, in headless Chromium, can read nothing and change nothing."""
import http.client, json, os, subprocess, sys, threading, time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
import pytest
from conftest import EDDY, ROOT, Eddy, FaultOrigin, request
from test_dashboard import browser, wait_for  # noqa: F401 (browser: a fixture)
from test_downloads import ASSET, api, make_asset, wait_done

EVIL = "http://evil.example"


def call(e, method, path, headers=None, body=None):
    c = http.client.HTTPConnection("127.0.0.1", e.admin, timeout=30)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, dict((k.lower(), v) for k, v in r.getheaders()), data


@pytest.fixture
def setup(origins, tmp_path):
    ng = origins[0]
    fo = FaultOrigin(str(tmp_path))
    make_asset(os.path.join(fo.www, ASSET))
    e = Eddy(str(tmp_path), ng, fo)
    try:
        assert e.get("/n/small.bin").status == 200
        status, j = api(e, "POST", "/api/downloads", {"url": "/f/%s/v0/index.m3u8" % ASSET})
        assert status == 201, j
        wait_done(e, j["id"])
        yield e, j["id"], "http://127.0.0.1:%d/small.bin" % ng.port
    finally:
        e.stop()
        fo.stop()


def state(e):
    """What a refused request must leave as it was: the downloads (ids, states, specs) and the
    resources (keys, pins)."""
    downloads = [(j["id"], j["state"], len(j["renditions"])) for j in api(e, "GET", "/api/downloads")[1]]
    resources = sorted((r["key"], r.get("pinned")) for r in api(e, "GET", "/api/resources?limit=1000")[1]["resources"])
    return downloads, resources


def operations(job, key):
    """(method, path, JSON body) for every state-changing operation of the OpenAPI document."""
    k = key.replace(":", "%3A").replace("/", "%2F")
    ops = [("POST", "/api/downloads", {"url": "/f/%s/master.m3u8" % ASSET}),
           ("DELETE", "/api/downloads/%s" % job, None),
           ("PATCH", "/api/downloads/%s" % job, {"audio": ["fr"]}),
           ("POST", "/api/downloads/%s/pause" % job, None),
           ("POST", "/api/downloads/%s/resume" % job, None),
           ("POST", "/api/downloads/%s/verify" % job, None),
           ("POST", "/api/downloads/%s/refresh" % job, None),
           ("DELETE", "/api/resources/%s" % k, None),
           ("DELETE", "/api/resources?prefix=%s" % k, None),
           ("POST", "/api/resources/%s/pin" % k, None),
           ("POST", "/api/resources/%s/unpin" % k, None)]
    schema = json.load(open(os.path.join(ROOT, "docs", "openapi.json")))
    documented = {(m.upper(), p) for p, v in schema["paths"].items() for m in v if m in ("post", "put", "patch", "delete")}
    covered = {(m, "/api/" + p.split("/api/")[1].split("?")[0]) for m, p, _ in ops}
    templated = {(m, p.replace(job, "{id}").replace(k, "{key}")) for m, p in covered}
    assert templated == documented, documented ^ templated
    return ops


def test_every_state_changing_operation_refuses_a_browser_page_and_changes_nothing(setup):
    e, job, key = setup
    before = state(e)
    own = "127.0.0.1:%d" % e.admin
    attacks = [
        ("a rebinding Host", {"Host": "evil.example:%d" % e.admin, "Content-Type": "application/json"}, (421,)),
        ("a foreign Origin", {"Origin": EVIL, "Content-Type": "application/json"}, (403,)),
        ("cross-site fetch metadata", {"Sec-Fetch-Site": "cross-site", "Content-Type": "application/json"}, (403,)),
        ("another port of the site", {"Origin": "http://127.0.0.1:%d" % e.port, "Sec-Fetch-Site": "same-site",
                                      "Content-Type": "application/json"}, (403,)),
        ("a simple text/plain request", {"Content-Type": "text/plain"}, (415,)),
    ]
    for what, headers, statuses in attacks:
        for method, path, body in operations(job, key):
            h = dict(headers)
            data = json.dumps(body) if body is not None else None
            if data is None and what == "a simple text/plain request":
                continue  # no body is read: nothing for the browser to smuggle in
            status, rh, _ = call(e, method, path, h, data)
            assert status in statuses, (what, method, path, status)
            assert "access-control-allow-origin" not in rh
            assert state(e) == before, (what, method, path)
    # Reads through a rebound name: nothing.
    for path in ["/api/cache", "/api/resources", "/api/downloads", "/api/fills", "/metrics", "/", "/api/downloads/%s/log" % job]:
        status, _, body = call(e, "GET", path, {"Host": "evil.example:%d" % e.admin})
        assert status == 421 and b"small.bin" not in body, (path, status)
    # No CORS grant, to a preflight or a read.
    status, rh, _ = call(e, "OPTIONS", "/api/downloads", {"Origin": EVIL, "Access-Control-Request-Method": "POST",
                                                          "Access-Control-Request-Headers": "content-type"})
    assert "access-control-allow-origin" not in rh and status >= 400, (status, rh)
    status, rh, _ = call(e, "GET", "/api/cache", {"Origin": EVIL})
    assert status == 200 and "access-control-allow-origin" not in rh
    assert "admin request refused" in open(e.errpath).read()
    # The dashboard's own requests (same origin, by any loopback name) and the CLI's still work.
    for host in [own, "localhost:%d" % e.admin]:
        status, _, _ = call(e, "POST", "/api/downloads/%s/pause" % job,
                            {"Host": host, "Origin": "http://" + host, "Sec-Fetch-Site": "same-origin"})
        assert status == 200, host
    admin = ["--admin", own]
    for args in (["cache", "pin", key], ["cache", "unpin", key], ["download", "resume", job], ["download", "verify", job],
                 ["download", "refresh", job]):
        r = subprocess.run([EDDY, *args, *admin], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (args, r.stdout, r.stderr)
    status, j = api(e, "PATCH", "/api/downloads/" + job, {"subtitles": ["none"]})
    assert status in (200, 400), j  # JSON from the CLI's client: read (a media playlist has no renditions to add)
    r = subprocess.run([EDDY, "cache", "purge", key, *admin], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert key not in [k for k, _ in state(e)[1]]


PAGE = """<!doctype html><html><body><script>
const api = "http://127.0.0.1:%(admin)d";
const results = {};
async function attempt(name, f) {
  try { const r = await f(); results[name] = "read " + r.status + " " + (await r.text()).slice(0, 40); }
  catch (e) { results[name] = "blocked: " + e.name; }
}
(async () => {
  await attempt("read", () => fetch(api + "/api/resources"));
  await attempt("create", () => fetch(api + "/api/downloads", {method: "POST", headers: {"Content-Type": "text/plain"},
                                      body: JSON.stringify({url: "/f/%(asset)s/master.m3u8"})}));
  await attempt("create-no-cors", () => fetch(api + "/api/downloads", {method: "POST", mode: "no-cors",
                                      headers: {"Content-Type": "text/plain"}, body: JSON.stringify({url: "/f/%(asset)s/master.m3u8"})}));
  await attempt("delete", () => fetch(api + "/api/downloads/%(job)s", {method: "DELETE"}));
  document.title = "done";
  document.body.setAttribute("data-results", JSON.stringify(results));
})();
</script></body></html>
"""


def test_a_page_from_another_origin_in_chromium_reads_nothing_and_changes_nothing(setup, tmp_path, browser):
    e, job, key = setup
    before = state(e)
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(PAGE % {"admin": e.admin, "asset": ASSET, "job": job})

    class Quiet(SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=str(site), **k)

        def log_message(self, *a):
            pass
    server = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        browser.get("http://127.0.0.1:%d/index.html" % server.server_address[1])
        wait_for(lambda: browser.title == "done", timeout=30)
        results = json.loads(browser.find_element("tag name", "body").get_attribute("data-results"))
    finally:
        server.shutdown()
        server.server_close()
    assert results["read"].startswith("blocked"), results
    assert results["create"].startswith("blocked"), results
    assert results["delete"].startswith("blocked"), results
    # An opaque no-cors answer: the page can not read it, and eddy refused the request.
    assert results["create-no-cors"] == "read 0 ", results
    assert state(e) == before
