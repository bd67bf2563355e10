"""Scaling and encoding of captured images for the HTTP layer.

The fast encoders belong to the X layer (desktopd/x11/encode.py); until it provides them this
module encodes with Pillow directly (PNG at compress_level=1: several times faster than Pillow's
default level for screen content, at a slightly larger size)."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

CONTENT_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp",
                 "raw": "application/octet-stream"}
DEFAULT_QUALITY = 80


def raw_headers(width: int, height: int) -> dict[str, str]:
    """Describe format=raw bodies: rows top to bottom, 4 bytes a pixel in B, G, R, X order."""
    return {"X-Raw-Width": str(width), "X-Raw-Height": str(height),
            "X-Raw-Stride": str(width * 4), "X-Raw-Format": "BGRX"}


def scale(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    if image.size == tuple(size):
        return image
    # reducing_gap: a cheap box pre-reduction first, then bilinear: fast and free of aliasing.
    return image.resize(size, Image.Resampling.BILINEAR, reducing_gap=2.0)


def encode(image: Image.Image, fmt: str, quality: int | None) -> bytes:
    out = io.BytesIO()
    if fmt == "png":
        image.save(out, "PNG", compress_level=1)
    elif fmt == "jpeg":
        image.save(out, "JPEG", quality=quality or DEFAULT_QUALITY)
    elif fmt == "webp":
        image.save(out, "WEBP", quality=quality or DEFAULT_QUALITY, method=0)
    else:
        raise ValueError(f"unknown format {fmt!r}")
    return out.getvalue()


def scale_and_encode(image: Image.Image, size: tuple[int, int], fmt: str,
                     quality: int | None) -> tuple[bytes, str, dict[str, Any]]:
    """(body, content type, extra headers) for ``image`` scaled to ``size`` in ``fmt``."""
    image = scale(image, size)
    if fmt == "raw":
        if image.mode != "RGB":
            image = image.convert("RGB")
        return image.tobytes("raw", "BGRX"), CONTENT_TYPES["raw"], raw_headers(*image.size)
    return encode(image, fmt, quality), CONTENT_TYPES[fmt], {}
