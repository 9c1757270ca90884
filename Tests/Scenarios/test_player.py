"""The dashboard's player (issue 63): a completed download plays in headless Chromium from the
dashboard's Play button, at its offline URL, with its origin stopped; and any URL plays through
eddy from the player page. Chromium runs with its default web security: `--no-sandbox` only
because the tests run as root (it drops the OS process sandbox, not the same-origin policy), and
no autoplay or CORS switches. The page is on the admin listener, the media on the proxy
listener: two origins, as a user's browser sees them."""
import os, urllib.parse
import pytest
from conftest import Eddy, FaultOrigin, request, wait_for
from test_dashboard import browser  # noqa: F401 (a fixture)
from test_downloads import ASSET, api, make_asset

from selenium.webdriver.common.by import By

VIDEO_STATE = """const v = document.querySelector('video');
return {t: v.currentTime, error: v.error ? v.error.code + ' ' + v.error.message : null, src: v.currentSrc,
        status: document.getElementById('status').dataset.state, text: document.getElementById('status').textContent};"""


def played_past(browser, seconds, timeout):
    """Waits until the page's video has played past `seconds`, failing at once on a media error."""
    def check():
        s = browser.execute_script(VIDEO_STATE)
        assert s["error"] is None, s
        return s["t"] > seconds and s
    return wait_for(check, timeout, what="the video past %s s" % seconds)


class Site:
    """An origin of its own (the test stops it) holding the downloads' asset, and eddy before it."""
    def __init__(self, origins, tmp_path):
        self.origin = FaultOrigin(str(tmp_path))
        make_asset(os.path.join(self.origin.www, ASSET))
        # The origin named literally: the URL-prefix form may then reach it on loopback.
        self.eddy = Eddy(str(tmp_path), origins[0], self.origin, ["--allow-host", "127.0.0.1:%d" % self.origin.port])

    def stop_origin(self):
        if self.origin:
            self.origin.stop()
            self.origin = None


@pytest.fixture
def site(origins, tmp_path):
    s = Site(origins, tmp_path)
    try:
        yield s
    finally:
        s.eddy.stop()
        s.stop_origin()


def test_play_button_plays_a_completed_download_with_the_origin_stopped(site, browser):
    e = site.eddy
    status, j = api(e, "POST", "/api/downloads", {"url": "/f/%s/master.m3u8" % ASSET, "variant_index": 0,
                                                  "audio": ["en"], "subtitles": ["en"], "title": "Player test"})
    assert status == 201, j
    wait_for(lambda: api(e, "GET", "/api/downloads/" + j["id"])[1]["state"] == "completed", 60, what="the download completed")
    site.stop_origin()
    job = api(e, "GET", "/api/downloads/" + j["id"])[1]
    assert job["playable_offline"] is True and job["offline_url"].startswith("http://127.0.0.1:%d/" % e.port), job

    browser.get("http://127.0.0.1:%d/" % e.admin)
    link = '.download[data-id="%s"] a.play' % j["id"]
    wait_for(lambda: browser.find_elements(By.CSS_SELECTOR, link), 20, what="the Play button")
    href = browser.find_element(By.CSS_SELECTOR, link).get_attribute("href")
    assert href == "http://127.0.0.1:%d/play.html?download=%s" % (e.admin, j["id"]), href
    browser.execute_script("document.querySelector(arguments[0]).click()", link)
    wait_for(lambda: browser.current_url == href, 10, what="the player page")
    s = played_past(browser, 3.0, 40)
    assert s["src"] == job["offline_url"], s
    assert browser.find_element(By.ID, "title").text == "Player test"
    # The player read the segments at the offline URL, each answered whole or in part (no error).
    log = e.access_log()
    offline = [l for l in log.splitlines() if "/_eddy/offline/%s/" % j["id"] in l]
    assert any(".m4s" in l for l in offline) and all('" 200 ' in l or '" 206 ' in l for l in offline), log[-3000:]
    errors = [l for l in browser.get_log("browser") if l["level"] == "SEVERE"]
    assert errors == [], errors


def test_the_player_page_plays_any_url_through_eddy(site, browser):
    e, fo = site.eddy, site.origin
    cache = api(e, "GET", "/api/cache")[1]
    assert cache["proxy_url"] == "http://127.0.0.1:%d" % e.port, cache
    # eddy's own URL plays as it is. A media playlist: Chromium stalls now and then (1 run in 4 to
    # 6, no request pending, no media error) on the asset's full multivariant playlist with its 5
    # variants and 3 audio groups, where the bodies eddy sent were byte-exact (not diagnosed).
    url = "%s/f/%s/v0/index.m3u8" % (cache["proxy_url"], ASSET)
    browser.get("http://127.0.0.1:%d/play.html?url=%s" % (e.admin, urllib.parse.quote(url, safe="")))
    s = played_past(browser, 3.0, 40)
    assert s["src"] == url, s
    assert fo.stats()["requests"] > 0
    # The form: the origin's own URL, typed in, plays through eddy in the URL-prefix form.
    typed = "http://127.0.0.1:%d/%s/v1/index.m3u8" % (fo.port, ASSET)
    field = browser.find_element(By.ID, "url")
    field.clear()
    field.send_keys(typed)
    browser.find_element(By.CSS_SELECTOR, "#open button").click()
    wait_for(lambda: browser.execute_script(VIDEO_STATE)["src"] == cache["proxy_url"] + "/" + typed, 10, what="the new source")
    played_past(browser, 1.0, 40)
    assert any("GET /" + typed in l for l in e.access_log().splitlines())
    assert request(e.admin, "/play.js").status == 200
