"""The screen's route, declared once (desktopd/routes.py lists it with the others)."""

from __future__ import annotations

from httpapi.routing import Route, with_query

from . import handlers
from .models import SCREENSHOT_QUERY

IMAGE_HEADERS = {
    "X-Screen-Width": "Screen width in pixels.", "X-Screen-Height": "Screen height in pixels.",
    "X-Region": "Captured rectangle x,y,width,height in screen pixels.",
    "X-Scale": "Factor applied: screen_x = region_x + image_x / scale.",
    "X-Scale-Y": "The factor of y: screen_y = region_y + image_y / scale_y (the same as X-Scale "
                 "unless width and height changed the aspect).",
    "X-Image-Width": "Width of the returned image.", "X-Image-Height": "Height of the returned image.",
    "X-Raw-Width": "format=raw: pixels per row.", "X-Raw-Height": "format=raw: rows.",
    "X-Raw-Stride": "format=raw: bytes per row (width*4).",
    "X-Raw-Format": "format=raw: BGRX, 4 bytes a pixel (blue, green, red, unused), rows top down.",
}

ROUTES: list[Route] = [
    Route("GET", "/api/v1/screenshot", with_query(SCREENSHOT_QUERY, handlers.screenshot),
          "Capture the screen or a region", "screen",
          concurrency=16,
          success={"image/png": {"schema": {"type": "string", "format": "binary"}},
                   "image/jpeg": {"schema": {"type": "string", "format": "binary"}},
                   "image/webp": {"schema": {"type": "string", "format": "binary"}},
                   "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
          success_headers=IMAGE_HEADERS),
]
