"""The admin API against its OpenAPI document (docs/openapi.json), fuzzed by schemathesis (`st run`,
v4) as its users run it against their eddy: the plain command, with the repository's
schemathesis.toml and no data of its own,

    st run docs/openapi.json --url http://127.0.0.1:ADMIN --checks all

bounded (--max-examples, --max-time, one worker). The eddy holds what a user's does, a cached file
and a completed download; the document's links (POST and GET /api/downloads to every operation on
/api/downloads/{id}, GET /api/resources to the ones on /api/resources/{key}) lead the stateful phase
to real ids and keys, where every operation taking one would otherwise meet only 404s ("missing test
data"). Over three seeds it finds no failure (no 5xx; every answer's status, content type, headers,
JSON and server-sent events as the document says; schema-valid input accepted and invalid input
refused) and no warning (schemathesis.toml makes one fail the run), its stateful phase runs, and the
document's own links take it to a real download and a real resource.

A second, narrower run feeds dictionaries of what only this eddy and this asset decide (the
playlists it may fetch, the asset's variants and renditions, the download's files) to the
operations whose schema-valid input only they can refuse, so that their fuzzing reaches past
those 400s and 404s too. The served copy of the document (/api/openapi.json) is the file:
EmbeddedFilesTests checks that."""
import http.client, json, os, re, subprocess, time
from conftest import ROOT, Eddy, streams  # noqa: F401 (streams: a fixture)

SCHEMA = os.path.join(ROOT, "docs", "openapi.json")
CONFIG = os.path.join(ROOT, "schemathesis.toml")
MASTER = "/n/hls/fmp4/master.m3u8"
# EDDY_ST_SEED: other seeds, comma-separated.
SEEDS = os.environ.get("EDDY_ST_SEED", "20251123,7,1031").split(",")
BOUNDS = ["--max-examples", "25", "--workers", "1", "--request-timeout", "20"]
# What the asset (conftest's streams: hls/fmp4, two video variants, English and French audio,
# English subtitles) accepts, in every form the schema documents.
PREDICATES = ["", "lowest", "highest", "height <= 720", "width >= 160 lowest", "height in [180, 90] && videoRange == SDR",
              "!(peakBitRate > 1M) || videoCodec contains avc1"]
AUDIO = ["en", "fr", "EN", " fr ", "eng", "name:audio_2", "audio_3", "all", "none"]
SUBTITLES = ["en", "English", "name:English", "all", "none"]
# The document's links the stateful phase must have followed to a 2xx, by the operation they start from.
DOWNLOAD_SOURCES = ("POST /api/downloads -> [201] ", "GET /api/downloads -> [200] ")
RESOURCE_SOURCES = ("GET /api/resources -> [200] ",)


def api(e, method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", e.admin, timeout=60)
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"Content-Type": "application/json"} if body is not None else {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, json.loads(data) if data else None


def users_eddy(origins, base):
    """An eddy as a user's: a cached file and a completed download of the asset. /show/ maps to
    the asset, so that the schema's examples (/show/master.m3u8) name it. Returns it and the job."""
    ng, fo, _ = origins
    e = Eddy(base, ng, fo, extra=["--origin", "/show/=http://127.0.0.1:%d/hls/fmp4/" % ng.port])
    try:
        assert e.get("/n/small.bin").status == 200
        status, job = api(e, "POST", "/api/downloads", {"url": MASTER, "title": "openapi"})
        assert status == 201, job
        deadline = time.monotonic() + 60
        while job["state"] != "completed":
            assert time.monotonic() < deadline and job["state"] not in ("failed", "cancelled"), job
            time.sleep(0.2)
            status, job = api(e, "GET", "/api/downloads/" + job["id"])
        return e, job
    except BaseException:
        e.stop()
        raise


def st_run(e, cwd, config, seed, max_time=60, extra=()):
    """`st run` on the document against `e`'s admin listener, from `cwd` (its .hypothesis
    database and reports stay there): the completed process, the command, and the run's events
    (the ndjson report: what the output does not show)."""
    report = os.path.join(cwd, "events.ndjson")
    cmd = ["st", "--config-file", config, "run", SCHEMA, "--url", "http://127.0.0.1:%d" % e.admin, "--checks", "all",
           *BOUNDS, "--max-time", str(max_time), "--seed", str(seed), *extra, "--no-color", "--report", "ndjson", "--report-ndjson-path", report]
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=max_time + 120)
    events = [json.loads(line) for line in open(report)] if os.path.exists(report) else []
    return r, " ".join(cmd), events


def assert_clean(r, cmd):
    """Exit status 0, and neither a failure nor a warning in the output."""
    out = r.stdout
    why = "%s\n%s\n%s" % (cmd, out[-20000:], r.stderr[-5000:])
    assert r.returncode == 0, why
    assert "= FAILURES =" not in out and "= WARNINGS =" not in out and "= ERRORS =" not in out, why
    final = [l for l in out.splitlines() if l.startswith("=")][-1]
    assert "No issues found" in final, why


def followed_links(events):
    """(link, status) of every step of the stateful phase that a link of the document (not one
    schemathesis inferred) supplied data to."""
    out = []
    for event in events:
        (kind, data), = event.items()
        if kind != "ScenarioFinished" or data.get("phase") != "stateful":
            continue
        recorder = data["recorder"]
        for case_id, node in recorder.get("cases", {}).items():
            transition = node.get("transition")
            if not transition or transition.get("is_inferred") or not node.get("is_transition_applied"):
                continue
            response = (recorder.get("interactions", {}).get(case_id) or {}).get("response")
            if response:
                out.append((transition["id"], response["status_code"]))
    return out


def test_schemathesis_as_users_run_it(origins, streams, tmp_path):
    for seed in SEEDS:
        base = tmp_path / ("seed-" + seed)
        base.mkdir()
        e, _ = users_eddy(origins, str(base))
        try:
            r, cmd, events = st_run(e, str(base), CONFIG, seed)
            assert_clean(r, cmd)
            print(cmd + "\n" + r.stdout[-2500:])  # the summary, for -s or -rP
            # The stateful phase ran: its scenarios passed, and it followed links.
            out = r.stdout
            assert re.search(r"^ +✅ Stateful$", out, re.M), out[-6000:]
            scenarios = re.search(r"Stateful \(in [0-9.]+s\)\n\n +Scenarios: +(\d+)\n +API Links: +(\d+) covered", out)
            assert scenarios and int(scenarios.group(1)) > 0 and int(scenarios.group(2)) > 0, out[-6000:]
            # The document's own links took it to a real download and a real resource.
            served = [(link, status) for link, status in followed_links(events) if 200 <= status < 300]
            assert any(link.startswith(DOWNLOAD_SOURCES) for link, _ in served), followed_links(events)
            assert any(link.startswith(RESOURCE_SOURCES) for link, _ in served), followed_links(events)
            print("links of the document followed to a 2xx: %d, e.g. %s" % (len(served), sorted(set(l for l, _ in served))[:6]))
            # eddy answered every request: it is still up and ready.
            assert api(e, "GET", "/readyz")[0] == 200
        finally:
            e.stop()


def toml_list(values):
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def config(path, urls, job, files):
    """The repository's schemathesis.toml plus dictionaries of values this run has. What only this
    eddy and this asset decide (the origins it may fetch, the renditions and variants the asset has,
    the download's files) the schema can not say: schema-valid data is accepted only with these
    values, so positive cases take them (probability 1), and the schema's own patterns and
    examples are exercised by the other phases and by the negative cases."""
    text = open(CONFIG).read()
    text += f"""
# Added by test_openapi.py for this run.
[dictionaries.playlists]
values = {toml_list(urls)}
[dictionaries.jobs]
values = {toml_list([job])}
[dictionaries.files]
values = {toml_list(files)}
[dictionaries.predicates]
values = {toml_list(PREDICATES)}
[dictionaries.indexes]
values = [0, 1]
[dictionaries.audio]
values = {toml_list(AUDIO)}
[dictionaries.subtitles]
values = {toml_list(SUBTITLES)}

# The first [[operations]] entry that sets `parameters` for an operation is the one it gets.
[[operations]]
include-operation-id = ["extendDownload"]
parameters = {{ "path.id" = {{ dictionary = "jobs", probability = 0.5 }}, "body.audio[*]" = {{ dictionary = "audio", probability = 1.0 }}, "body.subtitles[*]" = {{ dictionary = "subtitles", probability = 1.0 }} }}

[[operations]]
include-operation-id = ["variants"]
parameters = {{ "query.url" = {{ dictionary = "playlists", probability = 1.0 }} }}

[[operations]]
include-operation-id = ["addDownload"]
parameters = {{ "body.url" = {{ dictionary = "playlists", probability = 1.0 }}, "body.variant" = {{ dictionary = "predicates", probability = 1.0 }}, "body.variant_index" = {{ dictionary = "indexes", probability = 1.0 }}, "body.audio[*]" = {{ dictionary = "audio", probability = 1.0 }}, "body.subtitles[*]" = {{ dictionary = "subtitles", probability = 1.0 }}, "body.auxiliary[*].variant" = {{ dictionary = "predicates", probability = 1.0 }}, "body.auxiliary[*].variant_index" = {{ dictionary = "indexes", probability = 1.0 }}, "body.auxiliary[*].audio[*]" = {{ dictionary = "audio", probability = 1.0 }}, "body.auxiliary[*].subtitles[*]" = {{ dictionary = "subtitles", probability = 1.0 }} }}

[[operations]]
include-operation-id = ["downloadFile"]
parameters = {{ "path.id" = {{ dictionary = "jobs", probability = 0.5 }}, "query.url" = {{ dictionary = "files", probability = 0.7 }} }}
"""
    open(path, "w").write(text)


def test_schemathesis_with_the_assets_renditions(origins, streams, tmp_path):
    """Only the operations whose schema-valid input the asset decides, fed what it has."""
    ng, _, _ = origins
    e, job = users_eddy(origins, str(tmp_path))
    try:
        status, export = api(e, "GET", "/api/downloads/%s/export" % job["id"])
        assert status == 200, export
        files = [f["url"] for f in export["files"] if "url" in f][:6]
        upstream = "http://127.0.0.1:%d" % ng.port
        cfg = str(tmp_path / "schemathesis.toml")
        config(cfg, urls=[MASTER, upstream + MASTER[2:], "/show/master.m3u8"], job=job["id"], files=files)
        only = [a for op in ("addDownload", "extendDownload", "variants", "downloadFile") for a in ("--include-operation-id", op)]
        r, cmd, _ = st_run(e, str(tmp_path), cfg, SEEDS[0], max_time=30, extra=only)
        assert_clean(r, cmd)
        print(cmd + "\n" + r.stdout[-2500:])
        assert api(e, "GET", "/readyz")[0] == 200
    finally:
        e.stop()
