"""Screen recording with a real ffmpeg on a real Xvfb: playable files, plausible frame counts."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import time

import pytest
from PIL import Image

from testbed.capability import have_program, require
from testbed.desktopd import start_desktopd

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
    stop_requested = time.time()
    stopped = desktopd.request("POST", "/api/v1/recording/stop")
    stopped_at = time.time()
    assert stopped.status_code == 200, stopped.text
    result = stopped.json()
    assert result["id"] == info["id"] and result["exit_code"] == 0
    # started_at is the first frame's grab, before it was on disk: the video's frames span no
    # more than started_at to the stop (a frame and a half of slack for the cfr rounding).
    assert info["started_at"] < info["first_frame_on_disk_at"]
    assert result["duration"] <= stopped_at - info["started_at"] + 1.5 / body["fps"]
    # ... and reach the stop's request: what a client did before stopping is in the video.
    assert result["duration"] >= stop_requested - info["started_at"]
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


def short_recording(server, seconds: float = 0.5) -> dict:
    """Records about ``seconds`` of the screen while the pointer moves; the stop answer."""
    started = server.request("POST", "/api/v1/recording/start", json={"fps": 10})
    assert started.status_code == 200, started.text
    deadline = time.monotonic() + seconds
    x = 100
    while time.monotonic() < deadline:
        server.request("POST", "/api/v1/tablet", json={"action": "move", "x": x, "y": 120})
        x += 7
    stopped = server.request("POST", "/api/v1/recording/stop")
    assert stopped.status_code == 200, stopped.text
    return stopped.json()


def files_of(directory, rec_id: str) -> list[str]:
    return sorted(p.name for p in directory.glob(f"recording-{rec_id}.*"))


@pytest.fixture
def recording_dir(tmp_path):
    return tmp_path / "recordings"


def test_a_downloaded_recording_is_deleted_on_request(xvfb, ffmpeg, recording_dir):
    server = start_desktopd(xvfb.display, "--recording-dir", str(recording_dir))
    try:
        done = short_recording(server)
        video = server.request("GET", f"/api/v1/recording/{done['id']}")
        assert video.status_code == 200 and hashlib.sha256(video.content).hexdigest() == done["sha256"]
        assert files_of(recording_dir, done["id"]) == [f"recording-{done['id']}.{e}" for e in ("log", "mp4", "progress")]
        # A state change: refused cross-site and without the token's guard like every other one.
        refused = server.request("DELETE", f"/api/v1/recording/{done['id']}",
                                 headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
        assert refused.status_code == 403 and files_of(recording_dir, done["id"])
        bad = server.request("DELETE", "/api/v1/recording/not-an-id")
        assert bad.status_code == 422 and bad.json()["field"] == "id", bad.text
        deleted = server.request("DELETE", f"/api/v1/recording/{done['id']}")
        assert deleted.status_code == 200, deleted.text
        assert deleted.json()["freed_bytes"] >= done["size"] > 0
        assert files_of(recording_dir, done["id"]) == []
        gone = server.request("GET", f"/api/v1/recording/{done['id']}")
        assert gone.status_code == 404 and "deleted by a client" in gone.json()["detail"]
        assert server.request("DELETE", f"/api/v1/recording/{done['id']}").status_code == 404
        running = server.request("POST", "/api/v1/recording/start", json={"fps": 5}).json()
        try:
            assert server.request("DELETE", f"/api/v1/recording/{running['id']}").status_code == 409
        finally:
            server.request("POST", "/api/v1/recording/stop")
    finally:
        server.stop()


def test_finished_recordings_are_deleted_by_the_size_and_age_limits(xvfb, ffmpeg, recording_dir):
    # One left by an earlier desktopd process (unknown to this one): swept by its age too.
    recording_dir.mkdir()
    leftover = recording_dir / f"recording-{'e' * 32}.mp4"
    leftover.write_bytes(b"\0" * 1000)
    os.utime(leftover, (time.time() - 3600, time.time() - 3600))
    server = start_desktopd(xvfb.display, "--recording-dir", str(recording_dir),
                            "--recording-max-bytes", "1", "--recording-max-age", "5")
    try:
        first = short_recording(server)
        second = short_recording(server)
        # Over the size limit: the older goes when the newer stops; the newest stays downloadable.
        assert files_of(recording_dir, first["id"]) == [] and not leftover.exists()
        gone = server.request("GET", f"/api/v1/recording/{first['id']}")
        assert gone.status_code == 404 and "size limit" in gone.json()["detail"], gone.text
        assert server.request("GET", f"/api/v1/recording/{second['id']}").status_code == 200
        # The age limit ends the newest too, without any request (bounded wait for the sweep).
        deadline = time.monotonic() + 60
        while files_of(recording_dir, second["id"]) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert files_of(recording_dir, second["id"]) == []
        gone = server.request("GET", f"/api/v1/recording/{second['id']}")
        assert gone.status_code == 404 and "age limit" in gone.json()["detail"], gone.text
    finally:
        server.stop()
