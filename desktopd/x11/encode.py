"""Image encoders for screenshots (Pillow, plus zlib-ng when installed; no X needed).

PNG is the expensive one. Pillow's encoder spends much of its time in its adaptive row filter (it
tries all five filters on every row) before zlib even starts. ``fast_png`` writes the PNG itself
with one fixed filter, "Up" (each byte minus the byte above), computed in one C pass by
ImageChops.subtract_modulo against the image shifted down a row: flat UI, text and gradients
become runs of zeros (unfiltered, a full-screen gradient deflates ten times larger). The rows are
deflated at level 1 by zlib-ng (the `png` extra; Python's zlib when it is missing), a slice at a
time (no copy of the whole image). The deflate work can be split into row bands on threads
(zlib releases the GIL), joined pigz-style - each band a raw deflate stream ended with a full
flush (byte aligned, no back-references across the seam), so the concatenation plus one zlib
header and the Adler-32 of all rows (combined from the bands') is one valid zlib stream.
Figures: docs/benchmarks.md (benchmarks/bench_step_speed.py, bench_desktopd.py).
"""

from __future__ import annotations

import io
import math
import os
import struct
import threading
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import ModuleType

from PIL import Image, ImageChops

FORMATS = ("png", "jpeg", "webp", "raw")
MEDIA_TYPES = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp",
               "raw": "application/octet-stream"}
DEFAULT_QUALITY = {"jpeg": 80, "webp": 80}


def _deflater() -> ModuleType:
    """zlib-ng's binding (at level 1 several times quicker than zlib's level 1, the output a
    little larger; its levels 2 and up make output that clients' zlib inflates at half the
    speed), else zlib."""
    try:
        from zlib_ng import zlib_ng
    except ImportError:
        return zlib
    return zlib_ng


DEFLATE = _deflater()
PNG_LEVEL = 1
# PNG bands below this many bytes, and downscales below this many output pixels, are not worth
# a thread hop.
MIN_BAND_BYTES = 512 * 1024
MIN_BAND_PIXELS = 256 * 1024

_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_band: ThreadPoolExecutor | None = None


def _band_pool() -> ThreadPoolExecutor | None:
    """One thread for the other half of a downscale, where there is a second core."""
    global _band
    if (os.cpu_count() or 1) < 2:
        return None
    with _pool_lock:
        if _band is None:
            _band = ThreadPoolExecutor(max_workers=1, thread_name_prefix="desktopd-scale")
        return _band


def _deflate_pool() -> ThreadPoolExecutor | None:
    """Threads for PNG bands: only where cores are plentiful (measured: on 2 shared cores the
    hop costs as much as it saves). DESKTOPD_PNG_THREADS overrides."""
    global _pool
    configured = os.environ.get("DESKTOPD_PNG_THREADS")
    cores = os.cpu_count() or 1
    workers = int(configured) if configured and configured.isdigit() else min(4, cores // 2)
    if workers < 2:
        return None
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="desktopd-deflate")
        return _pool


@dataclass(frozen=True)
class Encoded:
    data: bytes
    format: str
    media_type: str
    width: int            # of the encoded image
    height: int
    source_width: int     # of the captured region, in screen pixels
    source_height: int
    scale: float          # encoded / source (1.0 = screen pixels); divide coordinates by it
    scale_y: float        # the same for y: differs from scale only for an exact width x height

    @property
    def size(self) -> Size:
        return Size(self.width, self.height, self.scale, self.scale_y)

    @property
    def headers(self) -> dict[str, str]:
        return {"Content-Type": self.media_type, "X-Image-Width": str(self.width),
                "X-Image-Height": str(self.height), "X-Screen-Width": str(self.source_width),
                "X-Screen-Height": str(self.source_height), "X-Scale": f"{self.scale:.6g}",
                "X-Scale-Y": f"{self.scale_y:.6g}"}


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(
        ">I", zlib.crc32(body, zlib.crc32(kind)) & 0xFFFFFFFF)


# Rows are read and deflated a slice at a time: no copy of the whole image is made (large
# buffers freed on an executor's thread stay in that thread's malloc arena, one per thread).
SLICE_ROWS = 64
_ADLER_BASE = 65521


def _rows(image: Image.Image, top: int, bottom: int, stride: int) -> bytes:
    """Rows top..bottom Up-filtered, each after its filter type byte (2: Up). The row above the
    first is read past the top edge, which crop pads with zeros, as PNG defines it."""
    rows = image.crop((0, top, image.width, bottom))
    above = image.crop((0, top - 1, image.width, bottom - 1))
    pixels = ImageChops.subtract_modulo(rows, above).tobytes()
    return b"".join([b"\x02" + pixels[offset:offset + stride] for offset in range(0, len(pixels), stride)])


def _deflate_rows(image: Image.Image, top: int, bottom: int, last: bool) -> tuple[bytes, int, int]:
    """Rows top..bottom as a raw deflate stream (ended by a full flush unless ``last``), their
    Adler-32 and their length."""
    stride = image.width * len(image.getbands())
    compressor = DEFLATE.compressobj(PNG_LEVEL, zlib.DEFLATED, -15)
    parts, adler, length = [], 1, 0
    for y in range(top, bottom, SLICE_ROWS):
        rows = _rows(image, y, min(bottom, y + SLICE_ROWS), stride)
        adler, length = DEFLATE.adler32(rows, adler), length + len(rows)
        parts.append(compressor.compress(rows))
    parts.append(compressor.flush(zlib.Z_FINISH if last else zlib.Z_FULL_FLUSH))
    return b"".join(parts), adler, length


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from each one's (zlib has this
    in C, Python's module does not expose it). Adler-32 is (a, b) with a = 1 + the bytes' sum
    and b = the sum of every prefix's a, both mod 65521: appending n bytes whose own sums are
    (a2, b2) gives a = a1 + a2 - 1 and b = b1 + b2 + n * (a1 - 1)."""
    a1, b1 = first & 0xFFFF, first >> 16
    a2, b2 = second & 0xFFFF, second >> 16
    a = (a1 + a2 - 1) % _ADLER_BASE
    b = (b1 + b2 + second_length * (a1 - 1)) % _ADLER_BASE
    return (b << 16) | a


def fast_png(image: Image.Image, *, threads: int | None = None) -> bytes:
    """A valid PNG of an RGB/RGBA/L image: "Up" row filter, deflated (bands on threads)."""
    if image.mode not in ("RGB", "RGBA", "L"):
        image = image.convert("RGB")
    width, height = image.size
    color_type = {"L": 0, "RGB": 2, "RGBA": 6}[image.mode]
    row_bytes = width * len(image.getbands()) + 1
    pool = _deflate_pool() if threads is None or threads > 1 else None
    bands = 1 if pool is None else max(1, min(threads or pool._max_workers, row_bytes * height // MIN_BAND_BYTES))
    if bands == 1:
        parts = [_deflate_rows(image, 0, height, True)]
    else:
        cuts = [min(height, i * -(-height // bands)) for i in range(bands + 1)]
        parts = list(pool.map(lambda i: _deflate_rows(image, cuts[i], cuts[i + 1], i == bands - 1), range(bands)))
    adler = parts[0][1]
    for _stream, band_adler, length in parts[1:]:
        adler = adler32_combine(adler, band_adler, length)
    # 0x78 0x01: deflate, 32K window, "fastest" level hint; check bits make it % 31 == 0.
    body = b"\x78\x01" + b"".join(stream for stream, _adler, _length in parts) + struct.pack(">I", adler)
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", body)
            + _chunk(b"IEND", b""))


@dataclass(frozen=True)
class Size:
    """The image returned for a capture: its pixels, and each axis' factor (image / screen)."""

    width: int
    height: int
    scale: float
    scale_y: float


def target_size(width: int, height: int, *, scale: float | None = None,
                max_width: int | None = None, max_height: int | None = None,
                exact: tuple[int, int] | None = None) -> Size:
    """The output size: ``exact`` (the aspect may change, each axis its own factor), or
    ``scale``/``max_*`` (one factor for both axes; never upscales)."""
    if exact is not None:
        out_w, out_h = exact
        return Size(out_w, out_h, out_w / width, out_h / height)
    factor = 1.0
    if scale is not None:
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= 1:
            raise ValueError(f"scale: must be a number in (0, 1], got {scale!r}")
        factor = float(scale)
    for name, limit, size in (("max_width", max_width, width), ("max_height", max_height, height)):
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
                raise ValueError(f"{name}: must be a positive integer, got {limit!r}")
            factor = min(factor, limit / size)
    out_w, out_h = max(1, round(width * factor)), max(1, round(height * factor))
    uniform = out_w / width if factor != 1.0 else 1.0
    return Size(out_w, out_h, uniform, uniform)


def resized(image: Image.Image, width: int, height: int) -> Image.Image:
    """``image`` at width x height (the aspect may change): the cheapest filter that keeps text
    readable. A downscale is a box average (every source pixel counts, no aliasing on text; far
    cheaper than LANCZOS: docs/benchmarks.md); an enlargement, bicubic."""
    src_w, src_h = image.size
    if (src_w, src_h) == (width, height):
        return image
    if src_w % width == 0 and src_h % height == 0 and src_w // width == src_h // height:
        return image.reduce(src_w // width)  # integer factor: a plain block average, cheap
    if width <= src_w and height <= src_h:
        return _box_in_bands(image, width, height)
    return image.resize((width, height), Image.Resampling.BICUBIC)


def _box_in_bands(image: Image.Image, width: int, height: int) -> Image.Image:
    """A box-average downscale, its top and bottom halves at once on two threads (Pillow lets
    go of the GIL while it resamples) when the image is large and a seam exists where an output
    row ends exactly on a source row: each half then reads only its own source rows. Pillow's
    box takes a source row whole or not at all, and a row right on a sampling boundary may fall
    to the other side in a half than in one pass (rounding); for the usual screen and model
    sizes the pixels are the same (tests/desktopd_x11/test_units.py)."""
    seam = _seam(image.height, height)
    pool = _band_pool()
    if pool is None or seam is None or width * height < MIN_BAND_PIXELS:
        return image.resize((width, height), Image.Resampling.BOX)
    cut = seam * image.height // height
    top = pool.submit(image.resize, (width, seam), Image.Resampling.BOX, (0, 0, image.width, cut))
    bottom = image.resize((width, height - seam), Image.Resampling.BOX, (0, cut, image.width, image.height))
    out = Image.new(image.mode, (width, height))
    out.paste(top.result(), (0, 0))
    out.paste(bottom, (0, seam))
    return out


def _seam(source_rows: int, rows: int) -> int | None:
    """The output row nearest the middle at which a source row boundary falls (None: none in
    the middle half)."""
    period = rows // math.gcd(source_rows, rows)
    seam = round(rows / 2 / period) * period
    return seam if rows // 4 <= seam <= rows - rows // 4 and 0 < seam < rows else None


def encode(image: Image.Image, fmt: str = "png", *, quality: int | None = None,
           scale: float | None = None, max_width: int | None = None,
           max_height: int | None = None, exact: tuple[int, int] | None = None) -> Encoded:
    fmt = (fmt or "png").lower()
    if fmt == "jpg":
        fmt = "jpeg"
    if fmt not in FORMATS:
        raise ValueError(f"format: must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if quality is not None:
        if fmt not in DEFAULT_QUALITY:
            raise ValueError(f"quality: only applies to jpeg and webp, not {fmt}")
        if isinstance(quality, bool) or not isinstance(quality, int) or not 1 <= quality <= 100:
            raise ValueError(f"quality: must be an integer in 1..100, got {quality!r}")
    src_w, src_h = image.size
    size = target_size(src_w, src_h, scale=scale, max_width=max_width, max_height=max_height, exact=exact)
    out_w, out_h = size.width, size.height
    if (out_w, out_h) != (src_w, src_h):
        image = resized(image, out_w, out_h)
    if fmt == "png":
        data = fast_png(image)
    elif fmt == "raw":
        data = image.convert("RGB").tobytes()
    else:
        buffer = io.BytesIO()
        q = quality if quality is not None else DEFAULT_QUALITY[fmt]
        if fmt == "jpeg":
            image.convert("RGB").save(buffer, "JPEG", quality=q)
        else:
            image.save(buffer, "WEBP", quality=q, method=0)  # method 0: fastest
        data = buffer.getvalue()
    return Encoded(data, fmt, MEDIA_TYPES[fmt], out_w, out_h, src_w, src_h, size.scale, size.scale_y)


class FrameEncoder:
    """``encode`` that skips the work when the screen did not change: the last frame's pixels
    are kept and compared (a memcmp of a few MB, far cheaper than encoding)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: tuple[tuple, bytes, Encoded] | None = None
        self.hits = 0

    def encode(self, image: Image.Image, fmt: str = "png", **options) -> Encoded:
        key = (image.mode, image.size, (fmt or "png").lower(), tuple(sorted(options.items())))
        pixels = image.tobytes()
        with self._lock:
            last = self._last
            if last is not None and last[0] == key and last[1] == pixels:
                self.hits += 1
                return last[2]
        result = encode(image, fmt, **options)
        with self._lock:
            self._last = (key, pixels, result)
        return result
