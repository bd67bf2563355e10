"""Screen recording with a real ffmpeg on a real Xvfb: playable files, plausible frame counts."""

from __future__ import annotations

import io
import json
import subprocess
import time

import pytest
from PIL import Image

from tests.support.capability import have_program, require

pytestmark = pytest.mark.x11


@pytest.fixture
def ffmpeg():
    require(have_program("ffmpeg") and have_program("ffprobe"), "ffmpeg and ffprobe (Debian package ffmpeg)")


def probe(path) -> dict:
    out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                          "stream=codec_name,width,height,nb_read_frames:format=duration,format_name",
                          "-of", "json", str(path)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def last_frame(path) -> Image.Image:
    out = subprocess.run(["ffmpeg", "-v", "error", "-sseof", "-0.5", "-i", str(path), "-frames:v", "1",
                          "-f", "image2pipe", "-c:v", "png", "-"], capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return Image.open(io.BytesIO(out.stdout)).convert("RGB")


def record(desktopd, body, tmp_path, seconds=1.0):
    started = desktopd.request("POST", "/api/v1/recording/start", json=body)
    assert started.status_code == 200, started.text
    info = started.json()
    assert info["started_at"] > 0 and info["started_monotonic"] > 0
    for x in range(5):  # something moves while it records
        desktopd.request("POST", "/api/v1/tablet", json={"action": "move", "x": 160 + 10 * x, "y": 170})
        time.sleep(seconds / 5)
    stopped = desktopd.request("POST", "/api/v1/recording/stop")
    assert stopped.status_code == 200, stopped.text
    result = stopped.json()
    assert result["id"] == info["id"] and result["exit_code"] == 0
    video = desktopd.request("GET", f"/api/v1/recording/{info['id']}")
    assert video.status_code == 200
    path = tmp_path / f"video-{body.get('codec', 'h264')}"
    path.write_bytes(video.content)
    assert len(video.content) == result["size"] > 0
    return result, video.headers["Content-Type"], path


@pytest.mark.parametrize("codec, media_type, codec_name", [("h264", "video/mp4", "h264"),
                                                           ("vp9", "video/webm", "vp9")])
def test_recording_is_a_playable_video_of_the_region(desktopd, pointer_recorder, ffmpeg, tmp_path,
                                                     codec, media_type, codec_name):
    # an odd-sized region over the recorder's white window: even sides in the file (yuv420p)
    result, content_type, path = record(
        desktopd, {"fps": 10, "codec": codec, "region": "150,150,61,41"}, tmp_path)
    assert content_type == media_type
    info = probe(path)
    stream = info["streams"][0]
    assert stream["codec_name"] == codec_name
    assert (stream["width"], stream["height"]) == (60, 40)
    frames = int(stream["nb_read_frames"])
    assert frames == result["frames"] >= 5    # recorded for over a second at 10 fps
    assert abs(float(info["format"]["duration"]) - result["duration"]) <= 0.25
    assert result["duration"] == pytest.approx(frames / 10)
    assert last_frame(path).getpixel((30, 20)) >= (230, 230, 230)   # the white window


def test_one_recording_at_a_time(desktopd, ffmpeg, tmp_path):
    assert desktopd.request("POST", "/api/v1/recording/stop").status_code == 409
    first = desktopd.request("POST", "/api/v1/recording/start", json={"fps": 5})
    assert first.status_code == 200, first.text
    try:
        again = desktopd.request("POST", "/api/v1/recording/start")
        assert again.status_code == 409 and first.json()["id"] in again.json()["detail"]
        assert desktopd.request("GET", f"/api/v1/recording/{first.json()['id']}").status_code == 409
    finally:
        assert desktopd.request("POST", "/api/v1/recording/stop").status_code == 200
    assert desktopd.request("GET", "/api/v1/recording/" + "0" * 32).status_code == 404


@pytest.mark.parametrize("body, field", [
    ({"codec": "av1"}, "codec"), ({"fps": 0}, "fps"), ({"codec": "h264", "quality": 60}, "quality"),
    ({"region": "0,0,5000,10"}, "region"), ({"region": "1,2,3"}, "region"), ({"seconds": 3}, "seconds"),
])
def test_bad_settings_are_422s(desktopd, body, field):
    resp = desktopd.request("POST", "/api/v1/recording/start", json=body)
    assert resp.status_code == 422 and resp.json()["field"] == field, resp.text
