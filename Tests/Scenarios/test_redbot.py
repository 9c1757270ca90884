"""REDbot, the HTTP linter (PyPI `redbot`), against eddy and against nginx on the same resources
(issue 29): an MP4 whole and ranged, a multivariant and a media playlist, a TS and an fMP4 segment,
a 404, each with eddy's cache warm (each URL fetched through eddy once before) and cold (a query
string eddy has not seen). REDbot lints the response and runs its own checks on it: a ranged
request, validation with If-None-Match and with If-Modified-Since, content negotiation; the notes
of each check's response count too. Eddy may raise no warning or error (REDbot's levels WARN and
BAD) that nginx does not raise on the same resource, compared by note id (the note's class name)
and check. Eddy's admin answers (docs/openapi.json's GET operations) may raise none at all.

REDbot runs in a child process (this file run as a script), through its Python API: the command
line (`redbot URL`, `-o har` for JSON) reports the notes of the first response only, not those of
its checks' responses (a 304's), and sends no request headers (a Range).
A case with a finding of eddy's not fixed yet is marked xfail(strict) with raises=KnownFinding: it
fails as expected only while eddy's extra notes are among the known ones; a new note fails it
outright, and once fixed it passes and strict xfail fails it, until the mark is removed."""
import json, subprocess, sys, time, urllib.parse
import pytest
from conftest import Eddy, streams  # noqa: F401 (streams: a fixture)
from test_media import mp4  # noqa: F401 (a fixture: clip.mp4 in nginx's root)

# (case, path under nginx's root, request headers)
MEDIA = [
    ("mp4", "clip.mp4", {}),
    ("mp4-range", "clip.mp4", {"Range": "bytes=1000-1999"}),
    ("master-playlist", "hls/fmp4/master.m3u8", {}),
    ("media-playlist", "hls/aes/index.m3u8", {}),
    ("ts-segment", "hls/aes/seg0.ts", {}),
    ("fmp4-segment", "hls/fmp4/hi/seg1.m4s", {}),
    ("404", "missing.mp4", {}),
]
# The admin API's GET operations with a finite answer (not /api/events, a stream that does not
# end; not a download's, there is none), and a 404. "{clip}": the cached clip.mp4's key.
ADMIN = ["/healthz", "/readyz", "/metrics", "/", "/dashboard.css", "/dashboard.js", "/play.html", "/play.js", "/api/openapi.json",
         "/api/cache", "/api/fills", "/api/resources", "/api/resources/{clip}", "/api/downloads",
         "/api/variants?url=/n/hls/fmp4/master.m3u8", "/api/nonexistent"]
# Notes of eddy's that REDbot raises and nginx does not, or that the admin API raises, with the
# reason, while eddy has not fixed them: {case: ({"check:NOTE_ID", ...}, reason)}. Fixed so far:
# Content-Type in a 304 (RFC 9110 section 15.4.5), and no-cache without a validator on the
# dashboard's files (they have an ETag now).
KNOWN = {}


class KnownFinding(AssertionError):
    """Eddy raises notes nginx does not, all of them listed in KNOWN."""


def case(name, id):
    if name not in KNOWN:
        return pytest.param(name, id=id)
    return pytest.param(name, id=id, marks=pytest.mark.xfail(strict=True, raises=KnownFinding, reason=KNOWN[name][1]))


def lint(jobs):
    """REDbot on each {"url", "headers"} of `jobs`, one after the other, in a child process;
    returns one dict per job (see `report`)."""
    r = subprocess.run([sys.executable, __file__], input=json.dumps(jobs), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def linted(origins, streams, mp4, tmp_path_factory):  # noqa: F811
    """{(side, temperature, case): report} for every media case, and {("admin", path): report}."""
    ng = origins[0]
    e = Eddy(str(tmp_path_factory.mktemp("redbot")), ng, origins[1])
    try:
        jobs, keys = [], []
        for name, path, headers in MEDIA:
            # Warm: fetched whole through eddy once. Cold: a URL eddy has not seen (nginx
            # ignores the query string of a static file).
            assert e.get("/n/" + path).status in (200, 404)
            for temp, query in (("warm", ""), ("cold", "?redbot=cold-" + name)):
                jobs += [{"url": "http://127.0.0.1:%d/n/%s%s" % (e.port, path, query), "headers": headers},
                         {"url": "http://127.0.0.1:%d/%s%s" % (ng.port, path, query), "headers": headers}]
                keys += [("eddy", temp, name), ("nginx", temp, name)]
        clip = urllib.parse.quote("http://127.0.0.1:%d/clip.mp4" % ng.port, safe="")
        for path in ADMIN:
            jobs.append({"url": "http://127.0.0.1:%d%s" % (e.admin, path.replace("{clip}", clip)), "headers": {}})
            keys.append(("admin", path))
        t = time.monotonic()
        out = dict(zip(keys, lint(jobs)))
        print("REDbot: %d resources in %.1f s" % (len(jobs), time.monotonic() - t))
        yield out
    finally:
        e.stop()


def bad(report):
    """{"check:NOTE_ID" (or "NOTE_ID" for the response itself): description} of the report's WARN
    and BAD notes."""
    out = {}
    for n in report["notes"]:
        if n["level"] in ("WARN", "BAD"):
            d = "%s %s on %s: %s" % (n["level"], n["id"], n["subject"] or "-", n["summary"])
            out[n["key"]] = out[n["key"]] + "; " + d if n["key"] in out else d
    return out


def judge(name, extra, report):
    """Passes with no `extra` notes; KnownFinding when all of them are known; fails otherwise."""
    if not extra:
        return
    known = KNOWN.get(name, (set(), ""))[0]
    detail = "\n".join("%s: %s" % (k, extra[k]) for k in sorted(extra))
    heads = "\n".join("%s %s" % (c, r["headers"]) for c, r in report["responses"].items())
    if set(extra) <= known:
        raise KnownFinding("known:\n%s" % detail)
    raise AssertionError("REDbot raises on eddy's %s:\n%s\nresponses:\n%s" % (name, detail, heads))


@pytest.mark.parametrize("temp", ["warm", "cold"])
@pytest.mark.parametrize("name", [case(n, n) for n, _, _ in MEDIA])
def test_eddy_raises_nothing_nginx_does_not(linted, name, temp):
    ed, ng = linted[("eddy", temp, name)], linted[("nginx", temp, name)]
    for r in (ed, ng):
        assert r["responses"][""]["complete"], r
    assert ed["responses"][""]["status"] == ng["responses"][""]["status"]
    status = ed["responses"][""]["status"]
    cache_status = dict((k.lower(), v) for k, v in ed["responses"][""]["headers"]).get("cache-status", "")
    # The warm run is served from eddy's cache, the cold one is not (a 404 is stored for 10 s only).
    if status != 404:
        assert ("hit" in cache_status) == (temp == "warm"), cache_status
    b, n = bad(ed), bad(ng)
    judge(name, {k: v for k, v in b.items() if k not in n}, ed)


@pytest.mark.parametrize("path", [case(p, p) for p in ADMIN])
def test_admin_answers_raise_nothing(linted, path):
    r = linted[("admin", path)]
    assert r["responses"][""]["complete"], r
    assert r["responses"][""]["status"] == (404 if path == "/api/nonexistent" else 200)
    judge(path, bad(r), r)


def report(resource):
    """Status, headers and notes of REDbot's response and of each of its checks' ("" for the
    response itself, else "range", "etag_validate", "lm_validate", "conneg")."""
    from httplint.field.parsers.date import MAX_CLOCK_SKEW
    out = {"responses": {}, "notes": []}
    for check, r in [("", resource)] + sorted(resource.subreqs.items()):
        resp = r.response
        out["responses"][check] = {"status": resp.status_code, "complete": resp.complete,
                                   "error": r.fetch_error.desc if r.fetch_error else None, "headers": resp.headers.text}
        # httplint reads Age while checking Date only if Age comes first: eddy sends Age after Date,
        # so a stored response older than 5 s gets DATE_INCORRECT ("clock is N seconds behind")
        # though Date + Age is the time now. The check done right, with Age (httplint's own rule):
        p = resp.headers.parsed
        date_ok = (isinstance(p.get("date"), int) and isinstance(p.get("age"), int) and resp.start_time is not None
                   and abs(p["date"] - int(resp.start_time) + p["age"]) <= MAX_CLOCK_SKEW)
        for note in resp.notes:
            for n in [note] + list(note.subnotes):
                name = n.__class__.__name__
                if name == "DATE_INCORRECT" and date_ok:
                    continue
                out["notes"].append({"key": "%s:%s" % (check, name) if check else name, "id": name,
                                     "level": n.level.name, "subject": n.subject, "summary": n.summary})
    return out


def main():
    """Reads [{"url", "headers"}] on stdin, writes [report] on stdout."""
    import configparser
    import thor
    from redbot.resource import HttpResource
    jobs = json.load(sys.stdin)
    parser = configparser.ConfigParser()
    parser.read_dict({"redbot": {"enable_local_access": "True"}})  # as redbot's CLI: loopback allowed
    config = parser["redbot"]
    results = []

    def start():
        if len(results) == len(jobs):
            thor.stop()
            return
        job = jobs[len(results)]
        resource = HttpResource(config)
        resource.set_request(job["url"], headers=list(job["headers"].items()))

        @thor.events.on(resource)
        def check_done():
            results.append(report(resource))
            thor.schedule(0, start)

        resource.check()

    thor.schedule(0, start)
    thor.run()
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
