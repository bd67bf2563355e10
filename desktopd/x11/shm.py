"""MIT-SHM screen capture through ctypes on libX11/libXext, on a connection of its own.

The server copies the root window straight into a shared memory segment (no socket transfer of
8 MB per 1080p frame). The segment is created once for the full screen and reused by every frame
and every region. libX11's defaults would ``exit()`` the whole process on an I/O error (server
gone) or print-and-exit on a protocol error, so both handlers are replaced: a dead connection is
recorded and reported as ``ShmConnectionLost``; the owner drops this capturer and reconnects.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import threading

log = logging.getLogger(__name__)

ZPixmap = 2
IPC_PRIVATE = 0
IPC_CREAT = 0o1000
IPC_RMID = 0
ALL_PLANES = ctypes.c_ulong(-1).value
DISCARD_EVERY = 64  # grabs between drops of the connection's (unread) event queue


class ShmUnavailable(Exception):
    """MIT-SHM cannot be used here (remote display, no extension, no libXext...)."""


class ShmConnectionLost(Exception):
    """The capture connection's server went away."""


class _Funcs(ctypes.Structure):
    _fields_ = [(name, ctypes.c_void_p) for name in
                ("create_image", "destroy_image", "get_pixel", "put_pixel", "sub_image", "add_pixel")]


class XImage(ctypes.Structure):
    _fields_ = [
        ("width", ctypes.c_int), ("height", ctypes.c_int), ("xoffset", ctypes.c_int),
        ("format", ctypes.c_int), ("data", ctypes.c_void_p), ("byte_order", ctypes.c_int),
        ("bitmap_unit", ctypes.c_int), ("bitmap_bit_order", ctypes.c_int),
        ("bitmap_pad", ctypes.c_int), ("depth", ctypes.c_int), ("bytes_per_line", ctypes.c_int),
        ("bits_per_pixel", ctypes.c_int), ("red_mask", ctypes.c_ulong),
        ("green_mask", ctypes.c_ulong), ("blue_mask", ctypes.c_ulong),
        ("obdata", ctypes.c_void_p), ("f", _Funcs),
    ]


class XShmSegmentInfo(ctypes.Structure):
    _fields_ = [("shmseg", ctypes.c_ulong), ("shmid", ctypes.c_int),
                ("shmaddr", ctypes.c_void_p), ("readOnly", ctypes.c_int)]


class _XErrorEvent(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("display", ctypes.c_void_p),
                ("resourceid", ctypes.c_ulong), ("serial", ctypes.c_ulong),
                ("error_code", ctypes.c_ubyte), ("request_code", ctypes.c_ubyte),
                ("minor_code", ctypes.c_ubyte)]


_IOErrorHandler = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)
_IOErrorExitHandler = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)
_ErrorHandler = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_XErrorEvent))


def _load(soname: str, short: str) -> ctypes.CDLL:
    # Runtime images have only the versioned soname (the unversioned link is in -dev packages).
    for candidate in (soname, ctypes.util.find_library(short)):
        if candidate:
            try:
                return ctypes.CDLL(candidate)
            except OSError:
                continue
    raise ShmUnavailable(f"cannot load {soname}")


class _Libs:
    """libX11/libXext/libc with prototypes, loaded once, lazily (never at import)."""

    _instance: _Libs | None = None
    _lock = threading.Lock()

    def __init__(self) -> None:
        x11 = self.x11 = _load("libX11.so.6", "X11")
        xext = self.xext = _load("libXext.so.6", "Xext")
        libc = self.libc = ctypes.CDLL(None, use_errno=True)
        vp, c_int, c_ulong = ctypes.c_void_p, ctypes.c_int, ctypes.c_ulong
        x11.XOpenDisplay.restype, x11.XOpenDisplay.argtypes = vp, [ctypes.c_char_p]
        x11.XCloseDisplay.argtypes = [vp]
        x11.XDefaultScreen.argtypes = [vp]
        x11.XRootWindow.restype, x11.XRootWindow.argtypes = c_ulong, [vp, c_int]
        x11.XDefaultVisual.restype, x11.XDefaultVisual.argtypes = vp, [vp, c_int]
        x11.XDefaultDepth.argtypes = [vp, c_int]
        x11.XDisplayWidth.argtypes = [vp, c_int]
        x11.XDisplayHeight.argtypes = [vp, c_int]
        x11.XSync.argtypes = [vp, c_int]
        x11.XFree.argtypes = [vp]
        x11.XSetErrorHandler.restype, x11.XSetErrorHandler.argtypes = vp, [_ErrorHandler]
        x11.XSetIOErrorHandler.restype, x11.XSetIOErrorHandler.argtypes = vp, [_IOErrorHandler]
        self.exit_handler_supported = hasattr(x11, "XSetIOErrorExitHandler")
        if self.exit_handler_supported:
            x11.XSetIOErrorExitHandler.restype = None
            x11.XSetIOErrorExitHandler.argtypes = [vp, _IOErrorExitHandler, vp]
        xext.XShmQueryExtension.argtypes = [vp]
        xext.XShmCreateImage.restype = ctypes.POINTER(XImage)
        xext.XShmCreateImage.argtypes = [vp, vp, ctypes.c_uint, c_int, vp,
                                         ctypes.POINTER(XShmSegmentInfo), ctypes.c_uint,
                                         ctypes.c_uint]
        xext.XShmAttach.argtypes = [vp, ctypes.POINTER(XShmSegmentInfo)]
        xext.XShmDetach.argtypes = [vp, ctypes.POINTER(XShmSegmentInfo)]
        xext.XShmGetImage.argtypes = [vp, c_ulong, ctypes.POINTER(XImage), c_int, c_int, c_ulong]
        libc.shmget.restype, libc.shmget.argtypes = c_int, [c_int, ctypes.c_size_t, c_int]
        libc.shmat.restype, libc.shmat.argtypes = vp, [c_int, vp, c_int]
        libc.shmdt.argtypes = [vp]
        libc.shmctl.argtypes = [c_int, c_int, vp]
        # Process-wide libX11 handlers: record, never exit (libX11 only calls them for the
        # connections opened through ctypes here; python-xlib speaks the protocol itself).
        self.dead: set[int] = set()
        self.errors: dict[int, int] = {}
        self._io_handler = _IOErrorHandler(self._on_io_error)
        self._exit_handler = _IOErrorExitHandler(self._on_io_exit)
        self._error_handler = _ErrorHandler(self._on_error)
        x11.XSetIOErrorHandler(self._io_handler)
        x11.XSetErrorHandler(self._error_handler)

    @classmethod
    def get(cls) -> _Libs:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def _on_io_error(self, dpy: int) -> int:
        self.dead.add(dpy)
        return 0

    def _on_io_exit(self, dpy: int, _data: int) -> None:
        # Returning (instead of exit()) leaves the Display marked dead; calls on it then fail fast.
        self.dead.add(dpy)

    def _on_error(self, dpy: int, event: ctypes.POINTER(_XErrorEvent)) -> int:
        self.errors[dpy] = event.contents.error_code
        return 0


class ShmCapturer:
    """Root-window grabs into one reused shared memory segment. Not thread-safe: one owner."""

    def __init__(self, display_name: str) -> None:
        libs = self.libs = _Libs.get()
        if not libs.exit_handler_supported:
            # Without it libX11 would exit() the daemon when the server dies.
            raise ShmUnavailable("libX11 lacks XSetIOErrorExitHandler (needs libX11 >= 1.7)")
        self._dpy = libs.x11.XOpenDisplay(display_name.encode())
        if not self._dpy:
            raise ShmUnavailable(f"XOpenDisplay({display_name}) failed")
        self._segment: XShmSegmentInfo | None = None
        self._grabs = 0
        self._images: dict[tuple[int, int], ctypes.POINTER(XImage)] = {}
        try:
            libs.x11.XSetIOErrorExitHandler(self._dpy, libs._exit_handler, None)
            if not libs.xext.XShmQueryExtension(self._dpy):
                raise ShmUnavailable("the server has no MIT-SHM extension")
            screen = libs.x11.XDefaultScreen(self._dpy)
            self._root = libs.x11.XRootWindow(self._dpy, screen)
            self._visual = libs.x11.XDefaultVisual(self._dpy, screen)
            self.depth = libs.x11.XDefaultDepth(self._dpy, screen)
            self.width = libs.x11.XDisplayWidth(self._dpy, screen)
            self.height = libs.x11.XDisplayHeight(self._dpy, screen)
            self._attach()
        except BaseException:
            self.close()
            raise

    def _image(self, width: int, height: int) -> ctypes.POINTER(XImage):
        image = self._images.get((width, height))
        if image is None:
            if len(self._images) > 8:  # region sizes vary; keep only a few XImage headers
                self._free_images()
            image = self.libs.xext.XShmCreateImage(self._dpy, self._visual, self.depth, ZPixmap,
                                                   None, ctypes.byref(self._segment), width, height)
            if not image:
                raise ShmUnavailable("XShmCreateImage failed")
            if image.contents.bits_per_pixel != 32:
                self.libs.x11.XFree(image)
                raise ShmUnavailable(f"{image.contents.bits_per_pixel} bpp visual; need 32")
            image.contents.data = self._segment.shmaddr
            self._images[(width, height)] = image
        return image

    def _attach(self) -> None:
        libs, segment = self.libs, XShmSegmentInfo()
        probe = libs.xext.XShmCreateImage(self._dpy, self._visual, self.depth, ZPixmap, None,
                                          ctypes.byref(segment), self.width, self.height)
        if not probe:
            raise ShmUnavailable("XShmCreateImage failed")
        size = probe.contents.bytes_per_line * probe.contents.height
        libs.x11.XFree(probe)
        segment.shmid = libs.libc.shmget(IPC_PRIVATE, size, IPC_CREAT | 0o600)
        if segment.shmid < 0:
            raise ShmUnavailable(f"shmget failed: errno {ctypes.get_errno()}")
        addr = libs.libc.shmat(segment.shmid, None, 0)
        if addr in (None, ctypes.c_void_p(-1).value):
            libs.libc.shmctl(segment.shmid, IPC_RMID, None)
            raise ShmUnavailable(f"shmat failed: errno {ctypes.get_errno()}")
        segment.shmaddr, segment.readOnly = addr, 0
        self.libs.errors.pop(self._dpy, None)
        attached = libs.xext.XShmAttach(self._dpy, ctypes.byref(segment))
        libs.x11.XSync(self._dpy, 0)
        # Marked for removal now: the kernel frees it once both we and the server detach,
        # even if this process is killed.
        libs.libc.shmctl(segment.shmid, IPC_RMID, None)
        if not attached or self.libs.errors.pop(self._dpy, None) is not None:
            libs.libc.shmdt(addr)
            # Typical for a server on another host / in another IPC namespace.
            raise ShmUnavailable("the server could not attach the shared memory segment")
        self._segment = segment
        self.size = size

    def grab(self, x: int, y: int, width: int, height: int) -> tuple[ctypes.Array, int]:
        """Capture a rectangle; returns (the BGRX pixels in the shared segment, stride).

        The view is only valid until the next grab: copy what you keep."""
        if self._dpy is None:
            raise ShmConnectionLost("capturer closed")
        image = self._image(width, height)
        ok = self.libs.xext.XShmGetImage(self._dpy, self._root, image, x, y, ALL_PLANES)
        if self._dpy in self.libs.dead:
            raise ShmConnectionLost("X server connection lost during capture")
        if not ok:
            code = self.libs.errors.pop(self._dpy, None)
            raise ShmUnavailable(f"XShmGetImage failed (X error {code})")
        self._grabs += 1
        if self._grabs % DISCARD_EVERY == 0:
            # Nobody reads events on this connection, yet the server sends every client
            # MappingNotify (our own scratch keycodes cause them): let libX11 drop its queue.
            self.libs.x11.XSync(self._dpy, 1)
        stride = image.contents.bytes_per_line
        buffer = (ctypes.c_char * (stride * height)).from_address(self._segment.shmaddr)
        # The ctypes array itself, not a memoryview: Pillow 9.4 (bookworm) parses decoder input
        # with "y#", which refuses any buffer that has a release hook (memoryview does).
        return buffer, stride

    @property
    def alive(self) -> bool:
        return self._dpy is not None and self._dpy not in self.libs.dead

    def _free_images(self) -> None:
        for image in self._images.values():
            self.libs.x11.XFree(image)  # data is the shared segment: never XDestroyImage
        self._images.clear()

    def close(self) -> None:
        dpy, self._dpy = self._dpy, None
        if dpy is None:
            return
        libs = self.libs
        dead = dpy in libs.dead
        self._free_images()
        if self._segment is not None:
            if not dead:
                libs.xext.XShmDetach(dpy, ctypes.byref(self._segment))
            libs.libc.shmdt(self._segment.shmaddr)
            self._segment = None
        # XCloseDisplay on a dead connection only hits our non-exiting I/O handlers; it still
        # frees the Display and closes the socket.
        libs.x11.XCloseDisplay(dpy)
        libs.dead.discard(dpy)
        libs.errors.pop(dpy, None)
