"""Players over eddy's TLS listener (issue 61): ffmpeg and mpv verify eddy's certificate against the
test's CA and play an HLS stream over https with the same decoded frames as from nginx directly;
headless Chromium plays HLS over https natively in a page served over https by eddy, and then a
download's offline URL over https with the origin stopped."""
import base64, hashlib, os, subprocess
import pytest
from conftest import wait_for
from test_downloads import ASSET, api, make_asset
from test_player import VIDEO_STATE
from test_tls_listener import TLSEddy, pki  # noqa: F401 (a fixture)
from conftest import FaultOrigin
from test_dashboard import chromium



@pytest.fixture
def tls_eddy(origins, pki, tmp_path):
    e = TLSEddy(str(tmp_path), origins, *pki["leaf"])
    yield e
    e.stop()


def framemd5(url, *options):
    r = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", *options, "-i", url, "-map", "0:v:0", "-frames:v", "60", "-f", "framemd5", "-"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return [l for l in r.stdout.splitlines() if not l.startswith("#")]


def test_ffmpeg_plays_hls_over_https_with_the_certificate_verified(tls_eddy, origins, pki, streams):
    ng = origins[0]
    url = "https://localhost:%d/n/hls/fmp4/master.m3u8" % tls_eddy.tls_port
    through = framemd5(url, "-ca_file", pki["ca"], "-tls_verify", "1")
    direct = framemd5("http://127.0.0.1:%d/hls/fmp4/master.m3u8" % ng.port)
    assert len(through) == 60 and through == direct
    log = tls_eddy.access_log()
    assert "/n/hls/fmp4/master.m3u8" in log and (".m4s HTTP/1.1\" 200" in log or ".m4s HTTP/1.1\" 206" in log), log[-2000:]
    # Verification is on: without the CA, ffmpeg refuses eddy's certificate.
    r = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-tls_verify", "1", "-i", url, "-f", "null", "-"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0


def test_mpv_plays_hls_over_https(tls_eddy, pki, streams):
    url = "https://localhost:%d/n/hls/fmp4/master.m3u8" % tls_eddy.tls_port
    r = subprocess.run(["mpv", "--no-config", "--vo=null", "--ao=null", "--untimed", "--ao-null-untimed", "--length=2", "--really-quiet",
                        "--tls-verify=yes", "--tls-ca-file=" + pki["ca"], url], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    log = tls_eddy.access_log()
    assert any(".m4s HTTP/1.1\" 200" in l or ".m4s HTTP/1.1\" 206" in l for l in log.splitlines()), log[-2000:]


def spki_hash(cert_path):
    """The base64 SHA-256 of a certificate's public key, as Chromium's SPKI allow-list takes it."""
    pub = subprocess.run(["openssl", "x509", "-in", cert_path, "-pubkey", "-noout"], capture_output=True, check=True, timeout=10).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=pub, capture_output=True, check=True, timeout=10).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


@pytest.fixture
def browser(pki):
    # eddy's certificate is trusted by its key (Chromium's SPKI allow-list), not by ignoring every
    # certificate error: the page is then a secure context, as it is on a user's trusted LAN box.
    d = chromium("--ignore-certificate-errors-spki-list=" + spki_hash(pki["leaf"][0]))
    try:
        yield d
    finally:
        d.quit()


def play(browser, src, past, timeout):
    browser.execute_script("const v = document.querySelector('video'); v.muted = true; v.src = arguments[0]; v.play();", src)
    def check():
        s = browser.execute_script(VIDEO_STATE.replace(
            "status: document.getElementById('status').dataset.state, text: document.getElementById('status').textContent", "x: 0"))
        assert s["error"] is None, s
        return s["t"] > past and s
    return wait_for(check, timeout, what="the video past %s s" % past)


def test_chromium_plays_hls_and_an_offline_download_over_https(origins, pki, tmp_path, browser):
    origin = FaultOrigin(str(tmp_path))
    make_asset(os.path.join(origin.www, ASSET))
    open(os.path.join(origins[0].www, "tls-page.html"), "w").write("<!doctype html><title>tls</title><video controls></video>")
    e = TLSEddy(str(tmp_path), (origins[0], origin, None), *pki["leaf"])
    try:
        base = "https://127.0.0.1:%d" % e.tls_port
        browser.get(base + "/n/tls-page.html")
        assert browser.execute_script("return window.isSecureContext && location.protocol") == "https:", browser.execute_script("return [location.href, document.title, window.isSecureContext, document.documentElement.outerHTML.slice(0, 300)]")
        s = play(browser, base + "/f/%s/master.m3u8" % ASSET, 2.0, 40)
        assert s["src"] == base + "/f/%s/master.m3u8" % ASSET
        status, j = api(e, "POST", "/api/downloads", {"url": "/f/%s/master.m3u8" % ASSET, "variant_index": 0,
                                                      "audio": ["en"], "subtitles": ["en"]})
        assert status == 201, j
        wait_for(lambda: api(e, "GET", "/api/downloads/" + j["id"])[1]["state"] == "completed", 60, what="the download completed")
        origin.stop()
        origin = None
        job = api(e, "GET", "/api/downloads/" + j["id"])[1]
        plain = "http://127.0.0.1:%d" % e.port
        assert job["playable_offline"] is True and job["offline_url"].startswith(plain + "/"), job
        offline = base + job["offline_url"][len(plain):]
        s = play(browser, offline, 3.0, 40)
        assert s["src"] == offline
        log = e.access_log()
        served = [l for l in log.splitlines() if "/_eddy/offline/%s/" % j["id"] in l]
        assert any(".m4s" in l for l in served) and all('" 200 ' in l or '" 206 ' in l for l in served), log[-3000:]
        # (The page has no icon: Chromium's request for /favicon.ico is eddy's 404 for an unmapped path.)
        errors = [l for l in browser.get_log("browser") if l["level"] == "SEVERE" and "/favicon.ico " not in l["message"]]
        assert errors == [], errors
    finally:
        e.stop()
        if origin:
            origin.stop()
