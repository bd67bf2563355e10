"""GET /api/v1/screenshot: capture on the X thread, scale and encode on the default pool.

Encoding is CPU work that does not touch X, so it runs off the X thread: input events keep
flowing while a PNG is being compressed. Response headers let clients map image pixels back to
screen pixels: screen_x = region_x + image_x / X-Scale.
"""

from __future__ import annotations

import asyncio
from typing import Any

from aiohttp import web
from PIL import Image

from desktopd import imaging
from desktopd.models import SCREENSHOT_QUERY, parse_region
from desktopd.web.errors import invalid

from .common import query, xservice


def output_size(width: int, height: int, q: dict[str, Any]) -> tuple[float, int, int]:
    """The scale factor and the output size for a width x height capture."""
    scale = q["scale"] if q["scale"] is not None else 1.0
    if q["max_width"] is not None:
        scale = min(scale, q["max_width"] / width)
    if q["max_height"] is not None:
        scale = min(scale, q["max_height"] / height)
    if scale >= 1.0:
        return 1.0, width, height
    return scale, max(1, round(width * scale)), max(1, round(height * scale))


def check_region(region: tuple[int, int, int, int], size: tuple[int, int]) -> None:
    x, y, w, h = region
    if x + w > size[0] or y + h > size[1]:
        raise invalid("region", f"{x},{y},{w},{h} does not fit the {size[0]}x{size[1]} screen")


async def screenshot(request: web.Request) -> web.Response:
    q = query(request, SCREENSHOT_QUERY)
    xs = xservice(request)
    screen = await xs.screen_size()
    region = parse_region(q["region"]) if q["region"] else (0, 0, screen[0], screen[1])
    check_region(region, screen)
    scale, out_w, out_h = output_size(region[2], region[3], q)
    region_arg = region if q["region"] else None
    loop = asyncio.get_running_loop()
    headers = {
        "X-Screen-Width": str(screen[0]), "X-Screen-Height": str(screen[1]),
        "X-Region": ",".join(map(str, region)), "X-Scale": f"{scale:.6g}",
        "X-Image-Width": str(out_w), "X-Image-Height": str(out_h),
        "Cache-Control": "no-store",
    }
    if q["format"] == "raw" and scale == 1.0:
        data, width, height = await xs.call(
            lambda desk: desk.capture_raw(region_arg, q["cursor"]), field="region")
        return web.Response(body=data, content_type="application/octet-stream",
                            headers={**headers, **imaging.raw_headers(width, height)})
    image: Image.Image = await xs.call(lambda desk: desk.capture(region_arg, q["cursor"]),
                                       field="region")
    body, content_type, extra = await loop.run_in_executor(
        None, imaging.scale_and_encode, image, (out_w, out_h), q["format"], q["quality"])
    return web.Response(body=body, content_type=content_type, headers={**headers, **extra})
