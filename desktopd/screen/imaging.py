"""From a captured image to a response body: the X layer's encoders (desktopd/x11/encode.py:
fast PNG, JPEG, WebP, downscaling) plus the raw layout this API documents (BGRX rows)."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image

from desktopd.x11 import encode as x11_encode


@dataclass(frozen=True)
class Rendered:
    body: bytes
    content_type: str
    width: int      # of the returned image
    height: int
    scale: float    # returned / captured pixels; screen_x = region_x + image_x / scale
    headers: dict[str, str]


def raw_headers(width: int, height: int) -> dict[str, str]:
    """Describe format=raw bodies: rows top to bottom, 4 bytes a pixel in B, G, R, X order."""
    return {"X-Raw-Width": str(width), "X-Raw-Height": str(height),
            "X-Raw-Stride": str(width * 4), "X-Raw-Format": "BGRX"}


def output_size(width: int, height: int, scale: float | None, max_width: int | None,
                max_height: int | None) -> tuple[int, int, float]:
    """(width, height, factor) of the image returned for a width x height capture; never upscales."""
    return x11_encode.target_size(width, height, scale=scale, max_width=max_width,
                                  max_height=max_height)


def render(image: Image.Image, fmt: str, quality: int | None, scale: float | None,
           max_width: int | None, max_height: int | None) -> Rendered:
    """CPU work only (no X): call it off the event loop and off the X thread."""
    if fmt == "raw":
        out_w, out_h, factor = output_size(*image.size, scale, max_width, max_height)
        if (out_w, out_h) != image.size:
            image = image.resize((out_w, out_h), Image.Resampling.BOX)
        if image.mode != "RGB":
            image = image.convert("RGB")
        return Rendered(image.tobytes("raw", "BGRX"), x11_encode.MEDIA_TYPES["raw"], out_w, out_h,
                        factor, raw_headers(out_w, out_h))
    encoded = x11_encode.encode(image, fmt, quality=quality, scale=scale, max_width=max_width,
                                max_height=max_height)
    return Rendered(encoded.data, encoded.media_type, encoded.width, encoded.height, encoded.scale, {})
