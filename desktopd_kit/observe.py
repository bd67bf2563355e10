"""One observation of a desktop (screenshot, optional /layout, windows, pointer) and one action
run on it, with monotonic and wall timestamps: what the environment and the recorder share."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypedDict

from .actions import Executed, Format, Scaling, plan_action, run_action
from .calls import body
from .client import Desktop
from .errors import DesktopError
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
    (X damage, measured on the server; settle_s=0: do not wait) or, after a left click, once the
    browser said its page has nothing to draw (``settle_browser``)."""

    screenshot_format: str = "png"
    quality: int | None = None
    screenshot_size: tuple[int, int] | None = None    # (width, height) of the observation
    observe_layout: bool = False
    layout_query: dict = field(default_factory=lambda: {"interesting": True})
    settle_s: float = 0.5
    settle_quiet_s: float = 0.03
    settle_browser: bool = True


class SettleQuery(TypedDict, total=False):
    settle: float
    settle_quiet: float
    settle_browser: bool


class Observer:
    """Observes a Desktop and runs actions on it."""

    def __init__(self, desktop: Desktop, options: ObserveOptions) -> None:
        self.desktop = desktop
        self.options = options
        screen = desktop.health()["screen"]
        self.screen = (int(screen["width"]), int(screen["height"]))
        self.scaling = Scaling(self.screen, options.screenshot_size or self.screen)
        self._exact = True      # desktopd scales to the observation's size (width/height)

    def _shot_query(self) -> dict:
        o, size = self.options, self.options.screenshot_size
        # Exactly the observation's size: desktopd scales once, the aspect may change.
        width, height = ("width", "height") if self._exact else ("max_width", "max_height")
        return body(format=o.screenshot_format, quality=o.quality,
                    **({width: size[0], height: size[1]} if size else {}))

    def _step(self, act: dict | None, settle: SettleQuery) -> dict:
        """POST /api/v1/step with the observation's screenshot, windows and pointer. A desktopd
        from before exact sizes refuses ``width`` before acting: it is asked again to fit the
        size (the env resizes)."""
        try:
            return self.desktop.step(act, screenshot=self._shot_query(), windows=True, pointer=True, **settle)
        except DesktopError as refused:
            if not (self._exact and refused.status == 422 and refused.field == "screenshot.width"):
                raise
            self._exact = False
            return self.desktop.step(act, screenshot=self._shot_query(), windows=True, pointer=True, **settle)

    def observe(self, settle: bool = False) -> Observation:
        """The screenshot, windows and pointer in one POST /api/v1/step (after a settle when
        ``settle``), then /layout from the sidecar when observed."""
        timer = Timer()
        answer = self._step(None, self._settle_query() if settle else {"settle": 0})
        return self._observation(answer, timer)

    def _observation(self, answer: dict, timer: Timer) -> Observation:
        """The observation a /step answered; its stamp starts when the settle ended (the screen
        the image shows), not when the request that also acted was sent."""
        o = self.options
        shot = Screenshot.from_step(answer["screenshot"], o.screenshot_format)
        layout = self.desktop.layout(**o.layout_query) if o.observe_layout else None
        at = answer["pointer"]
        seen = answer["timings"]["act"] + answer["settled"]["waited_s"]
        stamp = Stamp(timer.mono + seen, timer.wall + seen, time.monotonic() - timer.mono - seen)
        return Observation(shot, layout, answer["windows"], (at["x"], at["y"]), stamp)

    def _settle_query(self) -> SettleQuery:
        return {"settle": self.options.settle_s, "settle_quiet": self.options.settle_quiet_s,
                "settle_browser": self.options.settle_browser}

    def step(self, action: Mapping[str, object], before: Observation | None,
             action_format: Format | str = "auto") -> tuple[Acted, Observation]:
        """Runs ``action`` and observes once desktopd saw the screen settle, in one POST
        /api/v1/step (then /layout from the sidecar when observed). What runs here (wait, noop)
        and what desktopd refuses are observed with a request of their own."""
        planned = plan_action(action, self.scaling, action_format)
        if planned.act is None:
            acted = self.act(action, before, action_format)
            return acted, self.observe()
        timer = Timer()
        try:
            answer = self._step(planned.step_act(), self._settle_query())
        except DesktopError as refused:
            acted = Acted(Executed(planned.format, planned.issued, {}), None, timer.stamp(), Timer().stamp(),
                          _error_of(refused))
            return acted, self.observe()
        observation = self._observation(answer, timer)
        executed = planned.finish(answer["executed"], answer.get("text"))
        took = answer["timings"]
        act = Stamp(timer.mono, timer.wall, took["act"])
        settle = Stamp(timer.mono + took["act"], timer.wall + took["act"], took["settle_and_capture"])
        return Acted(executed, self._element(before, executed), act, settle, None, answer["settled"]), observation

    def act(self, action: Mapping[str, object], before: Observation | None,
            action_format: Format | str = "auto") -> Acted:
        """Runs ``action`` on its own endpoint, then has desktopd settle (no image)."""
        planned = plan_action(action, self.scaling, action_format)
        timer = Timer()
        try:
            executed = run_action(self.desktop, action, self.scaling, action_format)
            error = None
        except DesktopError as refused:
            executed, error = Executed(planned.format, planned.issued, {}), _error_of(refused)
        act = timer.stamp()
        settle_timer = Timer()
        settled = None
        if planned.act is not None and error is None:
            # desktopd waits for the screen to stop changing (X damage), not a fixed sleep here.
            settled = self.desktop.step(pointer=False, **self._settle_query())["settled"]
        return Acted(executed, self._element(before, executed), act, settle_timer.stamp(), error, settled)

    @staticmethod
    def _element(before: Observation | None, executed: Executed) -> dict | None:
        point = executed.point
        return element_at(before.layout, *point) if before is not None and point is not None else None


def _error_of(refused: DesktopError) -> dict:
    return {"status": refused.status, "code": refused.code, "message": refused.message, "field": refused.field}
