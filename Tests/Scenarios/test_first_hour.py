"""A newcomer's first hour (issue 63): `eddy serve --origin URL` and then `eddy download add URL
--wait` with no other flag, the admin listener's default on 127.0.0.1:9090, what a port in use and
an unreachable listener say."""
import os, subprocess
import pytest
from conftest import EDDY, free_port, make_file, port_free, sha, stop_process, wait_port, request, MiB

DEFAULT_ADMIN = 9090


def serve(tmp_path, ng, name, extra=()):
    port = free_port()
    err = open(tmp_path / (name + ".err"), "w")
    p = subprocess.Popen([EDDY, "serve", "--listen", "127.0.0.1:%d" % port, "--cache-dir", str(tmp_path / name),
                          "--origin", "http://127.0.0.1:%d" % ng.port] + list(extra),
                         stderr=err, cwd=str(tmp_path))
    wait_port(port, p)
    return p, port


def test_serve_then_download_add_works_with_no_other_flag(origins, tmp_path):
    if not port_free(DEFAULT_ADMIN):
        pytest.skip("127.0.0.1:9090 is taken on this machine")
    ng = origins[0]
    make_file(os.path.join(ng.www, "first-hour.bin"), 3 * MiB + 1, 63)
    want = sha(open(os.path.join(ng.www, "first-hour.bin"), "rb").read())
    p, port = serve(tmp_path, ng, "one")
    second = None
    try:
        wait_port(DEFAULT_ADMIN, p)
        # The CLI runs where no config/eddy.yaml is: it finds the listener by its default alone.
        r = subprocess.run([EDDY, "download", "add", "http://127.0.0.1:%d/first-hour.bin" % port, "--wait"],
                           capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
        assert r.returncode == 0, r.stderr
        assert request(port, "/first-hour.bin").h("cache-status").startswith("eddy; hit")
        assert sha(request(port, "/first-hour.bin").body) == want
        # A second eddy on the machine: the default's port is taken, so it serves without the
        # listener and says which flag places it elsewhere.
        second, port2 = serve(tmp_path, ng, "two")
        assert request(port2, "/first-hour.bin").status == 200
        err = open(tmp_path / "two.err").read()
        assert "no admin listener" in err and "--admin HOST:PORT" in err and "--no-admin" in err, err
        # Asked for by name, a port in use stops the start with a line naming the flag.
        r = subprocess.run([EDDY, "serve", "--listen", "127.0.0.1:0", "--cache-dir", str(tmp_path / "three"),
                            "--origin", "http://127.0.0.1:%d" % ng.port, "--admin", "127.0.0.1:%d" % DEFAULT_ADMIN],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode != 0 and "--admin HOST:PORT" in r.stderr and "in use" in r.stderr, r.stderr
    finally:
        stop_process(p)
        if second:
            stop_process(second)


def test_no_admin_turns_it_off_and_the_cli_says_once_what_to_do(origins, tmp_path):
    ng = origins[0]
    p, port = serve(tmp_path, ng, "off", ["--no-admin"])
    try:
        assert request(port, "/").status in (200, 403, 404)
        lonely = free_port()
        r = subprocess.run([EDDY, "download", "ls", "--admin", "127.0.0.1:%d" % lonely],
                           capture_output=True, text=True, timeout=30, cwd=str(tmp_path))
        assert r.returncode == 2
        assert r.stderr.count("cannot reach") == 1 and "--no-admin" in r.stderr and "--admin" in r.stderr, r.stderr
        r = subprocess.run([EDDY, "serve", "--admin", "127.0.0.1:1", "--no-admin"], capture_output=True, text=True, timeout=30)
        assert r.returncode != 0 and "choose one" in r.stderr, r.stderr
    finally:
        stop_process(p)
