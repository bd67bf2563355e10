"""DesktopEnv against a real desktopd on a real Xvfb: Gymnasium's own checker, episodes with
Anthropic and OpenAI actions, recording, and a vector env over two desktops."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import gymnasium as gym
import jsonschema
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from desktopd_kit.env import ENV_ID, DesktopEnv, make_vector_env, register
from desktopd_kit.records import EpisodeReader, schema
from testbed.desktopd import start_desktopd

pytestmark = pytest.mark.x11


def test_check_env_passes(desktopd):
    register()
    env = gym.make(ENV_ID, desktop_url=desktopd.url, screenshot_size=(320, 200), settle_s=0)
    try:
        check_env(env.unwrapped)
    finally:
        env.close()


def test_anthropic_episode_with_rewards_termination_and_records(desktopd, xvfb, tmp_path):
    clicks: list[dict] = []

    def reward(observation, action, info):
        clicks.append(info["executed"])
        return 1.0 if info["executed"].get("button") == 3 else 0.0

    env = DesktopEnv(desktopd.url, screenshot_size=(640, 400), record_dir=str(tmp_path), settle_s=0,
                     reward_fn=reward, terminate_fn=lambda observation, info: info["step"] >= 3)
    try:
        observation, info = env.reset(seed=7)
        assert observation["screenshot"].shape == (400, 640, 3)
        assert observation["screenshot"].dtype == np.uint8
        assert isinstance(json.loads(observation["windows"]), list)
        # Coordinates are observation pixels: (100, 50) of a half-size image is (200, 100) on screen.
        _, r1, done1, _, info1 = env.step({"action": "left_click", "coordinate": [100, 50]})
        _, r2, done2, _, _ = env.step({"action": "right_click", "coordinate": [320, 200]})
        _, r3, done3, _, info3 = env.step({"action": "type", "text": "kit"})
        assert (info1["executed"]["x"], info1["executed"]["y"]) == (200, 100)
        assert (r1, r2, r3) == (0.0, 1.0, 0.0) and (done1, done2, done3) == (False, False, True)
        assert info3["format"] == "anthropic" and info3["pointer"] == [640, 400]
        assert info1["settled"]["reason"] == "skipped"    # settle_s=0: desktopd did not wait
        assert env.render().shape == (400, 640, 3)
    finally:
        env.close()
    reader = next(EpisodeReader.all(tmp_path))
    jsonschema.validate(reader.episode, schema("episode"))
    assert reader.episode["outcome"] == {"total_reward": 1.0, "terminated": True, "truncated": False}
    steps = list(reader)
    assert [s.record["result"]["reward"] for s in steps] == [0.0, 1.0, 0.0]
    for step in steps:
        jsonschema.validate(step.record, schema("step"))
    # The reset homes the pointer to the screen's centre: the first step saw it there.
    assert steps[0].record["observation"]["pointer"] == {"x": xvfb.width // 2, "y": xvfb.height // 2}


def test_an_observation_of_another_aspect_comes_from_desktopd_at_that_size(desktopd, xvfb, tmp_path):
    # 1280x800 observed as 640x480: desktopd scales once to exactly that size (x by 0.5, y by
    # 0.6); the record says both factors, and an observation pixel maps back to the screen.
    env = DesktopEnv(desktopd.url, screenshot_size=(640, 480), record_dir=str(tmp_path), settle_s=0,
                     screenshot_format="png")
    try:
        observation, _ = env.reset(seed=3)
        assert observation["screenshot"].shape == (480, 640, 3)
        _, _, _, _, info = env.step({"action": "left_click", "coordinate": [320, 240]})
        assert (info["executed"]["x"], info["executed"]["y"]) == (640, 400)
    finally:
        env.close()
    step = next(iter(next(EpisodeReader.all(tmp_path))))
    jsonschema.validate(step.record, schema("step"))
    seen = step.record["observation"]
    assert seen["image_size"] == {"width": 640, "height": 480}
    assert (seen["scale"], seen["scale_y"]) == (0.5, 0.6)
    with open(tmp_path / step.record["episode_id"] / seen["image"], "rb") as image:
        assert image.read(24)[16:24] == (640).to_bytes(4, "big") + (480).to_bytes(4, "big")   # the PNG's IHDR


def desktop_paths(node) -> list[str]:
    """Every string in ``node`` that is an absolute file name."""
    if isinstance(node, dict):
        return [p for value in node.values() for p in desktop_paths(value)]
    if isinstance(node, list):
        return [p for value in node for p in desktop_paths(value)]
    return [node] if isinstance(node, str) and node.startswith("/") else []


def test_openai_episode_and_recorded_video(desktopd, tmp_path):
    # An OpenAI harness says so: its click looks like ours (and means the same), the format forces it.
    env = DesktopEnv(desktopd.url, record_dir=str(tmp_path), record_video=True, settle_s=0, max_steps=3,
                     screenshot_format="jpeg", action_format="openai")
    try:
        env.reset()
        actions = [{"type": "click", "button": "right", "x": 30, "y": 40},
                   {"type": "scroll", "x": 50, "y": 60, "scroll_x": 0, "scroll_y": 300},
                   {"type": "keypress", "keys": ["SHIFT"]}]
        results = [env.step(a) for a in actions]
    finally:
        env.close()
    executed = [r[4]["executed"] for r in results]
    assert executed[0]["button"] == 3 and executed[1]["dy"] == 3 and executed[2]["keys"] == ["shift"]
    assert [r[4]["format"] for r in results] == ["openai"] * 3
    assert [r[3] for r in results] == [False, False, True]      # max_steps truncates
    reader = next(EpisodeReader.all(tmp_path))
    recording = reader.episode["recording"]
    assert recording["stop"]["frames"] > 0
    times = [s.record["video_time_s"] for s in reader]
    assert all(t is not None and t >= 0 for t in times) and times == sorted(times)
    assert reader.episode["outcome"]["truncated"] is True
    # The video is home: in the episode directory, as desktopd recorded it, and gone from the desktop.
    video = recording["video"]
    assert (video["status"], video["file"], video["bytes"]) == ("complete", "video.mp4", recording["stop"]["size"])
    assert hashlib.sha256(reader.video_path.read_bytes()).hexdigest() == video["sha256"] == recording["stop"]["sha256"]
    assert video["measured_by"] == "ffprobe" and video["frames"] > 0 and max(times) <= video["duration_s"]
    assert desktopd.request("GET", f"/api/v1/recording/{recording['id']}").status_code == 404
    # ... and the record names none of desktopd's files, which are gone (only recording.on_desktop
    # would, while they were there).
    assert "on_desktop" not in recording and not desktop_paths(recording), desktop_paths(recording)
    checked = subprocess.run([sys.executable, "-m", "desktopd_kit.records", "validate", str(reader.directory)],
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # A changed byte is found by validate.
    with open(reader.video_path, "r+b") as fh:
        fh.seek(video["bytes"] // 2)
        byte = fh.read(1)
        fh.seek(video["bytes"] // 2)
        fh.write(bytes([byte[0] ^ 0xFF]))
    checked = subprocess.run([sys.executable, "-m", "desktopd_kit.records", "validate", str(reader.directory)],
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode != 0 and "not the one recorded" in checked.stderr


def test_without_ffprobe_the_video_is_measured_by_desktopd_and_says_so(desktopd, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs"))      # a client machine without ffmpeg
    env = DesktopEnv(desktopd.url, record_dir=str(tmp_path), record_video=True, settle_s=0, max_steps=2)
    try:
        env.reset()
        for _ in range(2):
            env.step({"type": "move", "x": 10, "y": 10})
    finally:
        env.close()
    reader = next(EpisodeReader.all(tmp_path))
    video, stop = reader.episode["recording"]["video"], reader.episode["recording"]["stop"]
    assert (video["status"], video["measured_by"]) == ("complete", "desktopd")
    assert "ffprobe is not installed" in video["measure_note"]
    assert (video["duration_s"], video["frames"]) == (stop["duration"], stop["frames"])
    assert reader.video_path.is_file()


def test_a_vector_env_over_two_desktops(desktopd, xvfb):
    second = start_desktopd(xvfb.display)
    try:
        vector = make_vector_env([desktopd.url, second.url], screenshot_size=(160, 100), settle_s=0)
        try:
            observations, _ = vector.reset(seed=1)
            assert observations["screenshot"].shape == (2, 100, 160, 3)
            actions = {"type": np.array([2, 1]), "x": np.array([10, 20]), "y": np.array([30, 40]),
                       "scroll": np.array([0, 0]), "text": ("a", "b")}
            observations, rewards, terminated, truncated, infos = vector.step(actions)
            assert observations["screenshot"].shape == (2, 100, 160, 3)
            # Gymnasium stacks each info key across the envs; x/y scaled from 160x100 to 1280x800.
            assert list(infos["executed"]["type"]) == ["click", "move"]
            assert list(infos["executed"]["x"]) == [80, 160] and list(infos["executed"]["y"]) == [240, 320]
        finally:
            vector.close()
    finally:
        second.stop()
