"""The admin API against its OpenAPI document (docs/openapi.json): schemathesis (`st run`, v4) with
every check fuzzes a live eddy holding a cached file and a completed download, and finds no failure:
no 5xx, every answer's status, content type, headers and JSON as the document says, schema-valid
input accepted and invalid input refused, and no warning (schemathesis.toml makes one fail the run:
an operation whose schema-valid cases are all refused means the document does not say what the API
refuses). The repository's schemathesis.toml tunes it (see there); dictionaries feed it real
resource keys, playlist URLs, the download's id and the asset's variants and renditions, so that
the fuzzing reaches past 404s and 400s that only this eddy and this asset decide."""
import http.client, json, os, subprocess, time
from conftest import ROOT, Eddy, streams  # noqa: F401 (streams: a fixture)

SCHEMA = os.path.join(ROOT, "docs", "openapi.json")
MASTER = "/n/hls/fmp4/master.m3u8"
# Left out of the run: the server-sent event streams (the dashboard's never ends, a download's not
# while it lives).
EXCLUDED = ["/api/events", "/api/downloads/{id}/events"]
EXCLUDED_CHECKS = []
SEED = os.environ.get("EDDY_ST_SEED", "20251123")
# What the asset (conftest's streams: hls/fmp4, two video variants, English and French audio,
# English subtitles) accepts, in every form the schema documents.
PREDICATES = ["", "lowest", "highest", "height <= 720", "width >= 160 lowest", "height in [180, 90] && videoRange == SDR",
              "!(peakBitRate > 1M) || videoCodec contains avc1"]
AUDIO = ["en", "fr", "EN", " fr ", "eng", "name:audio_2", "audio_3", "all", "none"]
SUBTITLES = ["en", "English", "name:English", "all", "none"]


def api(e, method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", e.admin, timeout=60)
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"Content-Type": "application/json"} if body is not None else {})
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, json.loads(data) if data else None


def toml_list(values):
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def config(path, keys, urls, job, files):
    """The repository's schemathesis.toml plus dictionaries of values this run has. What only this
    eddy and this asset decide (the origins it may fetch, the renditions and variants the asset has,
    the download that exists) the schema can not say: schema-valid data is accepted only with these
    values, so positive cases take them (probability 1), and the schema's own patterns and
    examples are exercised by the other phases and by the negative cases."""
    text = open(os.path.join(ROOT, "schemathesis.toml")).read()
    text += f"""
# Added by test_openapi.py for this run.
[dictionaries.keys]
values = {toml_list(keys)}
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
include-path-regex = "^/api/resources/"
parameters = {{ "path.key" = {{ dictionary = "keys", probability = 0.5 }} }}

[[operations]]
include-path-regex = "^/api/downloads/"
parameters = {{ "path.id" = {{ dictionary = "jobs", probability = 0.5 }} }}

[[operations]]
include-operation-id = ["variants"]
parameters = {{ "query.url" = {{ dictionary = "playlists", probability = 1.0 }} }}

[[operations]]
include-operation-id = ["addDownload"]
parameters = {{ "body.url" = {{ dictionary = "playlists", probability = 1.0 }}, "body.variant" = {{ dictionary = "predicates", probability = 1.0 }}, "body.variant_index" = {{ dictionary = "indexes", probability = 1.0 }}, "body.audio[*]" = {{ dictionary = "audio", probability = 1.0 }}, "body.subtitles[*]" = {{ dictionary = "subtitles", probability = 1.0 }}, "body.auxiliary[*].variant" = {{ dictionary = "predicates", probability = 1.0 }}, "body.auxiliary[*].variant_index" = {{ dictionary = "indexes", probability = 1.0 }}, "body.auxiliary[*].audio[*]" = {{ dictionary = "audio", probability = 1.0 }}, "body.auxiliary[*].subtitles[*]" = {{ dictionary = "subtitles", probability = 1.0 }} }}

[[operations]]
include-operation-id = ["downloadFile"]
parameters = {{ "query.url" = {{ dictionary = "files", probability = 0.7 }} }}
"""
    open(path, "w").write(text)


def test_schemathesis_finds_nothing(origins, streams, tmp_path):
    ng, fo, _ = origins
    # /show/ maps to the asset, so that the schema's examples (/show/master.m3u8) name it.
    e = Eddy(str(tmp_path), ng, fo, extra=["--origin", "/show/=http://127.0.0.1:%d/hls/fmp4/" % ng.port])
    try:
        assert e.get("/n/small.bin").status == 200
        status, job = api(e, "POST", "/api/downloads", {"url": MASTER, "title": "openapi"})
        assert status == 201, job
        deadline = time.monotonic() + 60
        while job["state"] != "completed":
            assert time.monotonic() < deadline and job["state"] not in ("failed", "cancelled"), job
            time.sleep(0.2)
            status, job = api(e, "GET", "/api/downloads/" + job["id"])
        status, export = api(e, "GET", "/api/downloads/%s/export" % job["id"])
        assert status == 200, export
        files = [f["url"] for f in export["files"] if "url" in f][:6]
        upstream = "http://127.0.0.1:%d" % ng.port
        cfg = str(tmp_path / "schemathesis.toml")
        config(cfg, keys=["/n/small.bin", upstream + "/small.bin", MASTER, upstream + MASTER[2:]],
               urls=[MASTER, upstream + MASTER[2:], "/show/master.m3u8"], job=job["id"], files=files)
        cmd = ["st", "--config-file", cfg, "run", SCHEMA, "--url", "http://127.0.0.1:%d" % e.admin, "--checks", "all",
               *(["--exclude-checks", ",".join(EXCLUDED_CHECKS)] if EXCLUDED_CHECKS else []), *[a for p in EXCLUDED for a in ("--exclude-path", p)],
               "--max-examples", "25", "--max-time", "60", "--seed", SEED, "--workers", "1", "--request-timeout", "20",
               "--no-color"]
        r = subprocess.run(cmd, cwd=str(tmp_path), capture_output=True, text=True, timeout=150)
        assert r.returncode == 0, "%s\n%s\n%s" % (" ".join(cmd), r.stdout[-20000:], r.stderr[-5000:])
        print(" ".join(cmd) + "\n" + r.stdout[-4000:])  # the summary, for -s or -rP
        # eddy answered every request: it is still up and ready.
        assert api(e, "GET", "/readyz")[0] == 200
    finally:
        e.stop()
