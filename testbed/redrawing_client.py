"""A real Wayland client for the settle tests: one xdg_shell window that, with ``--redraw``,
draws a new frame every time the compositor asks for one (wl_surface.frame), the way an
animation does; without it, draws once and stays still. Run as
``python -m testbed.redrawing_client [--redraw] APP_ID`` with WAYLAND_DISPLAY and
XDG_RUNTIME_DIR set; it runs until killed or the compositor closes it."""

from __future__ import annotations

import argparse
import mmap
import os

from desktopd.sway.registry import Registry
from desktopd.sway.wire import Args, Connection, Proxy, Reader, socket_path

# wl_compositor, wl_surface, wl_shm(_pool), xdg_wm_base, xdg_surface, xdg_toplevel requests
CREATE_SURFACE = 0
SURFACE_ATTACH, SURFACE_DAMAGE, SURFACE_FRAME, SURFACE_COMMIT = 1, 2, 3, 6
SHM_CREATE_POOL, POOL_CREATE_BUFFER = 0, 0
WM_GET_XDG_SURFACE, WM_PONG = 2, 3
XDG_GET_TOPLEVEL, XDG_ACK_CONFIGURE = 1, 4
TOPLEVEL_SET_APP_ID = 3
XRGB8888 = 1
SQUARE = 64     # the part of the window each frame repaints


class Window:
    def __init__(self, conn: Connection, app_id: str, redraw: bool) -> None:
        self.conn, self.redraw = conn, redraw
        registry = Registry(conn)
        compositor, _ = registry.bind("wl_compositor", 4)
        self.shm, _ = registry.bind("wl_shm", 1)
        self.wm, _ = registry.bind("xdg_wm_base", 1, self._wm_event)
        self.surface = conn.new_proxy("wl_surface")
        compositor.request(CREATE_SURFACE, Args().uint(self.surface.id))
        xdg_surface = conn.new_proxy("xdg_surface", self._xdg_surface_event)
        self.wm.request(WM_GET_XDG_SURFACE, Args().uint(xdg_surface.id).uint(self.surface.id))
        self.xdg_surface = xdg_surface
        toplevel = conn.new_proxy("xdg_toplevel", self._toplevel_event)
        xdg_surface.request(XDG_GET_TOPLEVEL, Args().uint(toplevel.id))
        toplevel.request(TOPLEVEL_SET_APP_ID, Args().string(app_id))
        self.surface.request(SURFACE_COMMIT)   # the first configure answers this empty commit
        self.size = (320, 240)
        self.buffer: Proxy | None = None
        self.pixels: mmap.mmap | None = None
        self.frames = 0

    def _wm_event(self, opcode: int, reader: Reader) -> None:
        if opcode == 0:   # ping(serial): a client that does not answer is "not responding"
            self.wm.request(WM_PONG, Args().uint(reader.uint()))

    def _toplevel_event(self, opcode: int, reader: Reader) -> None:
        if opcode == 0:   # configure(width, height, states): 0 leaves the size to us
            width, height = reader.sint(), reader.sint()
            if width > 0 and height > 0:
                self.size = (width, height)

    def _xdg_surface_event(self, opcode: int, reader: Reader) -> None:
        if opcode == 0:   # configure(serial): the toplevel's configure came just before
            self.xdg_surface.request(XDG_ACK_CONFIGURE, Args().uint(reader.uint()))
            self._allocate()
            self._draw()

    def _allocate(self) -> None:
        width, height = self.size
        size = width * 4 * height
        fd = os.memfd_create("redrawing-client", os.MFD_CLOEXEC)
        os.ftruncate(fd, size)
        self.pixels = mmap.mmap(fd, size)
        self.pixels[:] = b"\x40\x40\x40\xff" * (width * height)
        pool = self.conn.new_proxy("wl_shm_pool")
        self.shm.request(SHM_CREATE_POOL, Args().uint(pool.id).fd(fd).sint(size))
        self.buffer = self.conn.new_proxy("wl_buffer")
        pool.request(POOL_CREATE_BUFFER, Args().uint(self.buffer.id).sint(0).sint(width).sint(height)
                     .sint(width * 4).uint(XRGB8888))
        os.close(fd)

    def _draw(self, *_event: object) -> None:
        """Paint the square a new shade, commit it, and (redrawing) ask for the next frame."""
        assert self.buffer is not None and self.pixels is not None
        self.frames += 1
        width = self.size[0]
        shade = bytes([self.frames * 7 % 256, 0x80, 0xC0, 0xFF]) * SQUARE
        for row in range(SQUARE):
            start = row * width * 4
            self.pixels[start:start + SQUARE * 4] = shade
        self.surface.request(SURFACE_ATTACH, Args().uint(self.buffer.id).sint(0).sint(0))
        self.surface.request(SURFACE_DAMAGE, Args().sint(0).sint(0).sint(SQUARE).sint(SQUARE))
        if self.redraw:
            callback = self.conn.new_proxy("wl_callback", self._draw)
            self.surface.request(SURFACE_FRAME, Args().uint(callback.id))
        self.surface.request(SURFACE_COMMIT)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("app_id")
    parser.add_argument("--redraw", action="store_true", help="draw a new frame whenever asked")
    args = parser.parse_args()
    conn = Connection(socket_path())
    Window(conn, args.app_id, args.redraw)
    while True:
        conn.dispatch(None)


if __name__ == "__main__":
    main()
