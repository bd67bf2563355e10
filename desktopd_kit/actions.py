"""Actions in three formats, told apart by their keys, and run on a desktop.

- ``anthropic``: an Anthropic computer tool call's ``input`` — it has an ``action`` key
  (``{"action": "left_click", "coordinate": [x, y]}``); a whole ``tool_use`` block
  (``{"type": "tool_use", "input": {...}}``) is unwrapped. Runs on desktopd's
  /api/v1/computer/anthropic.
- ``openai``: an OpenAI ``computer_call`` action — a ``type`` key, and something only OpenAI
  says: type ``keypress``/``screenshot``, ``scroll_x``/``scroll_y``, ``keys`` held during a
  pointer action, a button ``wheel``/``back``/``forward``, a ``drag`` path of ``{"x","y"}``, or
  ``wait`` without ``seconds``. Runs on /api/v1/computer/openai.
- ``desktopd``: our own — ``{"type": T, ...}`` with T one of OWN_TYPES (below), straight onto
  desktopd's input endpoints. Where it looks like OpenAI's (click, double_click, move, type with
  the same fields) the two mean the same, so the choice does not matter.

Coordinates of every format are in the pixels of the screenshot the agent saw (``Scaling``);
they become screen pixels here (own format) or on desktopd (display_width_px/height_px).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

Format = Literal["anthropic", "openai", "desktopd"]
FORMATS: tuple[Format, ...] = ("anthropic", "openai", "desktopd")
OWN_TYPES = ("noop", "screenshot", "tap", "click", "double_click", "move", "drag", "scroll", "type",
             "keys", "mouse_down", "mouse_up", "wait")
_OPENAI_ONLY_TYPES = ("keypress", "screenshot")
_OPENAI_ONLY_BUTTONS = ("wheel", "back", "forward")
_POINTER_TYPES = ("click", "double_click", "move", "scroll", "drag")


class ActionError(ValueError):
    """An action in none of the formats, or one the format does not know."""


def detect_format(action: Mapping[str, object]) -> Format:
    if "action" in action and "type" not in action:
        return "anthropic"
    if action.get("type") == "tool_use" and isinstance(action.get("input"), Mapping):
        return "anthropic"
    kind = action.get("type")
    if not isinstance(kind, str):
        raise ActionError(f"not an action (needs an 'action' or a 'type' key): {dict(action)!r}")
    path = action.get("path")
    if (kind in _OPENAI_ONLY_TYPES and kind != "screenshot") or "scroll_x" in action or "scroll_y" in action \
            or action.get("button") in _OPENAI_ONLY_BUTTONS \
            or (kind in _POINTER_TYPES and "keys" in action) \
            or (kind == "drag" and isinstance(path, list) and path and isinstance(path[0], Mapping)) \
            or (kind == "wait" and "seconds" not in action):
        return "openai"
    if kind in OWN_TYPES:
        return "desktopd"
    raise ActionError(f"unknown action type {kind!r}; ours are {', '.join(OWN_TYPES)}")


def unwrap(action: Mapping[str, object]) -> dict:
    """The action itself (an Anthropic tool_use block's input)."""
    if action.get("type") == "tool_use":
        return dict(action["input"])   # type: ignore[arg-type]
    return dict(action)


@dataclass(frozen=True)
class Scaling:
    """Screenshot pixels (what the agent saw) <-> screen pixels."""

    screen: tuple[int, int]
    display: tuple[int, int]

    @property
    def scaled(self) -> bool:
        return self.screen != self.display

    def to_screen(self, x: float, y: float) -> tuple[int, int]:
        """Off-display points stay off-screen, for desktopd to refuse (422 naming the field)."""
        return self._axis(x, 0), self._axis(y, 1)

    def _axis(self, value: float, axis: int) -> int:
        out = round(float(value) * self.screen[axis] / self.display[axis])
        # Rounding may land one past the edge for the last display pixel: keep it on screen.
        return min(self.screen[axis] - 1, out) if 0 <= value < self.display[axis] else out

    def vendor_query(self) -> dict[str, int]:
        if not self.scaled:
            return {}
        return {"display_width_px": self.display[0], "display_height_px": self.display[1]}


class InputApi(Protocol):
    """What running an action needs of a client (desktopd_kit.Desktop has it)."""

    def pointer(self, event: Mapping[str, object] | None = None, *, events: object = None) -> dict: ...
    def type_text(self, text: str, *, delay_ms: float | None = None) -> dict: ...
    def keys(self, keys: str | list[str], *, action: str = "press", delay_ms: float | None = None) -> dict: ...
    def anthropic(self, tool_input: Mapping[str, object], **query: object) -> dict: ...
    def openai(self, action: Mapping[str, object] | None = None, **query: object) -> dict: ...


@dataclass
class Executed:
    """What ran: the format, the action as issued, and what desktopd did in screen pixels."""

    format: Format
    issued: dict
    executed: dict          # screen pixels: x, y (where the pointer acted), path, keys, text, ...
    vendor_reply: dict | None = None   # the vendor endpoint's answer, images left out

    @property
    def point(self) -> tuple[int, int] | None:
        x, y = self.executed.get("x"), self.executed.get("y")
        return (int(x), int(y)) if isinstance(x, (int, float)) and isinstance(y, (int, float)) else None


@dataclass(frozen=True)
class Planned:
    """An action as one desktopd call: ``act`` is the endpoint's name as POST /api/v1/step
    takes it (anthropic, openai, tablet, keyboard), or None for what runs here (wait, noop)."""

    format: Format
    issued: dict
    act: str | None
    body: dict
    query: dict                   # the vendor endpoints' display query
    executed: dict                # what is known before it runs (our own format)

    def step_act(self) -> dict | None:
        """The act for POST /api/v1/step, with its display query."""
        return None if self.act is None else {self.act: self.body, **self.query}

    def finish(self, executed: object, text: str | None = None) -> Executed:
        """The Executed of a step answer's ``act``/``executed``/``text``."""
        if self.format == "anthropic":
            content = [{"type": "text", "text": text}] if text is not None else []
            done = dict(executed or {})   # type: ignore[call-overload]
            return Executed(self.format, self.issued, done,
                            {"content": content, "action": self.issued.get("action"), "executed": done})
        if self.format == "openai":
            done = dict(executed or {})   # type: ignore[call-overload]
            return Executed(self.format, self.issued, done, {"type": "computer_call_output", "executed": [done]})
        return Executed(self.format, self.issued, self._own_done(executed))

    def _own_done(self, answer: object) -> dict:
        if self.act == "tablet" and isinstance(answer, dict):
            return {**self.executed, "x": answer["x"], "y": answer["y"]}
        return dict(self.executed)


def plan_action(action: Mapping[str, object], scaling: Scaling,
                action_format: Format | Literal["auto"] = "auto") -> Planned:
    """Which call runs ``action`` (format detected unless given); ActionError when it is none."""
    fmt = detect_format(action) if action_format == "auto" else action_format
    issued = unwrap(action)
    if fmt in ("anthropic", "openai"):
        return Planned(fmt, issued, fmt, issued, scaling.vendor_query(), {})
    act, body, executed = _plan_own(issued, scaling)
    return Planned(fmt, issued, act, body, {}, executed)


def run_action(client: InputApi, action: Mapping[str, object], scaling: Scaling,
               action_format: Format | Literal["auto"] = "auto") -> Executed:
    """Runs ``action`` on its own endpoint; DesktopError when desktopd refuses it."""
    planned = plan_action(action, scaling, action_format)
    if planned.act == "anthropic":
        reply = client.anthropic(planned.body, screenshot=False, settle=0, **planned.query)
        return Executed(planned.format, planned.issued, dict(reply.get("executed") or {}), _without_images(reply))
    if planned.act == "openai":
        reply = client.openai(planned.body, settle=0, **planned.query)
        done = reply.get("executed") or [{}]
        return Executed(planned.format, planned.issued, dict(done[-1]), _without_images(reply))
    return planned.finish(run_local(client, planned))


def run_local(client: InputApi, planned: Planned) -> object:
    """Our own format's call (/tablet or /keyboard answer), or the wait it asks for here."""
    if planned.act == "tablet":
        return client.pointer(planned.body)
    if planned.act == "keyboard":
        if "text" in planned.body:
            return client.type_text(planned.body["text"])
        return client.keys(planned.body["keys"])
    if planned.executed.get("type") == "wait":
        time.sleep(min(max(planned.executed["seconds"], 0.0), 60.0))
    return None


def _without_images(reply: dict) -> dict:
    out = {k: v for k, v in reply.items() if k not in ("content", "output")}
    if "content" in reply:
        out["content"] = [b for b in reply["content"] if b.get("type") != "image"]
    return out


def _point(action: Mapping[str, object], scaling: Scaling) -> dict[str, int]:
    if "x" not in action and "y" not in action:
        return {}
    x, y = scaling.to_screen(action["x"], action["y"])   # type: ignore[arg-type]
    return {"x": x, "y": y}


def _plan_own(a: dict, scaling: Scaling) -> tuple[str | None, dict, dict]:
    """(step act, its body, what is executed before the answer) of one of our own actions."""
    kind = a["type"]
    modifiers = {"modifiers": list(a["modifiers"])} if a.get("modifiers") else {}
    if kind in ("noop", "screenshot"):
        return None, {}, {"type": kind}
    if kind == "wait":
        return None, {}, {"type": kind, "seconds": float(a.get("seconds", 1.0))}
    if kind == "type":
        return "keyboard", {"text": str(a["text"])}, {"type": kind, "typed": len(str(a["text"]))}
    if kind == "keys":
        return "keyboard", {"keys": a["keys"]}, {"type": kind, "keys": a["keys"]}
    if kind == "drag":
        path = [scaling.to_screen(*(p if not isinstance(p, Mapping) else (p["x"], p["y"])))
                for p in a["path"]]   # type: ignore[union-attr]
        event = {"action": "drag", "path": [list(p) for p in path], "button": a.get("button", "left"),
                 "duration_ms": int(a.get("duration_ms", 0)), **modifiers}
        return "tablet", event, {"type": kind, "path": event["path"]}
    if kind in ("tap", "click", "double_click", "move", "scroll", "mouse_down", "mouse_up"):
        event: dict[str, object] = {"action": {"mouse_down": "down", "mouse_up": "up"}.get(kind, kind),
                                    **_point(a, scaling), **modifiers}
        if kind in ("click", "double_click", "mouse_down", "mouse_up"):
            event["button"] = a.get("button", "left")
        if kind == "click" and a.get("clicks"):
            event["clicks"] = int(a["clicks"])   # type: ignore[call-overload]
        if kind == "scroll":
            event.update(dx=int(a.get("dx", 0)), dy=int(a.get("dy", 0)))
        return "tablet", event, {"type": kind, **{k: v for k, v in event.items() if k != "action"}}
    raise ActionError(f"unknown action type {kind!r}; ours are {', '.join(OWN_TYPES)}")


_ANTHROPIC_KINDS = {"left_click": "click", "right_click": "click", "middle_click": "click",
                    "double_click": "click", "triple_click": "click", "type": "type", "key": "keys",
                    "mouse_move": "move", "scroll": "scroll", "left_click_drag": "drag",
                    "left_mouse_down": "mouse_down", "left_mouse_up": "mouse_up", "hold_key": "keys",
                    "wait": "wait", "screenshot": "noop", "cursor_position": "noop", "zoom": "noop"}
_OPENAI_KINDS = {"click": "click", "double_click": "click", "type": "type", "keypress": "keys",
                 "move": "move", "scroll": "scroll", "drag": "drag", "wait": "wait", "screenshot": "noop"}
_OWN_KINDS = {"tap": "click", "double_click": "click", "screenshot": "noop"}


def canonical_kind(fmt: Format, issued: Mapping[str, object]) -> str:
    """One vocabulary for every format (click, type, keys, move, scroll, drag, mouse_down,
    mouse_up, wait, noop): what records and exports are keyed by."""
    if fmt == "anthropic":
        return _ANTHROPIC_KINDS.get(str(issued.get("action")), str(issued.get("action")))
    if fmt == "openai":
        return _OPENAI_KINDS.get(str(issued.get("type")), str(issued.get("type")))
    kind = str(issued.get("type"))
    return _OWN_KINDS.get(kind, kind)
