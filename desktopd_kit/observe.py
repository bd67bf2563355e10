"""One observation of a desktop (screenshot, optional /layout, windows, pointer) and one action
run on it, with monotonic and wall timestamps: what the environment and the recorder share."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field

from .actions import Executed, Format, Scaling, run_action
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


@dataclass
class ObserveOptions:
    """How to look: image format and size (None: the screen's), /layout or not, settle time."""

    screenshot_format: str = "png"
    quality: int | None = None
    screenshot_size: tuple[int, int] | None = None    # (width, height) of the observation
    observe_layout: bool = False
    layout_query: dict = field(default_factory=lambda: {"interesting": True})
    settle_s: float = 0.1


class Observer:
    """Observes a Desktop and runs actions on it."""

    def __init__(self, desktop: Desktop, options: ObserveOptions) -> None:
        self.desktop = desktop
        self.options = options
        screen = desktop.health()["screen"]
        self.screen = (int(screen["width"]), int(screen["height"]))
        self.scaling = Scaling(self.screen, options.screenshot_size or self.screen)

    def observe(self) -> Observation:
        timer = Timer()
        o = self.options
        size = o.screenshot_size
        shot = self.desktop.screenshot(o.screenshot_format, quality=o.quality,
                                       max_width=size[0] if size else None,
                                       max_height=size[1] if size else None)
        layout = self.desktop.layout(**o.layout_query) if o.observe_layout else None
        windows = self.desktop.windows()
        at = self.desktop.pointer_position()
        return Observation(shot, layout, windows, (at["x"], at["y"]), timer.stamp())

    def act(self, action: Mapping[str, object], before: Observation | None,
            action_format: Format | str = "auto") -> Acted:
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
        settle = Timer()
        if self.options.settle_s > 0 and executed.executed.get("type") not in ("noop", "screenshot", "wait"):
            time.sleep(self.options.settle_s)
        point = executed.point
        element = element_at(before.layout, *point) if before is not None and point is not None else None
        return Acted(executed, element, act, settle.stamp(), error)
