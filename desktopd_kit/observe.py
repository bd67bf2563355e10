"""One observation of a desktop (screenshot, optional /layout, windows, pointer) and one action
run on it, with monotonic and wall timestamps: what the environment and the recorder share."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from .actions import Executed, Format, Scaling, run_action
from .calls import body
from .client import Desktop
from .hit import element_at
from .screenshot import Screenshot


@dataclass(frozen=True)
class Stamp:
    mono: float        # time.monotonic() at the start
    wall: float        # time.time() at the start
    duration_s: float

    def json(self) -> dict:
        return {"mono": self.mono, "wall": self.wall, "duration_s": self.duration_s}


class Timer:
    def __init__(self) -> None:
        self.mono, self.wall = time.monotonic(), time.time()

    def stamp(self) -> Stamp:
        return Stamp(self.mono, self.wall, time.monotonic() - self.mono)


@dataclass
class Observation:
    screenshot: Screenshot
    layout: dict | None
    windows: list[dict]
    pointer: tuple[int, int] | None
    stamp: Stamp


@dataclass
class Acted:
    executed: Executed
    element: dict | None          # the /layout node at the point acted on, when known
    act: Stamp
    settle: Stamp
    error: dict | None = None     # the DesktopError's JSON when desktopd refused the action
    settled: dict | None = None   # desktopd's report: reason (quiet, max, ...), waited_s, changes


@dataclass
class ObserveOptions:
    """How to look: image format and size (None: the screen's), /layout or not, and how desktopd
    settles after an act: at most ``settle_s``, done once the screen was still ``settle_quiet_s``
    (X damage, measured on the server; settle_s=0: do not wait)."""

    screenshot_format: str = "png"
    quality: int | None = None
    screenshot_size: tuple[int, int] | None = None    # (width, height) of the observation
    observe_layout: bool = False
    layout_query: dict = field(default_factory=lambda: {"interesting": True})
    settle_s: float = 1.0
    settle_quiet_s: float = 0.03


# Our own action types that change nothing on the screen (vendor ones report "type" too: none).
NOTHING_TO_SETTLE = ("noop", "screenshot", "wait")


class Observer:
    """Observes a Desktop and runs actions on it."""

    def __init__(self, desktop: Desktop, options: ObserveOptions) -> None:
        self.desktop = desktop
        self.options = options
        screen = desktop.health()["screen"]
        self.screen = (int(screen["width"]), int(screen["height"]))
        self.scaling = Scaling(self.screen, options.screenshot_size or self.screen)
        self.last_settled: dict | None = None

    def _shot_query(self) -> dict:
        o, size = self.options, self.options.screenshot_size
        return body(format=o.screenshot_format, quality=o.quality, max_width=size[0] if size else None,
                    max_height=size[1] if size else None)

    def observe(self, settle: bool = False) -> Observation:
        """The screenshot, windows and pointer in one POST /api/v1/step (after a settle when
        ``settle``), then /layout from the sidecar when observed."""
        timer = Timer()
        o = self.options
        answer = self.desktop.step(screenshot=self._shot_query(), windows=True, pointer=True,
                                   **(self._settle_query() if settle else {"settle": 0}))
        shot = Screenshot.from_step(answer["screenshot"], o.screenshot_format)
        layout = self.desktop.layout(**o.layout_query) if o.observe_layout else None
        at = answer["pointer"]
        self.last_settled = answer["settled"]
        return Observation(shot, layout, answer["windows"], (at["x"], at["y"]), timer.stamp())

    def _settle_query(self) -> dict:
        return {"settle": self.options.settle_s, "settle_quiet": self.options.settle_quiet_s}

    def step(self, action: Mapping[str, object], before: Observation | None,
             action_format: Format | str = "auto") -> tuple[Acted, Observation]:
        """Runs ``action``, then observes once desktopd saw the screen settle: the settle and
        the observation are one request (the step's ``settle`` stamp covers both)."""
        acted = self.act(action, before, action_format, settle=False)
        settle = Timer()
        observation = self.observe(settle=acted.executed.executed.get("type") not in NOTHING_TO_SETTLE)
        acted.settle, acted.settled = settle.stamp(), self.last_settled
        return acted, observation

    def act(self, action: Mapping[str, object], before: Observation | None,
            action_format: Format | str = "auto", settle: bool = True) -> Acted:
        from .errors import DesktopError
        timer = Timer()
        try:
            executed = run_action(self.desktop, action, self.scaling, action_format)   # type: ignore[arg-type]
            error = None
        except DesktopError as refused:
            from .actions import detect_format, unwrap
            fmt = detect_format(action) if action_format == "auto" else action_format
            executed = Executed(fmt, unwrap(action), {})   # type: ignore[arg-type]
            error = {"status": refused.status, "code": refused.code, "message": refused.message,
                     "field": refused.field}
        act = timer.stamp()
        settle_timer = Timer()
        settled = None
        if settle and executed.executed.get("type") not in NOTHING_TO_SETTLE:
            # desktopd waits for the screen to stop changing (X damage), not a fixed sleep here.
            settled = self.desktop.step(pointer=False, **self._settle_query())["settled"]
        point = executed.point
        element = element_at(before.layout, *point) if before is not None and point is not None else None
        return Acted(executed, element, act, settle_timer.stamp(), error, settled)
