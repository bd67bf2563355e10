"""Writes one episode directory: episode.json first (and again when closed), a steps.jsonl line,
an image and optionally a layout file per step; every line is flushed as it is written."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from ..actions import canonical_kind
from ..observe import Acted, Observation
from .format import EPISODE_FILE, FORMAT, STEPS_FILE, VERSION, image_name, layout_name


class EpisodeWriter:
    def __init__(self, directory: str | os.PathLike, episode: dict) -> None:
        self.dir = Path(directory)
        (self.dir / "images").mkdir(parents=True, exist_ok=False)
        (self.dir / "layout").mkdir()
        self.episode = {"format": FORMAT, "version": VERSION, "created_wall": time.time(),
                        "ended_wall": None, "steps": 0, "recording": None, "outcome": None, **episode}
        self._steps = open(self.dir / STEPS_FILE, "a", encoding="utf-8")
        self.video_times: list[tuple[int, float]] = []    # (index, video_time_s) of the steps with one
        self._write_episode()

    @property
    def episode_id(self) -> str:
        return self.episode["episode_id"]

    def _write_episode(self) -> None:
        tmp = self.dir / (EPISODE_FILE + ".tmp")
        tmp.write_text(json.dumps(self.episode, indent=1, ensure_ascii=False))
        os.replace(tmp, self.dir / EPISODE_FILE)   # readers never see half a file

    def set_recording(self, recording: dict | None) -> None:
        self.episode["recording"] = recording
        self._write_episode()

    def write_step(self, before: Observation, acted: Acted, *, reward: float | None = None,
                   terminated: bool | None = None, truncated: bool | None = None,
                   info: dict | None = None, video_time_s: float | None = None,
                   requests: list[dict] | None = None, source: str = "agent",
                   after: Observation | None = None, extra: dict | None = None,
                   vendor: dict | None = None) -> dict:
        """One steps.jsonl line (flushed). ``source``: agent (the API's actions) or person (a
        demonstration's); ``after``: the settled observation after the action, saved as its own
        image (demonstrations); ``extra``: fields beside (the demonstration's own); ``vendor``:
        the action in the vendors' formats (records/vendor_forms.py)."""
        index = self.episode["steps"] + 1
        shot = before.screenshot
        image = image_name(index, shot.format)
        (self.dir / image).write_bytes(shot.data if shot.format in ("png", "jpeg", "webp") else shot.png())
        layout = None
        if before.layout is not None:
            layout = layout_name(index)
            (self.dir / layout).write_text(json.dumps(before.layout, ensure_ascii=False))
        done = acted.executed
        point = done.point
        action: dict[str, object] = {
            "format": done.format, "kind": canonical_kind(done.format, done.issued),
            "issued": done.issued, "executed": done.executed,
            "point": {"x": point[0], "y": point[1]} if point else None,
            "element": acted.element, "vendor_reply": done.vendor_reply}
        if vendor is not None:
            action["vendor"] = vendor
        line: dict[str, object] = {
            "version": VERSION, "episode_id": self.episode_id, "index": index,
            "observation": {
                "image": image, "image_size": {"width": shot.width, "height": shot.height},
                "scale": shot.scale, "scale_y": shot.y_scale,
                "region": dict(zip(("x", "y", "width", "height"), shot.region)),
                "layout": layout, "windows": before.windows,
                "pointer": {"x": before.pointer[0], "y": before.pointer[1]} if before.pointer else None},
            "action": action,
            "result": {"ok": acted.error is None, "error": acted.error, "reward": reward,
                       "terminated": terminated, "truncated": truncated, "info": info or {}},
            "timestamps": {"observe": before.stamp.json(), "act": acted.act.json(),
                           "settle": acted.settle.json()},
            "settled": acted.settled,
            "video_time_s": video_time_s,
        }
        if requests is not None:
            line["requests"] = requests
        line["source"] = source
        if after is not None:
            line["after"] = self._after(index, after)
        line.update(extra or {})
        self._steps.write(json.dumps(line, ensure_ascii=False, default=_plain) + "\n")
        self._steps.flush()
        self.episode["steps"] = index
        if video_time_s is not None:
            self.video_times.append((index, video_time_s))
        return line

    def _after(self, index: int, after: Observation) -> dict:
        shot = after.screenshot
        image = image_name(index, shot.format).replace(".", ".after.", 1)
        (self.dir / image).write_bytes(shot.data if shot.format in ("png", "jpeg", "webp") else shot.png())
        layout = None
        if after.layout is not None:
            layout = layout_name(index).replace(".", ".after.", 1)
            (self.dir / layout).write_text(json.dumps(after.layout, ensure_ascii=False))
        return {"image": image, "image_size": {"width": shot.width, "height": shot.height},
                "scale": shot.scale, "scale_y": shot.y_scale,
                "region": dict(zip(("x", "y", "width", "height"), shot.region)),
                "layout": layout, "windows": after.windows,
                "pointer": {"x": after.pointer[0], "y": after.pointer[1]} if after.pointer else None,
                "stamp": after.stamp.json()}

    @property
    def closed(self) -> bool:
        return self._steps.closed

    def close(self, outcome: dict | None = None) -> None:
        if self.closed:
            return
        self._steps.close()
        self.episode["ended_wall"] = time.time()
        if outcome is not None:
            self.episode["outcome"] = outcome
        self._write_episode()


def _plain(value: object) -> object:
    """numpy scalars and the like (a Gymnasium space's samples) as plain JSON."""
    if hasattr(value, "item"):
        return value.item()
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
