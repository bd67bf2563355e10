"""GET /api/v1/screenshot's query model, and the screen-pixel region other request models take."""

from __future__ import annotations

from collections.abc import Mapping

from httpapi.fields import F, Bool, Enum, Int, Model, Number, Str


def region_problem(value: str) -> str | None:
    parts = value.split(",")
    if len(parts) != 4:
        return "expected x,y,width,height"
    try:
        x, y, w, h = (int(p) for p in parts)
    except ValueError:
        return "expected four integers x,y,width,height"
    if x < 0 or y < 0 or w <= 0 or h <= 0:
        return "x and y must be >= 0, width and height > 0"
    return None


def parse_region(value: str) -> tuple[int, int, int, int]:
    x, y, w, h = (int(p) for p in value.split(","))
    return x, y, w, h


def _screenshot_check(q: Mapping[str, object]) -> tuple[str, str] | None:
    if (q["width"] is None) != (q["height"] is None):
        return ("height" if q["height"] is None else "width"), "give width and height together"
    if q["width"] is not None and (q["scale"] is not None or q["max_width"] is not None or q["max_height"] is not None):
        return "width", "give either width and height or scale/max_width/max_height, not both"
    if q["scale"] is not None and (q["max_width"] is not None or q["max_height"] is not None):
        return "scale", "give either scale or max_width/max_height, not both"
    if q["quality"] is not None and q["format"] not in ("jpeg", "webp"):
        return "quality", "only applies to format=jpeg or webp"
    return None


SCREENSHOT_QUERY = Model("ScreenshotQuery", [
    F("format", Enum(("png", "jpeg", "webp", "raw")), default="png",
      description="Image format. raw: uncompressed BGRX rows, see the X-Raw-* headers."),
    F("quality", Int(1, 100), description="JPEG/WebP quality (default 80)."),
    F("scale", Number(maximum=1.0, exclusive_minimum=0.0),
      description="Downscale factor in (0, 1]; X-Scale echoes the factor applied."),
    F("max_width", Int(1, 16384), description="Fit the image into this width (keeps aspect)."),
    F("max_height", Int(1, 16384), description="Fit the image into this height (keeps aspect)."),
    F("width", Int(1, 16384), description="With height: the image is exactly width x height pixels "
      "(the aspect may change, as a model's display size does; X-Scale and X-Scale-Y give each "
      "axis' factor)."),
    F("height", Int(1, 16384), description="With width: see width."),
    F("region", Str(min_length=1, check=region_problem, pattern=r"^\d{1,5},\d{1,5},[1-9]\d{0,4},[1-9]\d{0,4}$"),
      description="Screen-pixel rectangle x,y,width,height; must lie inside the screen."),
    F("cursor", Bool(), default=False, description="Draw the real pointer image (XFixes)."),
], check=_screenshot_check)
