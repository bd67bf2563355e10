"""desktopd_kit.records.Demonstration on a real desktopd and Xvfb (no browser): the person is
xdotool, the agent desktopd's /step; the record validates like an agent's episode."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from desktopd_kit import Desktop
from desktopd_kit.records import Demonstration, EpisodeReader
from desktopd_kit.records.__main__ import main as records_cli
from testbed.capability import have_program, require
from testbed.desktopd import DesktopdProcess

pytestmark = pytest.mark.x11


@pytest.fixture
def person(xvfb):
    require(have_program("xdotool"), "xdotool (Debian package xdotool)")
    return lambda *argv: subprocess.run(["xdotool", *argv], env={"DISPLAY": xvfb.display, "PATH": "/usr/bin:/bin"},
                                        check=True, timeout=20)


def test_person_and_agent_steps_in_one_valid_record(desktopd: DesktopdProcess, person, tmp_path) -> None:
    desktop = Desktop(desktopd.url, token=desktopd.token)
    with Demonstration(desktop, tmp_path, episode_id="demo", typing_idle_ms=300) as demo:
        person("mousemove", "100", "120", "click", "1")
        assert demo.wait_for_steps(1, 20)
        desktop.step({"tablet": {"action": "click", "x": 300, "y": 310}}, settle=0.2)   # the agent, mid-way
        assert demo.wait_for_steps(2, 20)
        person("type", "--delay", "20", "Ada")
        assert demo.wait_for_steps(3, 20)
        person("key", "ctrl+a")
        assert demo.wait_for_steps(4, 20)
    steps = list(EpisodeReader(demo.directory))
    assert [(s.record["source"], s.action["issued"]) for s in steps] == [
        ("person", {"type": "click", "x": 100, "y": 120, "button": "left", "clicks": 1}),
        ("agent", {"type": "click", "x": 300, "y": 310, "button": "left", "clicks": 1}),
        ("person", {"type": "type", "text": "Ada"}),
        ("person", {"type": "keys", "keys": "ctrl+a"})]
    first = steps[0].record
    assert first["action"]["vendor"] == {
        "anthropic": {"action": "left_click", "coordinate": [100, 120]},
        "openai": {"type": "click", "button": "left", "x": 100, "y": 120},
        "pyautogui": "pyautogui.click(100, 120, clicks=1, button='left')"}
    assert steps[3].record["action"]["vendor"]["pyautogui"] == "pyautogui.hotkey('ctrl', 'a')"
    for step in steps:
        assert step.image_path.is_file() and (demo.directory / step.record["after"]["image"]).is_file()
        assert step.record["demonstration"]["recorded_wall"] >= step.record["demonstration"]["end_wall"]
    assert records_cli(["validate", str(demo.directory)]) == 0


def test_the_cli_cut_off_mid_recording_leaves_a_valid_record(desktopd: DesktopdProcess, person, tmp_path) -> None:
    env = {**os.environ, "DESKTOPD_TOKEN": desktopd.token or ""}
    cli = subprocess.Popen([sys.executable, "-m", "desktopd_kit.records", "demonstrate", "--desktop", desktopd.url,
                            "--out", str(tmp_path), "--episode-id", "cut", "--seconds", "60"],
                           env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert "recording" in json.loads(cli.stdout.readline())   # started: the capture runs
        person("mousemove", "50", "60", "click", "1")
        steps = tmp_path / "cut" / "steps.jsonl"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not steps.read_text().strip():
            time.sleep(0.05)
        cli.send_signal(signal.SIGKILL)        # a client gone without a word
        cli.wait(10)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait(10)
        cli.stdout.close()
    assert records_cli(["validate", str(tmp_path / "cut")]) == 0
    assert len(EpisodeReader(tmp_path / "cut")) == 1
    # desktopd still runs the capture the client left: a new client stops it, then may start anew
    assert desktopd.request("POST", "/api/v1/demonstration/start", json={}).status_code == 409
    assert desktopd.request("POST", "/api/v1/demonstration/stop").status_code == 200


def test_a_demonstration_with_video_has_each_step_inside_it(desktopd: DesktopdProcess, person, tmp_path) -> None:
    require(have_program("ffmpeg") and have_program("ffprobe"), "ffmpeg and ffprobe (Debian package ffmpeg)")
    desktop = Desktop(desktopd.url, token=desktopd.token)
    with Demonstration(desktop, tmp_path, episode_id="video", video=True) as demo:
        person("mousemove", "200", "220", "click", "3")
        assert demo.wait_for_steps(1, 20)
    episode = EpisodeReader(demo.directory)
    video = episode.episode["recording"]["video"]
    assert video["status"] == "complete" and video["steps_outside"] == [], video
    step = next(iter(episode)).record
    assert 0 <= step["video_time_s"] <= video["duration_s"]
    assert records_cli(["validate", str(demo.directory)]) == 0
    assert records_cli(["view", str(demo.directory), "--out", str(tmp_path / "view")]) == 0
    page = (tmp_path / "view" / "index.html").read_text()
    assert f'src="video/{video["file"]}#t={step["video_time_s"]:.2f}"' in page


def test_an_agents_episode_replays_the_same_way(desktopd: DesktopdProcess, tmp_path) -> None:
    from desktopd_kit.records import Recorder
    from desktopd_kit.records.replay import replay
    desktop = Desktop(desktopd.url, token=desktopd.token)
    with Recorder(desktop, tmp_path, episode_id="agent") as recorder:
        recorder.step({"type": "click", "x": 40, "y": 50})
        recorder.step({"action": "left_click", "coordinate": [60, 70]})      # Anthropic's format
    reports = replay(str(tmp_path / "agent"), desktop)
    assert [(r.kind, r.by, r.found, r.divergent) for r in reports] == [("click", "coordinates", None, False)] * 2
    assert desktop.pointer_position() == {"x": 60, "y": 70}
    steps = (tmp_path / "agent" / "steps.jsonl").read_text().splitlines()
    first = json.loads(steps[0])
    first["action"]["issued"]["x"] = 99999                                 # off the screen: refused
    (tmp_path / "agent" / "steps.jsonl").write_text("\n".join([json.dumps(first), *steps[1:]]) + "\n")
    assert records_cli(["replay", str(tmp_path / "agent"), "--desktop", desktopd.url,
                        *(["--token", desktopd.token] if desktopd.token else [])]) == 1


def test_the_recording_follows_on_after_its_stream_ends(desktopd: DesktopdProcess, person, tmp_path) -> None:
    desktop = Desktop(desktopd.url, token=desktopd.token)
    with Demonstration(desktop, tmp_path, episode_id="long", stream_seconds=0.5) as demo:
        person("mousemove", "20", "30", "click", "1")
        assert demo.wait_for_steps(1, 20)
        deadline = time.monotonic() + 20
        while demo.streams_opened < 8 and time.monotonic() < deadline:   # more than RECONNECTS ran out
            time.sleep(0.02)
        assert demo.streams_opened >= 8
        person("mousemove", "40", "30", "click", "1")
        assert demo.wait_for_steps(2, 20)
    assert demo.error is None
    assert [s.action["issued"]["x"] for s in EpisodeReader(demo.directory)] == [20, 40]


def test_ctrl_c_ends_the_cli_with_a_closed_record(desktopd: DesktopdProcess, person, tmp_path) -> None:
    env = {**os.environ, "DESKTOPD_TOKEN": desktopd.token or ""}
    cli = subprocess.Popen([sys.executable, "-m", "desktopd_kit.records", "demonstrate", "--desktop", desktopd.url,
                            "--out", str(tmp_path), "--episode-id", "interrupted"],
                           env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert "recording" in json.loads(cli.stdout.readline())
        person("mousemove", "70", "80", "click", "1")
        steps = tmp_path / "interrupted" / "steps.jsonl"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and not steps.read_text().strip():
            time.sleep(0.05)
        cli.send_signal(signal.SIGINT)
        assert cli.wait(60) == 0
        summary = json.loads(cli.stdout.readline())
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait(10)
        cli.stdout.close()
    assert summary["steps"] == 1 and summary["by_source"] == {"person": 1, "agent": 0}
    episode = EpisodeReader(tmp_path / "interrupted").episode
    assert episode["ended_wall"] is not None and episode["steps"] == 1
    assert desktopd.request("GET", "/api/v1/demonstration").json()["running"] is False   # stopped on the way out


def test_a_demonstration_refused_by_desktopd_leaves_a_closed_record_saying_why(desktopd: DesktopdProcess,
                                                                               tmp_path) -> None:
    from desktopd_kit.errors import DesktopError
    desktop = Desktop(desktopd.url, token=desktopd.token)
    assert desktopd.request("POST", "/api/v1/demonstration/start", json={}).status_code == 200
    try:
        with pytest.raises(DesktopError) as refused:
            Demonstration(desktop, tmp_path, episode_id="refused").start()
        assert refused.value.status == 409
    finally:
        assert desktopd.request("POST", "/api/v1/demonstration/stop").status_code == 200
    episode = EpisodeReader(tmp_path / "refused").episode
    assert episode["ended_wall"] is not None and "409" in episode["demonstration"]["error"]
    assert records_cli(["validate", str(tmp_path / "refused")]) == 0
