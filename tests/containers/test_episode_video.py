"""An episode recorded with video against the real Chromium container: the video comes home into
the episode directory (it plays, covers every step, and the frame at a step's time shows that
step's observation), the desktop keeps no copy, and a desktop killed mid-episode leaves a valid
partial record that says its video was lost."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from urllib.parse import quote

import numpy as np
import pytest
from PIL import Image

from desktopd_kit import DesktopError
from desktopd_kit.env import DesktopEnv
from desktopd_kit.records import EpisodeReader
from testbed.capability import have_program, require

from .support import remove, start_desktop

OBSERVATION = (640, 400)
COLOURS = ["#ff0000", "#00c000", "#0000ff", "#ffff00", "#000000", "#ffffff"]
# Each click paints the whole page the next colour: every step's observation looks different.
JS_COLOURS = "[" + ",".join(f"'{c}'" for c in COLOURS) + "]"
PAGE = "data:text/html," + quote(
    "<title>video</title><style>html,body{margin:0;height:100%;cursor:none}</style>"
    f"<body style='background:{COLOURS[0]}' data-n=0 onclick=\"var c={JS_COLOURS};"
    "this.dataset.n=+this.dataset.n+1;this.style.background=c[this.dataset.n%c.length]\"></body>")
STEPS = 5
SAME = 12.0         # mean absolute difference (0..255) under which two images show the same screen
DIFFERENT = 40.0    # ... and over which they do not


@pytest.fixture
def container(images):
    require(have_program("ffmpeg") and have_program("ffprobe"), "ffmpeg and ffprobe (Debian package ffmpeg)")
    tc, desktop = start_desktop(images["chromium"], ports=(8080, 8122),
                                env={"WIDTH": "1280", "HEIGHT": "800"})
    try:
        yield desktop
    finally:
        remove(tc)


# desktopd answers a step once the screen was still for QUIET_S, and the next step acts at once:
# each observed screen stood QUIET_S before its observation's stamp, several of the video's frame
# intervals.
QUIET_S = 0.4
GRAB_LAG_S = 1.0


def env_on(desktop, record_dir) -> DesktopEnv:
    return DesktopEnv(desktop.url(8080), sidecar_url=desktop.url(8122), token=desktop.token,
                      screenshot_size=OBSERVATION, record_dir=str(record_dir), record_video=True,
                      settle_s=2.0, settle_quiet_s=QUIET_S,
                      # X damage alone: the browser's word that a click's change was drawn in
                      # one frame ends the wait without the QUIET_S of stillness this test reads.
                      settle_browser=False)


def middle(observation) -> dict:
    height, width = observation["screenshot"].shape[:2]
    return {"type": "click", "x": width // 2, "y": height // 2}


def all_frames(video) -> np.ndarray:
    """Every frame of the video, scaled to the observation's size (RGB), in order."""
    width, height = OBSERVATION
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", str(video), "-vf", f"scale={width}:{height}:flags=bilinear",
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], capture_output=True, timeout=120)
    assert out.returncode == 0 and out.stdout, out.stderr
    return np.frombuffer(out.stdout, dtype=np.uint8).reshape(-1, height, width, 3).astype(np.float32)


def difference(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).mean())


def ffprobe(video) -> dict:
    out = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                          "stream=codec_name,nb_read_frames:format=duration", "-of", "json", str(video)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def validate(directory) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "desktopd_kit.records", "validate", str(directory)],
                          capture_output=True, text=True, timeout=120)


def test_an_episode_brings_its_video_home_and_a_killed_desktop_leaves_a_valid_record(container, tmp_path):
    env = env_on(container, tmp_path / "whole")
    try:
        observation, info = env.reset(options={"urls": [PAGE], "episode_id": "whole"})
        for _ in range(STEPS):
            observation, *_ = env.step(middle(observation))
    finally:
        env.close()
    episode = EpisodeReader(info["record_dir"])
    video = episode.episode["recording"]["video"]
    assert (video["status"], video["file"], video["measured_by"]) == ("complete", "video.mp4", "ffprobe"), video
    assert video["deleted_on_desktop"] is True
    assert "on_desktop" not in episode.episode["recording"] and "path" not in episode.episode["recording"]["stop"]
    checked = validate(episode.directory)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    # It plays, and covers every step.
    probed = ffprobe(episode.video_path)
    assert probed["streams"][0]["codec_name"] == "h264"
    assert int(probed["streams"][0]["nb_read_frames"]) == video["frames"] > 0
    steps = list(episode)
    times = [s.record["video_time_s"] for s in steps]
    assert 0 <= min(times) and max(times) <= float(probed["format"]["duration"])

    # The video shows each step's observation near its time, in the steps' order. Steps follow
    # each other faster than the video's frames (the settle ends a still screen's wait at once),
    # so the observed screen stood QUIET_S before its observation's stamp: a frame from that
    # stretch shows it. On a loaded host x11grab may grab late, and the constant frame rate fills
    # the gap with the last frame it grabbed, so the first frame showing it may come up to
    # GRAB_LAG_S after the stamp. Step 1 is left out: its page may still be painting after the reset.
    started = episode.episode["recording"]["started_wall"]
    shots = {s.index: np.asarray(s.image().resize(OBSERVATION), dtype=np.float32) for s in steps}
    frames = all_frames(episode.video_path)
    fps = video["fps"]
    first_shown = {}
    for step in steps[1:]:
        observed = step.record["timestamps"]["observe"]["wall"] - started
        window = range(max(0, int((observed - QUIET_S) * fps)), min(len(frames), int((observed + GRAB_LAG_S) * fps) + 1))
        first_shown[step.index] = next((n for n in window if difference(frames[n], shots[step.index]) < SAME), None)
    print("step -> first frame showing its observation:", first_shown)
    assert None not in first_shown.values(), first_shown
    shown = [first_shown[index] for index in sorted(first_shown)]
    assert shown == sorted(shown) and len(set(shown)) == len(shown), first_shown
    # ... and that frame is not the step before's screen.
    for index in range(3, STEPS + 1):
        assert difference(frames[first_shown[index]], shots[index - 1]) > DIFFERENT, index

    # The desktop keeps no copy.
    gone = container.get(8080, f"/api/v1/recording/{episode.episode['recording']['id']}")
    assert gone.status_code == 404 and "deleted by a client" in gone.json()["detail"], gone.text
    code, listing = container.exec_in("sh", "-c", "ls /tmp/desktopd-recordings-*/ 2>/dev/null || true")
    assert code == 0 and listing.strip() == "", listing

    # A desktop killed mid-episode: the steps so far stay, the record says the video was lost.
    env = env_on(container, tmp_path / "killed")
    try:
        observation, info = env.reset(options={"urls": [PAGE], "episode_id": "killed"})
        for _ in range(2):
            observation, *_ = env.step(middle(observation))
        container.container.kill()
        with pytest.raises(DesktopError):
            env.step(middle(observation))
    finally:
        env.close()
    episode = EpisodeReader(info["record_dir"])
    assert len(episode) == episode.episode["steps"] == 2 and episode.episode["ended_wall"] is not None
    video = episode.episode["recording"]["video"]
    assert (video["status"], video["file"]) == ("lost", None) and "could not be downloaded" in video["reason"]
    assert episode.video_path is None
    # desktopd's file names are said to be on the desktop, and only there.
    recording = episode.episode["recording"]
    assert recording["on_desktop"]["path"].startswith("/tmp/desktopd-recordings-"), recording
    assert "path" not in recording["start"] and "log" not in recording["start"], recording["start"]
    assert sorted(p.name for p in episode.directory.iterdir()) == ["episode.json", "images", "layout", "steps.jsonl"]
    checked = validate(episode.directory)
    assert checked.returncode == 0, checked.stdout + checked.stderr
