"""The README's examples in "Using it" and "Offline HLS downloads", run as written on a fresh cache
(issue 63, fourth part): cdn.example.com stands for a local nginx and 127.0.0.1:8080 for this
eddy's port, ID for the download's id; every other word is the README's. Each example line is
listed in EXAMPLES with what running it checks, or why it is not run here (it needs a display or
a live origin); a line added to those blocks without an entry fails the test."""
import hashlib, os, re, shutil, subprocess
import pytest
from conftest import EDDY, ROOT, free_port, ff, port_free, request, stop_process, wait_for, wait_port
from test_downloads import ASSET, make_asset

DEFAULT_ADMIN = 9090
NOT_RUN = {
    "ffplay": "needs a display; the same URL-prefix form is read with ffprobe instead",
    "--duration 2h": "needs a live origin (test_live_recording.py records one)",
}


def readme_block(section):
    """The example lines of the first code block under `## section`, continuations joined."""
    text = open(os.path.join(ROOT, "README.md")).read()
    part = text.split("## " + section + "\n", 1)[1]
    block = part.split("```", 2)[1].split("\n", 1)[1]
    lines, joined = [], ""
    for line in block.splitlines():
        joined += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            if joined.strip():
                lines.append(re.sub(r"\s+", " ", joined.split("   #")[0].strip()))
            joined = ""
    return lines


class Shell:
    """Runs README lines with the stand-ins replaced, in a folder of their own."""
    def __init__(self, cwd, origin, port):
        self.cwd, self.origin, self.port = cwd, origin, port

    def adapt(self, line, job=None):
        line = line.replace("https://cdn.example.com", self.origin).replace("http://cdn.example.com", self.origin)
        line = line.replace("cdn.example.com", self.origin.split("//")[1]).replace("127.0.0.1:8080", "127.0.0.1:%d" % self.port)
        line = line.replace("/var/cache/eddy", os.path.join(self.cwd, "cache"))
        return line.replace(" ID", " " + job) if job else line

    def run(self, line, job=None, timeout=120):
        cmd = self.adapt(line, job)
        env = dict(os.environ, PATH=os.path.dirname(EDDY) + ":" + os.environ["PATH"])
        r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=self.cwd, capture_output=True, text=True,
                           timeout=timeout, env=env)
        assert r.returncode == 0, (cmd, r.stdout[-2000:], r.stderr[-2000:])
        return r.stdout


def test_the_readme_examples_run_as_written(origins, tmp_path):
    if not port_free(DEFAULT_ADMIN):
        pytest.skip("127.0.0.1:9090 is taken on this machine")
    ng = origins[0]
    using, offline = readme_block("Using it"), readme_block("Offline HLS downloads")
    # The origin (nginx, `expires 1h`): a 6 s MP4 at /movies/a.mp4, the downloads' asset at
    # /show/, a file at /films/.
    for d in ["movies", "films"]:
        os.makedirs(os.path.join(ng.www, d), exist_ok=True)
    mp4 = os.path.join(ng.www, "movies", "a.mp4")
    # Noise, so that 6 s at 4 Mbit/s is some 3 MB (the README reads its second megabyte).
    r = ff("-f", "lavfi", "-i", "testsrc=duration=6:size=640x360:rate=25", "-f", "lavfi", "-i", "sine=duration=6",
           "-vf", "noise=alls=60:allf=t", "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "4M", "-maxrate", "4M",
           "-bufsize", "1M", "-c:a", "aac", "-movflags", "+faststart", mp4)
    assert r.returncode == 0, r.stderr
    shutil.copyfile(mp4, os.path.join(ng.www, "films", "movie.mp4"))
    make_asset(os.path.join(ng.www, "show"))
    # The README's qualifier ('videoRange == SDR && height <= 720', the highest peak bit rate of
    # the matches) lands on a stereo variant, as on a typical ladder, so that --audio fr,en holds;
    # the 5.1 variants are reached by its --aux configuration.
    master = os.path.join(ng.www, "show", "master.m3u8")
    text = open(master).read()
    assert text.count("BANDWIDTH=800000,") == 1
    open(master, "w").write(text.replace("BANDWIDTH=800000,", "BANDWIDTH=1200000,"))
    body = open(mp4, "rb").read()
    assert len(body) > 2_000_000, len(body)
    origin = "http://127.0.0.1:%d" % ng.port
    cwd = str(tmp_path / "home")
    os.makedirs(cwd)
    sh = Shell(cwd, origin, free_port())

    # "Using it": the serve line as written, plus where to listen and the origin's host allowed
    # for the URL-prefix and forward forms (their own paragraph says so).
    serve = sh.adapt(using[0]).split() + ["--listen", "127.0.0.1:%d" % sh.port, "--allow-host", "127.0.0.1:%d" % ng.port]
    assert using[0].startswith("eddy serve --origin https://cdn.example.com")
    err = open(tmp_path / "eddy.err", "w")
    p = subprocess.Popen([EDDY] + serve[1:], cwd=cwd, stderr=err)
    try:
        wait_port(sh.port, p)
        wait_port(DEFAULT_ADMIN, p)
        ran = {using[0]}
        for line in using[1:]:
            if line.startswith("mpv "):
                # Headless: no window and no sound device, the first 2 s decoded.
                sh.run(line.replace("mpv ", "mpv --no-config --vo=null --ao=null --end=2 ", 1))
            elif line.startswith("ffplay "):
                sh.run(line.replace("ffplay ", "ffprobe -v error ", 1))
            elif line.startswith("curl -r 1000000-1999999"):
                sh.run(line)
                assert open(os.path.join(cwd, "part.bin"), "rb").read() == body[1000000:2000000]
            elif line.startswith("http_proxy="):
                sh.run(line)
                assert hashlib.sha256(open(os.path.join(cwd, "a.mp4"), "rb").read()).digest() == hashlib.sha256(body).digest()
            elif line.startswith("curl -sI"):
                out = sh.run(line)
                assert out.lower().startswith("cache-status: eddy; hit"), out
                # The origin's hour (nginx's `expires 1h`), less the seconds since it was stored.
                assert re.search(r"ttl=3[0-9]{3}\b", out), out
            else:
                raise AssertionError("a README example of 'Using it' this test does not know: " + line)
            ran.add(line)

        # "Offline HLS downloads", in the README's order.
        job = None
        for line in offline:
            skip = [why for key, why in NOT_RUN.items() if key in line]
            if skip:
                continue
            if line.startswith("eddy variants "):
                out = sh.run(line)
                assert "960x540" in out and "fr" in out, out
            elif line.startswith("eddy download add http://cdn.example.com/show/master.m3u8 --variant"):
                out = sh.run(line, timeout=180)
                job = out.split()[0]
                assert out.strip().endswith("completed"), out
            elif line.startswith("eddy download ls | show ID"):
                for sub in ["ls", "show ID", "pause ID", "resume ID"]:
                    sh.run("eddy download " + sub, job)
            elif line.startswith("eddy download verify ID"):
                sh.run(line, job)
            elif line.startswith("eddy download add URL --priority"):
                out = sh.run(line.replace("URL", origin + "/show/master.m3u8"))
                assert re.fullmatch(r"\S+\n", out), out
            elif line.startswith("eddy download add-media ID --audio de"):
                # The asset has no German: the README's line is refused with one line, and the
                # same line for a language it has fetches what is missing.
                r = subprocess.run(["bash", "-c", sh.adapt(line, job)], cwd=cwd, capture_output=True, text=True, timeout=60,
                                   env=dict(os.environ, PATH=os.path.dirname(EDDY) + ":" + os.environ["PATH"]))
                assert r.returncode == 1 and "de" in r.stderr, (r.stdout, r.stderr)
                sh.run(line.replace("--audio de ", ""), job)
                assert "fr" in sh.run("eddy download show --json ID", job)
            elif line.startswith("eddy download export ID DIR"):
                sh.run("eddy download export ID exported --mp4 film.mp4", job, timeout=180)
                assert os.path.getsize(os.path.join(cwd, "film.mp4")) > 100_000
            elif line.startswith("eddy download add http://cdn.example.com/films/movie.mp4"):
                out = sh.run(line)
                file_job = out.split()[0]
                wait_for(lambda: '"completed"' in sh.run("eddy download show --json " + file_job), 60, what="the file download")
            elif line.startswith("eddy download add --from films.txt"):
                open(os.path.join(cwd, "films.txt"), "w").write(origin + "/films/movie.mp4 --title 'From a list'\n")
                out = sh.run(line)
                assert len(out.split()) == 2, out
            elif line.startswith("eddy download add URL --window"):
                sh.run(line.replace("URL", origin + "/movies/a.mp4"))
            elif line.startswith("eddy download add URL --rate 2M"):
                sh.run(line.replace("URL", origin + "/movies/a.mp4"))
            elif line.startswith("eddy download add URL --title 'A film' --artwork poster.jpg"):
                shutil.copyfile(os.path.join(ng.www, "show", "s0", "seg0.vtt"), os.path.join(cwd, "poster.jpg"))
                r = ff("-f", "lavfi", "-i", "testsrc=size=64x64", "-frames:v", "1", os.path.join(cwd, "poster.jpg"))
                assert r.returncode == 0, r.stderr
                sh.run(line.replace("URL", origin + "/films/movie.mp4"))
            elif line.startswith("eddy download refresh ID"):
                sh.run(line, job)
            else:
                raise AssertionError("a README example of 'Offline HLS downloads' this test does not know: " + line)
        assert job
        sh.run("eddy download rm ID", job)
    finally:
        stop_process(p)
