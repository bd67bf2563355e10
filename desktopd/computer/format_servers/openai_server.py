"""The OpenAI format's server side (its declaration: formats/openai.py): each computer_call action
as desktopd input, and POST /api/v1/computer/openai, answered with the ``computer_call_output``.

Key names arrive as the model spells them ("CTRL", "ENTER", "ARROWLEFT", "A"); letters are
lowercased, since a shifted letter comes with an explicit SHIFT.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence

from aiohttp import web

from httpapi.routing import with_query

from desktopd.app_keys import settler, backend_service
from httpapi.bodies import json_body
from desktopd.settle.settler import SETTLE_FIELDS, SETTLED, SettleSpec, settled_capture, skipped
from desktopd.settle.browser import Clicks
from desktopd.x11 import keynames
from desktopd.backend.service import BackendService
from desktopd_contract.vendor_format import Action, JSONObject
from httpapi.fields import F, Const, ListOf, Model, Opaque, Str
from httpapi.responses import ResponseModel

from .. import steps
from ..display import DISPLAY_FIELDS, Display, b64, display_of, display_pair, model_screenshot
from desktopd_contract.formats.openai import ACTION, BUTTONS, FORMAT
from ..vendor_format import Endpoint, FormatServer, Performed

# scroll_x/scroll_y are pixels; X scrolls in wheel clicks. Chromium and GTK scroll about this
# far per click, so a 300-pixel scroll is three clicks (and any non-zero scroll at least one).
PIXELS_PER_WHEEL_CLICK = 100
WAIT_S = 1.0   # `wait` carries no duration; the reference sample sleeps about this long
KEY_ALIASES = {"cmd": "super", "option": "alt", "arrowup": "Up", "arrowdown": "Down",
               "arrowleft": "Left", "arrowright": "Right", "pageup": "Prior", "pagedown": "Next"}


def _one_of_action(body: JSONObject) -> tuple[str, str] | None:
    if (body["action"] is None) == (body["actions"] is None):
        return "action", "give exactly one of action, actions"
    return None


BODY = Model("OpenAIComputerCall", [
    F("call_id", Str(min_length=1, max_length=200), description="Echoed in the output item."),
    F("action", ACTION, description="The computer_call's action."),
    F("actions", ListOf(ACTION, min_items=1, max_items=100), description="Several, run in order."),
], check=_one_of_action)

QUERY = Model("OpenAIActionQuery", [*DISPLAY_FIELDS, *SETTLE_FIELDS], check=display_pair)

RESULT = ResponseModel("OpenAIComputerCallOutput", [
    F("type", Const("computer_call_output", typed=False), required=True), F("call_id", Str()),
    F("output", ResponseModel("OpenAIComputerScreenshot", [
        F("type", Const("computer_screenshot", typed=False)), F("image_url", Str()),
    ]), required=True),
    F("executed", ListOf(Opaque("object")),
      description="What ran, in screen pixels (not part of OpenAI's item)."),
    F("settled", SETTLED),
    F("screen", Opaque("object")), F("display", Opaque("object")),
])

def key_name(name: str) -> str:
    """The model's spelling -> an xdotool name desktopd knows."""
    lowered = name.lower()
    if len(name) == 1:
        return lowered if name.isascii() else name
    if lowered in KEY_ALIASES:
        return KEY_ALIASES[lowered]
    return lowered if lowered in keynames.ALIASES else name   # "CTRL" -> "ctrl"; "F5" stays


def wheel_clicks(pixels: int) -> int:
    if pixels == 0:
        return 0
    clicks = max(1, round(abs(pixels) / PIXELS_PER_WHEEL_CLICK))
    return clicks if pixels > 0 else -clicks


async def held_keys(xs: BackendService, act: Action, where: str) -> list[str]:
    names = [key_name(k) for k in act.get("keys") or []]
    await steps.check_keys(xs, [(f"{where}.keys[{i}]", n) for i, n in enumerate(names)])
    return names


async def perform(xs: BackendService, display: Display, act: Action, where: str) -> Performed:
    kind = act["type"]
    done: JSONObject = {"type": kind}
    if kind in ("click", "double_click", "move", "scroll"):
        at = display.to_screen(act["x"], act["y"], f"{where}.x")
        modifiers = await held_keys(xs, act, where)
        if kind == "click":
            button = BUTTONS[act["button"]]
            done["x"], done["y"] = await steps.click(xs, at, button, 1, modifiers)
            done["button"] = button
        elif kind == "double_click":
            done["x"], done["y"] = await steps.click(xs, at, 1, 2, modifiers)
        elif kind == "move":
            done["x"], done["y"] = await steps.move(xs, at, modifiers)
        else:
            dx, dy = wheel_clicks(act["scroll_x"]), wheel_clicks(act["scroll_y"])
            done["x"], done["y"] = await steps.scroll(xs, at, dx, dy, modifiers)
            done.update(dx=dx, dy=dy)
    elif kind == "drag":
        path = [display.to_screen(p["x"], p["y"], f"{where}.path[{i}]") for i, p in enumerate(act["path"])]
        modifiers = await held_keys(xs, act, where)
        done["x"], done["y"] = await steps.drag(xs, path, modifiers)
        done["path"] = [list(p) for p in path]
    elif kind == "keypress":
        names = [key_name(k) for k in act["keys"]]
        await steps.check_keys(xs, [(f"{where}.keys[{i}]", n) for i, n in enumerate(names)])
        await xs.call(steps.press_combos, [names])   # all together: ["CTRL", "C"] is ctrl+c
        done["keys"] = list(names)
    elif kind == "type":
        await steps.type_text(xs, act["text"])
        done["typed"] = len(act["text"])
    elif kind == "wait":
        await asyncio.sleep(WAIT_S)
    return Performed(done)


def clicks(acts: Sequence[Action], started: float) -> Clicks | None:
    """One click or double click with the left button and no keys held, alone in its call."""
    if len(acts) != 1 or acts[0].get("keys"):
        return None
    act = acts[0]
    if act["type"] == "click" and act.get("button", "left") == "left":
        return Clicks(started, 1)
    if act["type"] == "double_click":
        return Clicks(started, 2)
    return None


async def computer_call(request: web.Request, q: Mapping[str, object]) -> web.Response:
    body = await json_body(request, BODY)
    xs = backend_service(request)
    display = await display_of(xs, q)
    if body["action"] is not None:
        plan = [(body["action"], "action")]
    else:
        plan = [(act, f"actions[{i}]") for i, act in enumerate(body["actions"])]
    started = time.monotonic()
    executed = [(await perform(xs, display, act, where)).executed for act, where in plan]
    mark = await settler(request).mark()
    spec = SettleSpec.of(q)
    capture = settler(request).reusing(("model png", display.advertised if display.scaled else None),
                                       model_screenshot(xs, display))
    acts = [act for act, _ in plan]
    if not FORMAT.only_looks(acts):
        png, settled = await settled_capture(settler(request), mark, spec, capture, clicks(acts, started))
    else:
        png, settled = await capture(), skipped(spec)
    out: JSONObject = {"type": "computer_call_output"}
    if body["call_id"] is not None:
        out["call_id"] = body["call_id"]
    out["output"] = {"type": "computer_screenshot", "image_url": "data:image/png;base64," + b64(png)}
    return web.json_response({**out, "executed": executed, "settled": settled.json(), **display.describe()})


SERVER = FormatServer(perform, clicks, [
    Endpoint("POST", with_query(QUERY, computer_call),
             "Run an OpenAI computer_call's action(s); answers its computer_call_output", RESULT,
             body=BODY,
             description="Coordinates are in the display_width_px x display_height_px space "
                         "(default: the screen); the screenshot comes back at that size."),
])
