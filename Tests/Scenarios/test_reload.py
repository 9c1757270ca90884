"""Reloading the configuration (issue 14): SIGHUP switches an origin mapping while a long
response streams on, byte-exact; a bad configuration is refused and the running one stays."""
import os, signal, subprocess, time
from conftest import EDDY, free_port, request, sha, stop_process, stream_in_background, wait_for, wait_port


def config(path, origins, extra=""):
    lines = ["origins:"] + ["  - { prefix: %s, url: \"%s\" }" % o for o in origins]
    open(path, "w").write("\n".join(lines) + "\n" + extra)


def test_sighup_switches_an_origin_while_a_long_response_streams(origins, tmp_path):
    ng, fo, data = origins
    nginx, fault = "http://127.0.0.1:%d" % ng.port, "http://127.0.0.1:%d" % fo.port
    cfg = str(tmp_path / "eddy.yaml")
    config(cfg, [("/m/", nginx)])
    port = free_port()
    err = str(tmp_path / "eddy.err")
    proc = subprocess.Popen([EDDY, "serve", "--config", cfg, "--listen", "127.0.0.1:%d" % port,
                             "--cache-dir", str(tmp_path / "cache"), "--access-log", "off"], stderr=open(err, "w"))
    try:
        wait_port(port, proc)
        # A long response: 20 MiB through nginx's 5 MB/s location, read as it arrives.
        t, got = stream_in_background(port, "/m/slow/medium.bin")
        time.sleep(1)  # the subject: the reload comes a second into the 4 s response
        assert request(port, "/x/small.bin").status == 404, "no /x/ route yet"
        config(cfg, [("/m/", fault), ("/x/", nginx)], "max_size: 1G\nlog_level: warning\n")
        proc.send_signal(signal.SIGHUP)
        wait_for(lambda: request(port, "/x/small.bin").status == 200, 10, what="the reload: the new route answering")
        r = request(port, "/x/small.bin")
        assert r.status == 200 and sha(r.body) == sha(data["small.bin"]), "the new route answers"
        before = fo.stats()["requests"]
        r = request(port, "/m/small.bin?after-reload")
        assert r.status == 200 and sha(r.body) == sha(data["small.bin"])
        assert fo.stats()["requests"] == before + 1, "/m/ goes to the new origin"
        assert not any("after-reload" in x[3] for x in ng.requests()), "and no longer to the old one"
        # A configuration that does not validate is refused whole; the running one stays.
        config(cfg, [("/m/", nginx)], "max_size: lots\n")
        proc.send_signal(signal.SIGHUP)
        wait_for(lambda: "configuration reload refused" in open(err).read(), 10, what="the reload refused")
        assert request(port, "/x/small.bin?still").status == 200
        t.join(30)
        assert got == {"status": 200, "sha": sha(data["medium.bin"]), "bytes": len(data["medium.bin"])}, got
        assert proc.poll() is None
    finally:
        stop_process(proc)
    log = open(err).read()
    # log_level: warning took effect: info lines stop after the reload (the refusal is an error).
    assert "eddy listening" in log and "configuration reload refused" in log, log
    assert "configuration reloaded" not in log and "draining" not in log, log
