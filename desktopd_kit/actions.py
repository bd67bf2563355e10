"""Actions in several formats, told apart by their keys, and run on a desktop.

- The vendor formats desktopd serves, one declaration each in desktopd_contract/formats/ (each
  declares how the kit recognises its actions, what it posts and how it reads the answer, and
  imports none of desktopd's server):
  ``anthropic``, an Anthropic computer tool call's ``input`` (an ``action`` key; a whole
  ``tool_use`` block is unwrapped), run on /api/v1/computer/anthropic; ``openai``, an OpenAI
  ``computer_call`` action (a ``type`` key and something only OpenAI says: type ``keypress``,
  ``scroll_x``/``scroll_y``, ``keys`` held during a pointer action, a button
  ``wheel``/``back``/``forward``, a ``drag`` path of ``{"x","y"}``, or ``wait`` without
  ``seconds``), run on /api/v1/computer/openai.
- ``desktopd``: our own — ``{"type": T, ...}`` with T one of OWN_TYPES (below), straight onto
  desktopd's input endpoints. Where it looks like OpenAI's (click, double_click, move, type with
  the same fields) the two mean the same, so the choice does not matter.

Coordinates of every format are in the pixels of the screenshot the agent saw (``Scaling``);
they become screen pixels here (own format) or on desktopd (display_width_px/height_px).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, SupportsFloat

from desktopd_contract.formats import FORMATS as VENDOR_FORMATS

from .calls import JSON

OWN = "desktopd"
# A format's name: a vendor format's (desktopd_contract/formats/) or OWN.
Format = str
FORMATS: tuple[Format, ...] = (*VENDOR_FORMATS, OWN)
OWN_TYPES = ("noop", "screenshot", "tap", "click", "double_click", "move", "drag", "scroll", "type",
             "keys", "mouse_down", "mouse_up", "wait")


class ActionError(ValueError):
    """An action in none of the formats, or one the format does not know."""


def detect_format(action: Mapping[str, object]) -> Format:
    for name, vendor in VENDOR_FORMATS.items():
        if vendor.kit.recognises(action):
            return name
    kind = action.get("type")
    if not isinstance(kind, str):
        raise ActionError(f"not an action (needs an 'action' or a 'type' key): {dict(action)!r}")
    if kind in OWN_TYPES:
        return OWN
    raise ActionError(f"unknown action type {kind!r}; ours are {', '.join(OWN_TYPES)}")


def unwrap(action: Mapping[str, object], action_format: Format) -> dict:
    """The action itself (out of its format's wrapper: an Anthropic tool_use block's input)."""
    vendor = VENDOR_FORMATS.get(action_format)
    return vendor.kit.unwrap(action) if vendor is not None else dict(action)


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

    def pointer(self, event: Mapping[str, JSON] | None = None, *,
                events: Sequence[Mapping[str, JSON]] | None = None) -> dict: ...
    def type_text(self, text: str, *, delay_ms: float | None = None) -> dict: ...
    def keys(self, keys: str | Sequence[str], *, action: Literal["press", "down", "up"] = "press",
             delay_ms: float | None = None) -> dict: ...
    def computer_use(self, format: str, action_body: Mapping[str, JSON], **params: JSON) -> dict: ...


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
    takes it (a vendor format's, tablet, keyboard), or None for what runs here (wait, noop)."""

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
        vendor = VENDOR_FORMATS.get(self.format)
        if vendor is not None:
            done = dict(executed) if isinstance(executed, Mapping) else {}
            return Executed(self.format, self.issued, done, vendor.kit.step_reply(self.issued, done, text))
        return Executed(self.format, self.issued, self._own_done(executed))

    def _own_done(self, answer: object) -> dict:
        if self.act == "tablet" and isinstance(answer, dict):
            return {**self.executed, "x": answer["x"], "y": answer["y"]}
        return dict(self.executed)


def plan_action(action: Mapping[str, object], scaling: Scaling,
                action_format: Format | Literal["auto"] = "auto") -> Planned:
    """Which call runs ``action`` (format detected unless given); ActionError when it is none."""
    fmt = detect_format(action) if action_format == "auto" else action_format
    if fmt not in FORMATS:
        raise ActionError(f"unknown action format {fmt!r}; the formats are {', '.join(FORMATS)}")
    issued = unwrap(action, fmt)
    if fmt in VENDOR_FORMATS:
        return Planned(fmt, issued, fmt, issued, scaling.vendor_query(), {})
    act, body, executed = _plan_own(issued, scaling)
    return Planned(fmt, issued, act, body, {}, executed)


def run_action(client: InputApi, action: Mapping[str, object], scaling: Scaling,
               action_format: Format | Literal["auto"] = "auto") -> Executed:
    """Runs ``action`` on its own endpoint; DesktopError when desktopd refuses it."""
    planned = plan_action(action, scaling, action_format)
    vendor = VENDOR_FORMATS.get(planned.format)
    if vendor is not None:
        reply = client.computer_use(vendor.name, vendor.kit.body(planned.body), settle=0, **vendor.kit.query,
                                    **planned.query)
        return Executed(planned.format, planned.issued, vendor.kit.executed(reply), _without_images(reply))
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
    x, y = action["x"], action["y"]
    if not isinstance(x, SupportsFloat) or not isinstance(y, SupportsFloat):
        raise TypeError(f"an action's x and y are numbers, not {x!r}, {y!r}")
    sx, sy = scaling.to_screen(float(x), float(y))
    return {"x": sx, "y": sy}


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
                for p in a["path"]]
        event: dict[str, object] = {"action": "drag", "path": [list(p) for p in path], "button": a.get("button", "left"),
                 "duration_ms": int(a.get("duration_ms", 0)), **modifiers}
        return "tablet", event, {"type": kind, "path": event["path"]}
    if kind in ("tap", "click", "double_click", "move", "scroll", "mouse_down", "mouse_up"):
        event = {"action": {"mouse_down": "down", "mouse_up": "up"}.get(kind, kind),
                 **_point(a, scaling), **modifiers}
        if kind in ("click", "double_click", "mouse_down", "mouse_up"):
            event["button"] = a.get("button", "left")
        if kind == "click" and a.get("clicks"):
            event["clicks"] = int(a["clicks"])
        if kind == "scroll":
            event.update(dx=int(a.get("dx", 0)), dy=int(a.get("dy", 0)))
        return "tablet", event, {"type": kind, **{k: v for k, v in event.items() if k != "action"}}
    raise ActionError(f"unknown action type {kind!r}; ours are {', '.join(OWN_TYPES)}")


_OWN_KINDS = {"tap": "click", "double_click": "click", "screenshot": "noop"}


def canonical_kind(fmt: Format, issued: Mapping[str, object]) -> str:
    """One vocabulary for every format (click, type, keys, move, scroll, drag, mouse_down,
    mouse_up, wait, noop): what records and exports are keyed by."""
    vendor = VENDOR_FORMATS.get(fmt)
    if vendor is not None:
        kind = vendor.kind_of(issued)
        return vendor.kit.kinds.get(kind, kind)
    kind = str(issued.get("type"))
    return _OWN_KINDS.get(kind, kind)
