"""The display a model is told about versus the real screen.

A model may be given a smaller display than the screen (Anthropic recommends about XGA): its
coordinates are in that advertised space and are scaled to screen pixels here, and the
screenshots it gets back are scaled to the advertised size, so both directions agree.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from collections.abc import Mapping
from typing import TypedDict

from PIL import Image

from httpapi.fields import F, Bool, Int
from httpapi.errors import invalid
from desktopd.x11 import encode as x11_encode
from desktopd.backend.service import BackendService

MAX_SIDE = 16384

DISPLAY_FIELDS = [
    F("display_width_px", Int(1, MAX_SIDE),
      description="Width the model was told; coordinates are in this space (default: the screen's)."),
    F("display_height_px", Int(1, MAX_SIDE),
      description="Height the model was told (default: the screen's)."),
]
SCREENSHOT_FIELD = F("screenshot", Bool(), default=True,
                     description="false: no screenshot after an action (screenshot and zoom "
                                 "always return one).")


def display_pair(q: Mapping[str, object]) -> tuple[str, str] | None:
    if (q["display_width_px"] is None) != (q["display_height_px"] is None):
        missing = "display_height_px" if q["display_height_px"] is None else "display_width_px"
        return missing, "display_width_px and display_height_px go together"
    return None


class Size(TypedDict):
    width: int
    height: int


class DisplayDescription(TypedDict):
    """What answers say of the two spaces: the real screen, and the display the model sees."""
    screen: Size
    display: Size


@dataclass(frozen=True)
class Display:
    screen: tuple[int, int]       # real screen pixels
    advertised: tuple[int, int]   # what the model sees

    @property
    def scaled(self) -> bool:
        return self.screen != self.advertised

    def to_screen(self, x: int, y: int, field: str) -> tuple[int, int]:
        """A model coordinate -> screen pixels; 422 naming ``field`` when it is off the display."""
        width, height = self.advertised
        if not (0 <= x < width and 0 <= y < height):
            raise invalid(field, f"({x}, {y}) is off the {width}x{height} display")
        sx = min(self.screen[0] - 1, round(x * self.screen[0] / width))
        sy = min(self.screen[1] - 1, round(y * self.screen[1] / height))
        return sx, sy

    def from_screen(self, x: int, y: int) -> tuple[int, int]:
        return (round(x * self.advertised[0] / self.screen[0]),
                round(y * self.advertised[1] / self.screen[1]))

    def describe(self) -> DisplayDescription:
        return {"screen": {"width": self.screen[0], "height": self.screen[1]},
                "display": {"width": self.advertised[0], "height": self.advertised[1]}}


async def display_of(xs: BackendService, q: Mapping[str, object]) -> Display:
    """The display a query or body validated with DISPLAY_FIELDS (display_pair) names."""
    screen = await xs.screen_size()
    width, height = q["display_width_px"], q["display_height_px"]
    if not isinstance(width, int) or not isinstance(height, int):   # both None (display_pair)
        return Display(screen, screen)
    return Display(screen, (width, height))


def _png(image: Image.Image, size: tuple[int, int] | None) -> bytes:
    if size is not None:
        # Exactly the advertised size (also when its aspect differs), as the model expects.
        image = x11_encode.resized(image, *size)
    return x11_encode.fast_png(image)


async def screenshot_png(xs: BackendService, size: tuple[int, int] | None,
                         region: tuple[int, int, int, int] | None = None) -> bytes:
    """The screen (or a screen-pixel region x,y,w,h) as PNG, resized to ``size`` when given.
    Captured on the X thread, encoded off it."""
    image = await xs.call(lambda desk: desk.capture(region, False), field="region")
    return await asyncio.get_running_loop().run_in_executor(None, _png, image, size)


def model_screenshot(xs: BackendService, display: Display) -> Callable[[], Awaitable[bytes]]:
    """The screenshot a model gets back (PNG at its advertised size), as a capture to call."""
    return lambda: screenshot_png(xs, display.advertised if display.scaled else None)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
