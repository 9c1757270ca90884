"""The dashboard (issue 14) in headless Chromium: the page loads with no console error, a download
started through the API appears and its bar rises, a purge from the page removes the resource,
and a screenshot is saved beside the test results (.build/test-results/dashboard.png). Also:
what eddy serves is exactly the committed page, script, style and OpenAPI document."""
import json, os, subprocess, time, urllib.parse
import pytest
from conftest import EDDY, ROOT, Eddy, FaultOrigin, request, wait_for
from test_downloads import ASSET, api, make_asset

from selenium import webdriver
from selenium.webdriver.common.by import By

RESULTS = os.path.join(ROOT, ".build", "test-results")


def test_served_files_are_the_committed_ones(eddy):
    for path, src in [("/", "dashboard/index.html"), ("/dashboard.js", "dashboard/dashboard.js"),
                      ("/dashboard.css", "dashboard/dashboard.css"), ("/api/openapi.json", "docs/openapi.json")]:
        r = request(eddy.admin, path)
        assert r.status == 200, path
        assert r.body == open(os.path.join(ROOT, src), "rb").read(), "%s differs from %s: run scripts/embed" % (path, src)
    assert request(eddy.admin, "/").h("Content-Type") == "text/html; charset=utf-8"
    assert json.loads(request(eddy.admin, "/api/openapi.json").body)["openapi"].startswith("3.1")


def chromium(*extra):
    """Headless Chromium through Debian's driver (selenium must not look for one on the internet),
    its console logged; the caller quits it."""
    o = webdriver.ChromeOptions()
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1200", *extra]:
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    o.binary_location = "/usr/bin/chromium"
    d = webdriver.Chrome(options=o, service=webdriver.ChromeService(executable_path="/usr/bin/chromedriver"))
    d.set_page_load_timeout(30)
    return d


@pytest.fixture
def browser():
    d = chromium()
    try:
        yield d
    finally:
        d.quit()


def test_dashboard_shows_a_download_rising_and_purges_a_resource(origins, tmp_path, browser):
    ng = origins[0]
    fo = FaultOrigin(str(tmp_path))
    e = None
    try:
        make_asset(os.path.join(fo.www, ASSET))
        request(fo.port, "/_set?rate=15000")  # 15 KB/s a connection: the 0.5 MB download takes seconds
        e = Eddy(str(tmp_path), ng, fo)
        assert e.get("/n/small.bin").status == 200
        key = "http://127.0.0.1:%d/small.bin" % ng.port
        browser.get("http://127.0.0.1:%d/" % e.admin)
        wait_for(lambda: browser.find_element(By.ID, "status").text == "live", 20, what="the page live")
        wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, '.resource[data-key="%s"] .rangemap .seg' % key), 20,
                 what="the resource's range map")

        status, j = api(e, "POST", "/api/downloads", {"url": "/f/%s/master.m3u8" % ASSET, "variant_index": 0, "audio": ["en"],
                                                      "title": "Test asset"})
        assert status == 201, j
        sel = '.download[data-id="%s"]' % j["id"]
        wait_for(lambda: "Test asset" in browser.execute_script(
            "const r = document.querySelector(arguments[0]); return r ? r.textContent : ''", sel), 20, what="the download listed")
        # The page redraws every second: read in one script call, not element by element.
        value = lambda: float(browser.execute_script(
            "const b = document.querySelector(arguments[0]); return b ? b.dataset.value : '0'", sel + " .bar.total"))
        first = wait_for(lambda: value() > 0 and value(), 20, what="the download's bar")
        try:
            wait_for(lambda: value() > first + 5, 30, what="the download's bar to rise")
        except AssertionError:
            raise AssertionError((first, value(), api(e, "GET", "/api/downloads/" + j["id"])))
        # A rendition bar per rendition (video, audio), each with bytes and media time.
        count = "return document.querySelectorAll(arguments[0]).length"
        assert browser.execute_script(count, sel + " .renditions .bar.bytes") == 2
        assert browser.execute_script(count, sel + " .renditions .bar.media") == 2
        request(fo.port, "/_set?rate=0")  # seen rising: the rest at full speed (segments asked for from now on)
        # Once the download is done, two resources used last: a whole one and one with holes (a
        # player's first range of a 20 MiB file), so the page draws a range map with both.
        wait_for(lambda: api(e, "GET", "/api/downloads/" + j["id"])[1]["state"] == "completed", 60, what="the download completed")
        time.sleep(1.1)  # last_access counts whole seconds: the two below must be used after the download's
        assert e.get("/n/small.bin").status == 200
        assert e.get("/n/medium.bin", headers={"Range": "bytes=0-99"}).status == 206
        partial = "http://127.0.0.1:%d/medium.bin" % ng.port
        segs = lambda k: browser.execute_script(count, '.resource[data-key="%s"] .rangemap .seg' % k)
        wait_for(lambda: segs(key) == 1 and segs(partial) == 1, 20, what="both range maps")
        width = browser.execute_script(
            "return parseFloat(document.querySelector(arguments[0]).style.width)", '.resource[data-key="%s"] .rangemap .seg' % partial)
        assert 0 < width < 50, width
        os.makedirs(RESULTS, exist_ok=True)
        shot = os.path.join(RESULTS, "dashboard.png")
        assert browser.save_screenshot(shot) and os.path.getsize(shot) > 10_000

        # Purge from the page: the resource is gone from the cache and from the page.
        browser.execute_script("document.querySelector(arguments[0]).click()", '.resource[data-key="%s"] button.purge' % key)
        quoted = urllib.parse.quote(key, safe="")
        wait_for(lambda: request(e.admin, "/api/resources/" + quoted).status == 404, 20, what="the resource purged")
        wait_for(lambda: not browser.find_elements(By.CSS_SELECTOR, '.resource[data-key="%s"]' % key), 20,
                 what="the resource gone from the page")
        assert "fwd=uri-miss" in e.get("/n/small.bin").h("Cache-Status")

        errors = [l for l in browser.get_log("browser") if l["level"] == "SEVERE"]
        assert errors == [], errors
    finally:
        request(fo.port, "/_set?rate=0")
        if e:
            e.stop()
        fo.stop()


def test_downloads_show_artwork_title_window_and_cap_like_the_settings_list(origins, tmp_path, browser):
    """Issue 31, item 5: artwork given as a file (the CLI sends it) and as a URL (eddy fetches it),
    served at /api/downloads/{id}/artwork and drawn by the page, with the title, the window and the cap."""
    ng = origins[0]
    fo = FaultOrigin(str(tmp_path))
    e = None
    try:
        png = str(tmp_path / "poster.png")
        r = subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x90:duration=1", "-frames:v", "1", png],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        jpg = os.path.join(fo.www, "poster.jpg")
        r = subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x90:duration=1", "-frames:v", "1", jpg],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        open(os.path.join(fo.www, "film.bin"), "wb").write(os.urandom(2 << 20))
        open(os.path.join(fo.www, "big.png"), "wb").write(b"\x89PNG\r\n\x1a\n" + os.urandom(1 << 20))
        e = Eddy(str(tmp_path), ng, fo)
        admin = ["--admin", "127.0.0.1:%d" % e.admin]
        out = subprocess.run([EDDY, "download", "add", "/f/film.bin", "--title", "A film", "--artwork", png, "--window", "00:00-23:59",
                              "--rate", "1M", *admin], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        one = out.stdout.split()[0]
        status, two = api(e, "POST", "/api/downloads", {"url": "/f/film.bin", "title": "Same film, poster by URL",
                                                        "artwork": "/f/poster.jpg"})
        assert status == 201 and two["artwork"] == "/api/downloads/%s/artwork" % two["id"], two
        for id, path, ctype in [(one, png, "image/png"), (two["id"], jpg, "image/jpeg")]:
            r = request(e.admin, "/api/downloads/%s/artwork" % id)
            assert r.status == 200 and r.h("Content-Type") == ctype and r.body == open(path, "rb").read(), (id, r.status)
        status, bad = api(e, "POST", "/api/downloads", {"url": "/f/film.bin", "artwork": "/f/film.bin"})
        assert status == 400 and "at most 1 MiB" in bad["error"], bad
        status, bad = api(e, "POST", "/api/downloads", {"url": "/f/film.bin", "artwork": "/f/big.png"})
        assert status == 400 and "at most 1 MiB" in bad["error"], bad
        status, bad = api(e, "POST", "/api/downloads", {"url": "/f/film.bin", "artwork": "data:image/png;base64,aGVsbG8="})
        assert status == 400 and "not a PNG or JPEG" in bad["error"], bad
        assert request(e.admin, "/api/downloads/%s/artwork" % api(e, "POST", "/api/downloads", {"url": "/f/film.bin"})[1]["id"]).status == 204
        assert request(e.admin, "/api/downloads/nosuchid/artwork").status == 404

        browser.get("http://127.0.0.1:%d/" % e.admin)
        wait_for(lambda: browser.find_element(By.ID, "status").text == "live", 20, what="the page live")
        drawn = lambda id: browser.execute_script(
            "const i = document.querySelector(arguments[0]); return i && i.complete ? i.naturalWidth : 0",
            '.download[data-id="%s"] img.artwork' % id)
        wait_for(lambda: drawn(one) == 160 and drawn(two["id"]) == 160, 20, what="both posters drawn")
        row = browser.execute_script("return document.querySelector(arguments[0]).textContent", '.download[data-id="%s"]' % one)
        assert "A film" in row and "window 00:00-23:59" in row and "cap 1.0 MB/s" in row, row
        os.makedirs(RESULTS, exist_ok=True)
        assert browser.save_screenshot(os.path.join(RESULTS, "dashboard-artwork.png"))
        errors = [l for l in browser.get_log("browser") if l["level"] == "SEVERE"]
        assert errors == [], errors
    finally:
        if e:
            e.stop()
        fo.stop()
