"""The recorder on a real desktopd: an episode with actions in all three formats validates
against the schemas, the reader replays it, and the export runs."""

from __future__ import annotations

import json
import subprocess
import sys

import jsonschema
import pytest

from desktopd_kit import AsyncDesktop, Desktop, DesktopError
from desktopd_kit.actions import detect_format
from desktopd_kit.observe import ObserveOptions
from desktopd_kit.records import EpisodeReader, Recorder, schema
from desktopd_kit.records.export import operation

pytestmark = pytest.mark.x11

ACTIONS = [
    {"type": "click", "x": 100, "y": 120},                                    # ours
    {"action": "left_click", "coordinate": [200, 220]},                       # Anthropic
    {"type": "click", "button": "wheel", "x": 300, "y": 320},                 # OpenAI (a wheel click)
    {"type": "keypress", "keys": ["CTRL", "A"]},                              # OpenAI
    {"action": "type", "text": "héllo"},                                      # Anthropic
    {"type": "scroll", "x": 50, "y": 60, "dy": 2},                            # ours
    {"type": "tool_use", "name": "computer", "input": {"action": "mouse_move", "coordinate": [5, 6]}},
    {"action": "key", "text": "Return"},                                      # Anthropic
]


def test_formats_are_told_apart_by_their_keys():
    assert [detect_format(a) for a in ACTIONS] == [
        "desktopd", "anthropic", "openai", "openai", "anthropic", "desktopd", "anthropic", "anthropic"]
    assert detect_format({"type": "scroll", "x": 1, "y": 2, "scroll_y": 300}) == "openai"
    assert detect_format({"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 3, "y": 4}]}) == "openai"
    assert detect_format({"type": "drag", "path": [[1, 2], [3, 4]]}) == "desktopd"


def test_an_episode_validates_replays_and_exports(desktop, tmp_path):
    with Recorder(desktop, tmp_path, options=ObserveOptions(settle_s=0),
                  metadata={"task": "click around"}) as rec:
        lines = [rec.step(action)[1] for action in ACTIONS]
        refused = rec.step({"type": "click", "x": 99999, "y": 1})[1]   # off the screen: 422
        bad = rec.step({"action": "left_click", "coordinate": [99999, 1]})[1]  # off the display: 422
    episode_dir = rec.directory
    reader = EpisodeReader(episode_dir)
    jsonschema.validate(reader.episode, schema("episode"))
    steps = list(reader)
    assert len(steps) == len(ACTIONS) + 2 == reader.episode["steps"]
    for step in steps:
        jsonschema.validate(step.record, schema("step"))
        assert step.image().size == (step.record["observation"]["image_size"]["width"],
                                     step.record["observation"]["image_size"]["height"])
    # As executed, in screen pixels, whatever the format it was issued in.
    assert [line["action"]["point"] for line in lines[:3]] == [
        {"x": 100, "y": 120}, {"x": 200, "y": 220}, {"x": 300, "y": 320}]
    assert lines[2]["action"]["executed"]["button"] == 2
    assert lines[3]["action"]["executed"]["keys"] == ["ctrl", "a"]
    assert [line["action"]["kind"] for line in lines] == [
        "click", "click", "click", "keys", "type", "scroll", "move", "keys"]
    # The pointer observed before a step is where the previous one left it.
    assert steps[1].record["observation"]["pointer"] == {"x": 100, "y": 120}
    assert steps[7].record["observation"]["pointer"] == {"x": 5, "y": 6}
    assert (refused["result"]["ok"], refused["result"]["error"]["field"]) == (False, "x")
    # How desktopd settled is recorded: skipped here (settle_s=0); a refused action did not settle.
    assert all(line["settled"]["reason"] == "skipped" for line in lines)
    assert refused["settled"] is None and bad["settled"] is None
    assert not bad["result"]["ok"] and bad["result"]["error"]["status"] == 422
    assert bad["result"]["error"]["field"] == "coordinate[0]"
    stamps = [s.record["timestamps"] for s in steps]
    assert all(a["observe"]["mono"] <= a["act"]["mono"] <= a["settle"]["mono"] for a in stamps)
    assert all(a["settle"]["mono"] <= b["observe"]["mono"] for a, b in zip(stamps, stamps[1:]))
    assert reader.episode["ended_wall"] is not None and reader.episode["outcome"]["terminated"] is False

    out = tmp_path / "export"
    done = subprocess.run([sys.executable, "-m", "desktopd_kit.records", "export", str(tmp_path),
                           "--out", str(out)], capture_output=True, text=True, timeout=60, check=True)
    assert json.loads(done.stdout)["rows"] == len(steps)
    rows = [json.loads(line) for line in (out / "data.jsonl").read_text().splitlines()]
    assert [r["operation"]["op"] for r in rows[:5]] == ["CLICK", "CLICK", "CLICK", "OTHER", "TYPE"]
    assert rows[4]["operation"]["value"] == "héllo"
    assert rows[7]["operation"]["original_op"] == "ENTER"
    assert all((out / r["screenshot"]).is_file() for r in rows)
    checked = subprocess.run([sys.executable, "-m", "desktopd_kit.records", "validate", str(episode_dir)],
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr


def test_operation_mapping():
    assert operation({"kind": "keys", "issued": {"type": "keypress", "keys": ["ENTER"]}})["original_op"] == "ENTER"
    assert operation({"kind": "move", "issued": {}}) == {"op": "CLICK", "original_op": "HOVER", "value": ""}
    assert operation({"kind": "drag", "issued": {}})["op"] == "OTHER"


async def test_a_download_is_streamed_into_its_file_whole_or_not_at_all(desktopd, tmp_path):
    with Desktop(desktopd.url) as desktop:
        started = desktop.recording_start(fps=5)
        desktop.move(10, 10)
        stopped = desktop.recording_stop()
        saved = desktop.download_recording(started["id"], tmp_path / "sync.mp4")
        with pytest.raises(DesktopError) as caught:
            desktop.download_recording("0" * 32, tmp_path / "missing.mp4")
    async with AsyncDesktop(desktopd.url) as desktop:
        saved_async = await desktop.download_recording(started["id"], tmp_path / "async.mp4")
        assert (await desktop.delete_recording(started["id"]))["deleted"] is True
    assert (saved.bytes, saved.sha256) == (saved_async.bytes, saved_async.sha256) == (stopped["size"], stopped["sha256"])
    assert (tmp_path / "sync.mp4").read_bytes() == (tmp_path / "async.mp4").read_bytes()
    assert caught.value.status == 404
    assert sorted(p.name for p in tmp_path.iterdir()) == ["async.mp4", "sync.mp4"]   # no .part, no empty file
