"""The pixels vision reads: the screen, a region of it, or one window's area, captured through
desktopd's X service; the answer always says which screen rectangle that was."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from desktopd.screen.handlers import check_region
from desktopd.windows.handlers import window_id
from desktopd.screen.models import parse_region
from desktopd.backend.service import BackendService
from desktopd_contract.windows import WindowInfo
from httpapi.errors import ApiError, invalid

from .text import Box


@dataclass(frozen=True)
class Capture:
    image: Image.Image
    area: Box               # screen pixels of the image's top-left and size
    screen: tuple[int, int]


def _window_area(window: WindowInfo, screen: tuple[int, int], field: str) -> tuple[int, int, int, int]:
    """The window's client area cut to the screen (a window partly off screen is read in part)."""
    rect = window["client"]
    x0, y0 = max(0, rect["x"]), max(0, rect["y"])
    x1 = min(screen[0], rect["x"] + rect["width"])
    y1 = min(screen[1], rect["y"] + rect["height"])
    if x1 <= x0 or y1 <= y0:
        raise invalid(field, f"window {window['id']} is not on the screen")
    return x0, y0, x1 - x0, y1 - y0


async def capture(xs: BackendService, region: str | None, window: str | None) -> Capture:
    """``region`` (x,y,width,height) or ``window`` (an X window id), else the whole screen."""
    screen = await xs.screen_size()
    area: tuple[int, int, int, int] | None = None
    if region is not None:
        area = parse_region(region)
        check_region(area, screen)
    elif window is not None:
        try:
            wid = window_id(window)
        except ApiError as exc:
            raise invalid("window", str(exc.detail).removeprefix("id: ")) from None
        area = _window_area(await xs.call(lambda desk: desk.window(wid)), screen, "window")
    image = await xs.call(lambda desk: desk.capture(area, False), field="region")
    x, y, w, h = area or (0, 0, screen[0], screen[1])
    return Capture(image, Box(x, y, w, h), screen)
