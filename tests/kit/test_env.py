"""DesktopEnv against a real desktopd on a real Xvfb: Gymnasium's own checker, episodes with
Anthropic and OpenAI actions, recording, and a vector env over two desktops."""

from __future__ import annotations

import json

import gymnasium as gym
import jsonschema
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from desktopd_kit.env import ENV_ID, DesktopEnv, make_vector_env, register
from desktopd_kit.records import EpisodeReader, schema
from tests.support.desktopd import start_desktopd

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
