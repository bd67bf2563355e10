"""Screen capture: MIT-SHM when the server shares memory with us, else a logged fallback to
XGetImage over the python-xlib connection; optional composite of the real pointer (XFixes)."""

from __future__ import annotations

import array
import ctypes
import logging
import sys
from dataclasses import dataclass

from PIL import Image
from Xlib import X

from desktopd.backend.protocol import Region, check_region

from .errors import DisplayUnavailable, X11Error
from .shm import ShmCapturer, ShmConnectionLost, ShmUnavailable

log = logging.getLogger(__name__)



@dataclass
class Frame:
    """BGRX pixels (4 bytes a pixel) of a screen rectangle whose top-left is (x, y)."""
    data: bytes | ctypes.Array  # a ctypes array is the live SHM segment: copy before keeping
    stride: int
    x: int
    y: int
    width: int
    height: int

    def to_image(self) -> Image.Image:
        # One C pass from BGRX straight into a fresh RGB image (a copy: the SHM segment is reused).
        return Image.frombuffer("RGB", (self.width, self.height), self.data, "raw", "BGRX",
                                self.stride, 1)

    def to_bytes(self) -> bytes:
        view = memoryview(self.data).cast("B")
        if self.stride == self.width * 4:
            return view.tobytes()
        return b"".join(view[row * self.stride:row * self.stride + self.width * 4].tobytes()
                        for row in range(self.height))


class Capturer:
    """Owns the capture backend for one display connection. Used from X11Desktop's one thread."""

    def __init__(self, xdisplay, display_name: str, *, allow_shm: bool = True) -> None:
        self._dpy = xdisplay
        self._root = xdisplay.screen().root
        self.width = xdisplay.screen().width_in_pixels
        self.height = xdisplay.screen().height_in_pixels
        self._shm: ShmCapturer | None = None
        self.shm_error: str | None = None
        if allow_shm:
            try:
                self._shm = ShmCapturer(display_name)
            except ShmUnavailable as exc:
                self.shm_error = str(exc)
                log.warning("MIT-SHM capture unavailable (%s); falling back to XGetImage", exc)
        else:
            self.shm_error = "disabled"
        self._xfixes = self._init_xfixes()
        self._cursor_cache: tuple[int, Image.Image] | None = None

    @property
    def backend(self) -> str:
        return "mit-shm" if self._shm is not None else "xgetimage"

    @property
    def xfixes(self) -> bool:
        return self._xfixes

    def _init_xfixes(self) -> bool:
        try:
            if not self._dpy.has_extension("XFIXES"):
                return False
            self._dpy.xfixes_query_version()  # XFixes requires this handshake before use
            return True
        except AttributeError:
            return False

    def close(self) -> None:
        if self._shm is not None:
            self._shm.close()
            self._shm = None

    def check_region(self, region: Region | None) -> Region:
        return check_region(region, self.width, self.height)

    def grab(self, region: Region | None = None) -> Frame:
        x, y, w, h = self.check_region(region)
        if self._shm is not None:
            try:
                view, stride = self._shm.grab(x, y, w, h)
                return Frame(view, stride, x, y, w, h)
            except ShmConnectionLost as exc:
                raise DisplayUnavailable(str(exc)) from None
            except ShmUnavailable as exc:
                log.warning("MIT-SHM capture failed (%s); falling back to XGetImage", exc)
                self.shm_error = str(exc)
                self._shm.close()
                self._shm = None
        reply = self._root.get_image(x, y, w, h, X.ZPixmap, 0xFFFFFFFF)
        data = reply.data
        if len(data) != w * h * 4:
            raise X11Error(f"XGetImage returned {len(data)} bytes for {w}x{h}; need a 32 bpp"
                           " TrueColor screen (Xvfb -screen 0 WxHx24)")
        return Frame(data, w * 4, x, y, w, h)

    def capture(self, region: Region | None = None, cursor: bool = False) -> Image.Image:
        frame = self.grab(region)
        image = frame.to_image()
        if cursor:
            self.draw_cursor(image, frame.x, frame.y)
        return image

    def capture_raw(self, region: Region | None = None, cursor: bool = False
                    ) -> tuple[bytes, int, int]:
        frame = self.grab(region)
        if not cursor:
            return frame.to_bytes(), frame.width, frame.height
        image = frame.to_image()
        self.draw_cursor(image, frame.x, frame.y)
        return image.tobytes("raw", "BGRX"), frame.width, frame.height

    def draw_cursor(self, image: Image.Image, origin_x: int, origin_y: int) -> bool:
        """Composite the current pointer image (as the server shows it) onto ``image``."""
        if not self._xfixes:
            return False
        reply = self._dpy.xfixes_get_cursor_image(self._root)
        cursor = self._cursor_image(reply)
        left = reply.x - reply.xhot - origin_x
        top = reply.y - reply.yhot - origin_y
        image.paste(cursor, (left, top), cursor)  # paste clips to the image's bounds
        return True

    def _cursor_image(self, reply) -> Image.Image:
        serial = reply.cursor_serial
        if self._cursor_cache is not None and self._cursor_cache[0] == serial:
            return self._cursor_cache[1]
        # XFixes gives premultiplied ARGB32 words; as little-endian bytes that is "BGRa".
        pixels = array.array("I", reply.cursor_image)  # 4-byte items on every Linux ABI
        if sys.byteorder != "little":
            pixels.byteswap()
        cursor = Image.frombuffer("RGBA", (reply.width, reply.height), pixels.tobytes(), "raw",
                                  "BGRa", 0, 1)
        self._cursor_cache = (serial, cursor)
        return cursor
