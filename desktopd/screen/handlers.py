"""GET /api/v1/screenshot: capture on the X thread, scale and encode on the default pool.

Encoding is CPU work that does not touch X, so it runs off the X thread: input events keep
flowing while a PNG is being compressed. Response headers let clients map image pixels back to
screen pixels: screen_x = region_x + image_x / X-Scale.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from desktopd.app_keys import backend_service
from desktopd.backend.service import BackendService
from desktopd.screen import imaging
from desktopd.screen.models import parse_region
from httpapi.errors import invalid


def check_region(region: tuple[int, int, int, int], size: tuple[int, int]) -> None:
    x, y, w, h = region
    if x + w > size[0] or y + h > size[1]:
        raise invalid("region", f"{x},{y},{w},{h} does not fit the {size[0]}x{size[1]} screen")


@dataclass(frozen=True)
class Shot:
    """An encoded capture and the headers that map its pixels back to the screen."""

    body: bytes
    content_type: str
    headers: dict[str, str]


async def take(xs: BackendService, q: dict[str, Any]) -> Shot:
    """Capture (on the X thread) and encode (off it) as SCREENSHOT_QUERY ``q`` asks."""
    screen = await xs.screen_size()
    region = parse_region(q["region"]) if q["region"] else (0, 0, screen[0], screen[1])
    check_region(region, screen)
    region_arg = region if q["region"] else None
    headers = {"X-Screen-Width": str(screen[0]), "X-Screen-Height": str(screen[1]),
               "X-Region": ",".join(map(str, region)), "Cache-Control": "no-store"}
    scaled = imaging.output_size(region[2], region[3], q)
    if q["format"] == "raw" and (scaled.width, scaled.height) == (region[2], region[3]):
        # Straight from the capture buffer: no conversion at all.
        data, width, height = await xs.call(
            lambda desk: desk.capture_raw(region_arg, q["cursor"]), field="region")
        headers.update({"X-Scale": "1", "X-Scale-Y": "1", "X-Image-Width": str(width), "X-Image-Height": str(height),
                        **imaging.raw_headers(width, height)})
        return Shot(data, "application/octet-stream", headers)
    image = await xs.call(lambda desk: desk.capture(region_arg, q["cursor"]), field="region")
    out = await asyncio.get_running_loop().run_in_executor(None, imaging.render, image, q["format"], q["quality"], q)
    headers.update({"X-Scale": f"{out.size.scale:.6g}", "X-Scale-Y": f"{out.size.scale_y:.6g}",
                    "X-Image-Width": str(out.size.width), "X-Image-Height": str(out.size.height), **out.headers})
    return Shot(out.body, out.content_type, headers)


async def screenshot(request: web.Request, q: dict[str, Any]) -> web.Response:
    shot = await take(backend_service(request), q)
    return web.Response(body=shot.body, content_type=shot.content_type, headers=shot.headers)
