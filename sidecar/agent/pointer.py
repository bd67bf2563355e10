"""The two inputs of POST /act behind one interface: ``VisibleInput`` moves the real pointer and
types on the real keyboard through desktopd's XTEST endpoints (screen pixels: the operator sees
it, the page gets trusted events); ``CdpInput`` dispatches the same gestures through CDP's Input
domain (CSS px of the tab's viewport: works on background tabs and without a desktop)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Literal, Protocol
from urllib.parse import urlsplit

from ..cdp.protocol.cdp_commands import InputDispatchKeyEventParams, InputDispatchMouseEventParams
from ..cdp.targets import PageTarget
from desktopd_kit import AsyncDesktop, DesktopError
from desktopd_kit.retry import NO_RETRY
from httpapi.errors import ApiError
from .key_combos import Combo

DESKTOPD_TIMEOUT_S = 15.0
DRAG_STEPS = 8
# The buttons a click names (act_fields' button) as CDP's mouse events name them.
CDP_BUTTONS: dict[str, Literal["left", "middle", "right"]] = {"left": "left", "middle": "middle", "right": "right"}


class Input(Protocol):
    async def click(self, x: float, y: float, button: str, clicks: int,
                    modifiers: tuple[str, ...]) -> None: ...
    async def move(self, x: float, y: float) -> None: ...
    async def drag(self, start: tuple[float, float], end: tuple[float, float]) -> None: ...
    async def type_text(self, text: str, slowly: bool) -> None: ...
    async def press(self, combo: Combo) -> None: ...


def desktopd_client(url: str, token: str | None) -> AsyncDesktop:
    """The kit's client of desktopd as visible mode uses it: every call bounded, none repeated
    (each moves the real pointer or keyboard)."""
    return AsyncDesktop(url, token, timeout=DESKTOPD_TIMEOUT_S, retry=NO_RETRY)


def desktopd_failure(error: DesktopError) -> ApiError:
    """desktopd's failure as this API says it: unreachable is 503, an off-screen point (desktopd's
    ``reason``, never its wording) 409 on the ref, anything else 502 with desktopd's answer."""
    if error.status is None:
        return ApiError(503, "desktopd_unavailable",
                        f"visible mode needs desktopd at {error.url} ({error.code}: {error.message}); "
                        "use mode=cdp or start desktopd")
    answer = error.body
    if error.status == 422 and isinstance(answer, dict) and answer.get("reason") == "off_screen":
        return ApiError(409, "off_screen", "the element is in the page's viewport but outside the "
                        f"desktop (a browser window larger than the screen?): {answer.get('detail')}; "
                        "use mode=cdp or resize the window (kind=resize)", field="ref")
    return ApiError(502, "desktopd_error", {"path": urlsplit(error.url).path, "status": error.status,
                                            "body": answer})


async def _through_desktopd(pending: Awaitable[object]) -> None:
    try:
        await pending
    except DesktopError as error:
        raise desktopd_failure(error) from None


class VisibleInput:
    def __init__(self, desktopd: AsyncDesktop) -> None:
        self.desktopd = desktopd

    async def click(self, x: float, y: float, button: str, clicks: int,
                    modifiers: tuple[str, ...]) -> None:
        await _through_desktopd(self.desktopd.pointer(events=[
            {"action": "move", "x": round(x), "y": round(y)},
            {"action": "click", "button": button, "clicks": clicks, "modifiers": list(modifiers)}]))

    async def move(self, x: float, y: float) -> None:
        await _through_desktopd(self.desktopd.move(round(x), round(y)))

    async def drag(self, start: tuple[float, float], end: tuple[float, float]) -> None:
        await _through_desktopd(self.desktopd.drag(
            [(round(start[0]), round(start[1])), (round(end[0]), round(end[1]))], duration_ms=300))

    async def type_text(self, text: str, slowly: bool) -> None:
        if text:
            await _through_desktopd(self.desktopd.type_text(text, delay_ms=40 if slowly else 0))

    async def press(self, combo: Combo) -> None:
        await _through_desktopd(self.desktopd.keys(combo.xdotool))


class CdpInput:
    """Input events to the tab's page session (Chromium routes them to the frame under the point,
    out-of-process iframes included)."""

    def __init__(self, page: PageTarget, timeout: float) -> None:
        self.page = page
        self.timeout = timeout

    async def _mouse(self, event: InputDispatchMouseEventParams) -> None:
        await self.page.send("Input.dispatchMouseEvent", event, timeout=self.timeout)

    async def click(self, x: float, y: float, button: str, clicks: int,
                    modifiers: tuple[str, ...]) -> None:
        bits = _modifier_bits(modifiers)
        pressed = CDP_BUTTONS[button]
        # Sent together: one session's commands are handled in order, and not waiting for each
        # acknowledgement saves a frame per event.
        events = [self._mouse({"type": "mouseMoved", "x": x, "y": y, "modifiers": bits})]
        for count in range(1, clicks + 1):
            events.append(self._mouse({"type": "mousePressed", "x": x, "y": y, "button": pressed,
                                       "clickCount": count, "modifiers": bits}))
            events.append(self._mouse({"type": "mouseReleased", "x": x, "y": y, "button": pressed,
                                       "clickCount": count, "modifiers": bits}))
        await asyncio.gather(*events)

    async def move(self, x: float, y: float) -> None:
        await self._mouse({"type": "mouseMoved", "x": x, "y": y})

    async def drag(self, start: tuple[float, float], end: tuple[float, float]) -> None:
        (x0, y0), (x1, y1) = start, end
        await self._mouse({"type": "mouseMoved", "x": x0, "y": y0})
        await self._mouse({"type": "mousePressed", "x": x0, "y": y0, "button": "left", "clickCount": 1})
        for step in range(1, DRAG_STEPS + 1):
            f = step / DRAG_STEPS
            await self._mouse({"type": "mouseMoved", "x": x0 + (x1 - x0) * f, "y": y0 + (y1 - y0) * f,
                               "button": "left", "buttons": 1})
        await self._mouse({"type": "mouseReleased", "x": x1, "y": y1, "button": "left", "clickCount": 1})

    async def type_text(self, text: str, slowly: bool) -> None:
        if not slowly:
            if text:
                await self.page.send("Input.insertText", {"text": text}, timeout=self.timeout)
            return
        for char in text:       # one key event per character, as a person types
            await self.page.send("Input.dispatchKeyEvent", {"type": "keyDown", "text": char,
                                                            "key": char, "unmodifiedText": char},
                                 timeout=self.timeout)
            await self.page.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": char},
                                 timeout=self.timeout)

    async def press(self, combo: Combo) -> None:
        typed = combo.text if combo.cdp_modifiers & ~8 == 0 else ""
        down = _key_event(combo, "keyDown" if typed else "rawKeyDown")
        if typed:
            down["text"] = down["unmodifiedText"] = typed
        await self.page.send("Input.dispatchKeyEvent", down, timeout=self.timeout)
        await self.page.send("Input.dispatchKeyEvent", _key_event(combo, "keyUp"), timeout=self.timeout)


def _key_event(combo: Combo, kind: Literal["keyDown", "rawKeyDown", "keyUp"]) -> InputDispatchKeyEventParams:
    return {"type": kind, "key": combo.key, "code": combo.code, "windowsVirtualKeyCode": combo.key_code,
            "nativeVirtualKeyCode": combo.key_code, "modifiers": combo.cdp_modifiers}


def _modifier_bits(modifiers: tuple[str, ...]) -> int:
    return sum({"alt": 1, "ctrl": 2, "super": 4, "shift": 8}[m] for m in modifiers)
