"""From a captured image to a response body: the X layer's encoders (desktopd/x11/encode.py:
fast PNG, JPEG, WebP, downscaling) plus the raw layout this API documents (BGRX rows)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from PIL import Image

from desktopd.x11 import encode as x11_encode


@dataclass(frozen=True)
class Rendered:
    body: bytes
    content_type: str
    size: x11_encode.Size   # of the returned image; screen_x = region_x + image_x / size.scale
    headers: dict[str, str]


def raw_headers(width: int, height: int) -> dict[str, str]:
    """Describe format=raw bodies: rows top to bottom, 4 bytes a pixel in B, G, R, X order."""
    return {"X-Raw-Width": str(width), "X-Raw-Height": str(height),
            "X-Raw-Stride": str(width * 4), "X-Raw-Format": "BGRX"}


def output_size(width: int, height: int, q: Mapping[str, object]) -> x11_encode.Size:
    """The image returned for a width x height capture, as SCREENSHOT_QUERY ``q`` asks (an empty
    mapping: as captured)."""
    return x11_encode.target_size(width, height, scale=_number(q.get("scale")), max_width=_int(q.get("max_width")),
                                  max_height=_int(q.get("max_height")), exact=exact_size(q))


def exact_size(q: Mapping[str, object]) -> tuple[int, int] | None:
    width, height = _int(q.get("width")), _int(q.get("height"))
    return (width, height) if width is not None and height is not None else None


def render(image: Image.Image, fmt: str, quality: int | None, q: Mapping[str, object]) -> Rendered:
    """CPU work only (no X): call it off the event loop and off the X thread."""
    if fmt == "raw":
        size = output_size(*image.size, q)
        if (size.width, size.height) != image.size:
            image = x11_encode.resized(image, size.width, size.height)
        if image.mode != "RGB":
            image = image.convert("RGB")
        return Rendered(image.tobytes("raw", "BGRX"), x11_encode.MEDIA_TYPES["raw"], size,
                        raw_headers(size.width, size.height))
    encoded = x11_encode.encode(image, fmt, quality=quality, scale=_number(q.get("scale")),
                                max_width=_int(q.get("max_width")), max_height=_int(q.get("max_height")),
                                exact=exact_size(q))
    return Rendered(encoded.data, encoded.media_type, encoded.size, {})


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
