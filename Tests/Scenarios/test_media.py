"""Real players: ffprobe and ffmpeg read and seek an MP4 through eddy."""
import os, subprocess
import pytest


@pytest.fixture(scope="module")
def mp4(origins):
    ng = origins[0]
    path = os.path.join(ng.www, "clip.mp4")
    if not os.path.exists(path):
        subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=duration=20:size=640x360:rate=25",
                        "-f", "lavfi", "-i", "sine=duration=20", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac",
                        "-shortest", path], check=True, timeout=120)
    return path


def test_ffprobe_reads_duration_through_eddy(eddy, mp4, origins):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0",
                          "http://127.0.0.1:%d/n/clip.mp4" % eddy.port], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert abs(float(out.stdout.strip()) - 20.0) < 0.2


def test_ffmpeg_seeks_and_decodes_through_eddy(eddy, mp4, origins):
    url = "http://127.0.0.1:%d/n/clip.mp4" % eddy.port
    out = subprocess.run(["ffmpeg", "-v", "error", "-ss", "15", "-i", url, "-an", "-frames:v", "10", "-f", "framemd5", "-"],
                         capture_output=True, text=True, timeout=60)
    direct = subprocess.run(["ffmpeg", "-v", "error", "-ss", "15", "-i", mp4, "-an", "-frames:v", "10", "-f", "framemd5", "-"],
                            capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    frames = [l for l in out.stdout.splitlines() if not l.startswith("#")]
    assert len(frames) == 10 and frames == [l for l in direct.stdout.splitlines() if not l.startswith("#")]
    ng = origins[0]
    before = ng.bytes_sent()
    again = subprocess.run(["ffmpeg", "-v", "error", "-i", url, "-map", "0", "-c", "copy", "-f", "null", "-"],
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0
    full = subprocess.run(["ffmpeg", "-v", "error", "-i", url, "-map", "0", "-c", "copy", "-f", "null", "-"],
                          capture_output=True, text=True, timeout=60)
    assert full.returncode == 0
    mid = ng.bytes_sent()
    subprocess.run(["ffmpeg", "-v", "error", "-i", url, "-map", "0", "-c", "copy", "-f", "null", "-"], timeout=60, check=True)
    assert ng.bytes_sent() == mid, "a replay costs the origin nothing"
