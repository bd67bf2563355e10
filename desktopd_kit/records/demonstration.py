"""A person's demonstration as an episode record, in the format of agent episodes.

desktopd captures the person's input and streams it as actions (``source`` person, or agent for
what desktopd itself injected meanwhile: an agent's /step lands in the same record, in order).
Each action becomes a step: the settled observation before it (the previous step's after: the
screen as it was when the person acted), the action in our format and the vendors', the element
under the pointer in the /layout read before it (role, name, ref in the snapshot, bounds, path
from the root), the window under the pointer, the snapshot text, and the settled observation
after it. Every line is flushed as it is written: a run cut short leaves a valid record."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from ..actions import Executed
from ..client import Desktop
from ..errors import DesktopError
from ..hit import element_at
from ..observe import Acted, Observation, ObserveOptions, Observer, Stamp, Timer
from .elements import described
from .recorder import episode_fields, new_episode_id
from .vendor_forms import vendor_forms
from .video import VideoClock
from .writer import EpisodeWriter

log = logging.getLogger(__name__)
RECONNECTS = 5     # the action stream dropped: follow again from the last seq, this many times in a row
# Between actions the "before" is kept current: on the stream's heartbeats, while no input is
# under way, a small screenshot tells whether the screen changed since it was taken (a page that
# went on loading); if so it is observed again, at most this many times between two actions.
REFRESH_EVERY_S = 0.5
MAX_REFRESHES = 20
PROBE_WIDTH = 320
# Changed probe pixels that count as a change: a caret blinking is a few, a line of text many.
PROBE_CHANGED_FRACTION = 0.0005
QUIET_INPUT_MS = 200


def window_at(windows: list[dict], x: int, y: int) -> dict | None:
    """The topmost visible top-level window whose frame holds the point (/tree lists bottom to top)."""
    for window in reversed(windows):
        frame = window.get("frame") or window.get("client") or {}
        if window.get("visible", True) and not window.get("minimized") and frame and \
                frame["x"] <= x < frame["x"] + frame["width"] and frame["y"] <= y < frame["y"] + frame["height"]:
            wm_class = window.get("wm_class") or []
            return {"id": window.get("id"), "class": wm_class[-1] if wm_class else None,
                    "title": window.get("title"), "wm_class": wm_class}
    return None


def changed(before: bytes, now: bytes) -> bool:
    """Whether two probes (BGRX pixels) differ by more than a caret's blink."""
    import numpy as np
    if len(before) != len(now):
        return True
    a = np.frombuffer(before, np.uint8).reshape(-1, 4)[:, :3]
    b = np.frombuffer(now, np.uint8).reshape(-1, 4)[:, :3]
    return int((a != b).any(axis=1).sum()) > PROBE_CHANGED_FRACTION * len(a)


class Demonstration:
    """``with Demonstration(desktop, out_dir) as demo: ...`` records what a person does on the
    desktop until the block ends (or ``wait(seconds)``); ``demo.directory`` is the episode."""

    def __init__(self, desktop: Desktop, out_dir: str | os.PathLike, *, episode_id: str | None = None,
                 metadata: Mapping[str, object] | None = None, options: ObserveOptions | None = None,
                 snapshot: bool = True, max_seconds: float = 3600.0, typing_idle_ms: int | None = None,
                 video: bool = False, stream_seconds: float | None = None) -> None:
        self.desktop = desktop
        with_sidecar = desktop.endpoints.sidecar_url is not None
        self.observer = Observer(desktop, options or ObserveOptions(observe_layout=with_sidecar))
        self.snapshot = snapshot and with_sidecar
        self.max_seconds = max_seconds
        self.typing_idle_ms = typing_idle_ms
        episode_id = episode_id or new_episode_id()
        self.writer = EpisodeWriter(Path(out_dir) / episode_id,
                                    episode_fields(desktop, self.observer, episode_id, (),
                                                   {"kind": "demonstration", **dict(metadata or {})}))
        self.stream_seconds = stream_seconds    # how long one action stream stays open (desktopd: 600 s)
        self.streams_opened = 0
        self.refreshes = 0          # "before" observations taken again between actions
        self.video = VideoClock(desktop)
        self.record_video = video
        self.seq = 0
        self.error: str | None = None
        self.by_source = {"person": 0, "agent": 0}
        self._thread: threading.Thread | None = None
        self._before: tuple[Observation, str | None] | None = None
        self._before_probe = b""
        self._refreshes_left = MAX_REFRESHES
        self._ended = threading.Event()

    @property
    def directory(self) -> Path:
        return self.writer.dir

    @property
    def steps(self) -> int:
        return int(self.writer.episode["steps"])

    def start(self) -> Demonstration:
        """Starts desktopd's capture (DesktopError 409 while another runs, 501 on Sway: the
        record is then closed, empty, saying why) and takes the first "before"."""
        try:
            self.desktop.demonstration_start(max_seconds=self.max_seconds, typing_idle_ms=self.typing_idle_ms)
        except DesktopError as error:
            self._abandon(f"demonstration/start: {error}")
            raise
        try:
            if self.record_video:      # the screen video, brought home at the end (records/video.py)
                self.writer.set_recording(self.video.start())
            self._before = self._observe(settle=True)
            self._before_probe = self._probe()
        except BaseException as error:
            self.error = f"starting failed: {error}"
            self.close()          # desktopd's capture stopped, the record closed saying why
            raise
        self._thread = threading.Thread(target=self._follow, name="demonstration", daemon=True)
        self._thread.start()
        return self

    def wait(self, seconds: float | None = None) -> bool:
        """Blocks until desktopd's demonstration ended or ``seconds`` passed; True when it ended."""
        return self._ended.wait(seconds)

    def wait_for_steps(self, count: int, timeout: float) -> bool:
        """Until ``count`` steps are recorded (or ``timeout`` s): a harness driving the person's input."""
        deadline = time.monotonic() + timeout
        while self.steps < count and time.monotonic() < deadline and not self._ended.is_set():
            time.sleep(0.02)
        return self.steps >= count

    def _abandon(self, why: str) -> None:
        """desktopd refused to start: the record is closed, empty, saying why."""
        self.error = why
        self.writer.episode["demonstration"] = {"by_source": dict(self.by_source), "error": self.error}
        self.writer.close({"total_reward": 0.0, "terminated": False, "truncated": True})

    def close(self) -> None:
        """Stops desktopd's capture, records what it still sends, and closes the record."""
        if self.writer.closed:
            return
        try:
            self.desktop.demonstration_stop()
        except DesktopError as error:
            if error.status != 404:       # it ended on its own (max_seconds): not a failure
                self.error = self.error or f"demonstration/stop: {error}"
        if self._thread is not None:
            self._thread.join(timeout=120)
        recording = self.video.finish(self.writer.dir, self.writer.video_times)
        if recording is not None:
            self.writer.episode["recording"] = recording
        self.writer.episode["demonstration"] = {"by_source": dict(self.by_source), "error": self.error}
        self.writer.close({"total_reward": 0.0, "terminated": self.error is None, "truncated": self.error is not None})

    def __enter__(self) -> Demonstration:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- the stream's thread
    def _follow(self) -> None:
        failures = 0
        try:
            while True:
                try:
                    self.streams_opened += 1
                    for line in self.desktop.demonstration_actions(self.seq, max_seconds=self.stream_seconds,
                                                                   heartbeat_s=REFRESH_EVERY_S):
                        if "seq" in line:
                            self._record(line)
                            failures = 0
                        elif "heartbeat" in line:
                            self._maybe_refresh(line)
                        elif "end" in line and not line["end"]["running"]:
                            return
                    # the stream's own time limit passed: follow on while the capture runs
                    if not self.desktop.demonstration()["running"]:
                        return
                except DesktopError as error:
                    failures += 1
                    if failures > RECONNECTS or error.status is not None:
                        self.error = f"the action stream failed: {error}"
                        return
                    log.warning("the action stream dropped (%s); following again from %d", error, self.seq)
        finally:
            self._ended.set()

    @property
    def before_snapshot(self) -> str | None:
        """The snapshot text of the observation the next step will call its "before"."""
        return self._before[1] if self._before is not None else None

    def _probe(self) -> bytes:
        """A small screenshot's pixels: enough to tell that the screen changed."""
        return self.desktop.screenshot("raw", max_width=PROBE_WIDTH).data

    def _maybe_refresh(self, heartbeat: dict) -> None:
        """The last settled frame, kept as the person acts: once no input is under way
        (desktopd says nothing is pending and no event came for a moment) and the screen
        changed since the "before" was taken, it is taken again."""
        idle = heartbeat.get("idle_ms")
        if heartbeat.get("pending") or self._refreshes_left <= 0 or (idle is not None and idle < QUIET_INPUT_MS):
            return
        if not changed(self._before_probe, self._probe()):
            return
        self._refreshes_left -= 1
        self.refreshes += 1
        self._before = self._observe(settle=True)
        self._before_probe = self._probe()

    def _observe(self, settle: bool) -> tuple[Observation, str | None]:
        observation = self.observer.observe(settle=settle)
        text = None
        if self.snapshot:
            try:
                text = self.desktop.snapshot()
            except DesktopError as error:   # no page (a native app in front): no snapshot
                log.debug("no snapshot: %s", error)
        return observation, text

    def _record(self, line: dict) -> None:
        assert self._before is not None
        before, snapshot = self._before
        action = line["action"]
        x, y = line["pointer"]["x"], line["pointer"]["y"]
        point = (int(action["x"]), int(action["y"])) if "x" in action else \
            (tuple(action["path"][0]) if action["type"] == "drag" else None)
        at = point or (x, y)
        element = element_at(before.layout, *at)
        started = line["end_wall"] - (line["end_ms"] - line["start_ms"]) / 1000.0
        act = Stamp(time.monotonic() - (time.time() - started), started, (line["end_ms"] - line["start_ms"]) / 1000.0)
        settle_timer = Timer()
        after = self._observe(settle=True)
        executed = Executed("desktopd", action, {**action, **({"x": point[0], "y": point[1]} if point else {})})
        acted = Acted(executed, element, act, settle_timer.stamp(), None, None)
        index = self.steps + 1
        snapshot_file = None
        if snapshot is not None:
            snapshot_file = f"snapshots/{index:06d}.txt"
            (self.directory / "snapshots").mkdir(exist_ok=True)
            (self.directory / snapshot_file).write_text(snapshot, encoding="utf-8")
        extra = {"demonstration": {
            "seq": line["seq"], "server_ms": {"start": line["start_ms"], "end": line["end_ms"]},
            "end_wall": line["end_wall"], "capture_lag_ms": line.get("capture_lag_ms"), "recorded_wall": time.time(),
            "window": window_at(before.windows, *at), "element": described(before.layout, element, snapshot),
            "snapshot": snapshot_file}}
        self.writer.write_step(before, acted, source=line["source"], after=after[0], extra=extra,
                               vendor=vendor_forms(action), video_time_s=self.video.at(started))
        self.seq = line["seq"]
        self.by_source[line["source"]] += 1
        self._before, self._before_probe = after, self._probe()
        self._refreshes_left = MAX_REFRESHES
