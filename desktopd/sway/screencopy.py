"""Screenshots through wlroots' screencopy protocol (zwlr_screencopy_manager_v1) into a shared
memory buffer desktopd owns and reuses from one capture to the next.

The compositor says which buffer it wants (format, size, stride), we hand it a wl_buffer in our
memfd, it copies the frame there and says ``ready`` (or ``failed``)."""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass

from PIL import Image

from .registry import Registry
from .wire import Args, Connection, Proxy, Reader, WaylandError

# zwlr_screencopy_manager_v1 requests
CAPTURE_OUTPUT, CAPTURE_OUTPUT_REGION = 0, 1
# zwlr_screencopy_frame_v1 requests / events
FRAME_COPY, FRAME_DESTROY = 0, 1
EV_BUFFER, EV_FLAGS, EV_READY, EV_FAILED, EV_DAMAGE, EV_DMABUF, EV_BUFFER_DONE = range(7)
Y_INVERT = 1
# wl_shm requests; wl_shm_pool requests; wl_buffer requests
SHM_CREATE_POOL = 0
POOL_CREATE_BUFFER, POOL_DESTROY = 0, 1
BUFFER_DESTROY = 0
FRAME_TIMEOUT_S = 10.0

# wl_shm formats (little-endian words) -> Pillow's raw mode for the bytes in memory.
RAW_MODES = {0: "BGRX", 1: "BGRX", 0x34324241: "RGBX", 0x34324258: "RGBX"}


@dataclass(frozen=True)
class Layout:
    format: int
    width: int
    height: int
    stride: int


@dataclass
class Shot:
    """One captured frame: pixels as the compositor wrote them, and how to read them."""

    data: bytes
    layout: Layout
    y_invert: bool

    @property
    def raw_mode(self) -> str:
        return RAW_MODES[self.layout.format]

    def to_image(self) -> Image.Image:
        return Image.frombuffer("RGB", (self.layout.width, self.layout.height), self.data, "raw",
                                self.raw_mode, self.layout.stride, -1 if self.y_invert else 1)

    def to_bgrx(self) -> bytes:
        """4 bytes a pixel, B G R X, rows top to bottom, no padding (X11's capture_raw shape)."""
        tight = self.layout.stride == self.layout.width * 4
        if tight and self.raw_mode == "BGRX" and not self.y_invert:
            return self.data
        return self.to_image().tobytes("raw", "BGRX")


class ShmBuffer:
    """A wl_buffer over a memfd we map: allocated for one layout, reused while it stays."""

    def __init__(self, conn: Connection, shm: Proxy, layout: Layout) -> None:
        self.layout = layout
        size = layout.stride * layout.height
        self._fd = os.memfd_create("desktopd-screencopy", os.MFD_CLOEXEC)
        try:
            os.ftruncate(self._fd, size)
            self.map = mmap.mmap(self._fd, size)
            pool = conn.new_proxy("wl_shm_pool")
            shm.request(SHM_CREATE_POOL, Args().uint(pool.id).fd(self._fd).sint(size))
            self.buffer = conn.new_proxy("wl_buffer")
            pool.request(POOL_CREATE_BUFFER, Args().uint(self.buffer.id).sint(0).sint(layout.width)
                         .sint(layout.height).sint(layout.stride).uint(layout.format))
            pool.request(POOL_DESTROY)   # the buffer keeps the memory alive
            conn.forget(pool)
        except BaseException:
            os.close(self._fd)
            raise

    def close(self) -> None:
        try:
            self.buffer.request(BUFFER_DESTROY)
            self.buffer.conn.forget(self.buffer)
        except WaylandError:
            pass
        self.map.close()
        os.close(self._fd)


class FrameState:
    def __init__(self) -> None:
        self.offers: list[Layout] = []
        self.buffers_done = False
        self.y_invert = False
        self.outcome: str | None = None   # "ready" | "failed"

    def offers_complete(self, version: int) -> bool:
        if self.outcome is not None:
            return True
        # Version 3 lists every buffer kind then says buffer_done; before it, one shm offer.
        return self.buffers_done if version >= 3 else bool(self.offers)

    def event(self, opcode: int, reader: Reader) -> None:
        if opcode == EV_BUFFER:
            self.offers.append(Layout(reader.uint(), reader.uint(), reader.uint(), reader.uint()))
        elif opcode == EV_FLAGS:
            self.y_invert = bool(reader.uint() & Y_INVERT)
        elif opcode == EV_READY:
            self.outcome = "ready"
        elif opcode == EV_FAILED:
            self.outcome = "failed"
        elif opcode == EV_BUFFER_DONE:
            self.buffers_done = True


class ScreenCopier:
    def __init__(self, conn: Connection, registry: Registry, output: Proxy) -> None:
        self.conn = conn
        self.output = output
        self.shm, _ = registry.bind("wl_shm", 1)
        self.manager, self.version = registry.bind("zwlr_screencopy_manager_v1", 3)
        self._buffer: ShmBuffer | None = None

    def capture(self, region: tuple[int, int, int, int] | None, cursor: bool) -> Shot:
        state = FrameState()
        frame = self.conn.new_proxy("zwlr_screencopy_frame_v1", state.event)
        args = Args().uint(frame.id).sint(1 if cursor else 0).uint(self.output.id)
        if region is None:
            self.manager.request(CAPTURE_OUTPUT, args)
        else:
            x, y, width, height = region
            self.manager.request(CAPTURE_OUTPUT_REGION, args.sint(x).sint(y).sint(width).sint(height))
        try:
            self.conn.wait_for(lambda: state.offers_complete(self.version), FRAME_TIMEOUT_S,
                               "screencopy buffer")
            if state.outcome == "failed" or not state.offers:
                raise WaylandError("the compositor refused to copy the screen")
            layout = next((o for o in state.offers if o.format in RAW_MODES), None)
            if layout is None:
                raise WaylandError(f"no screencopy buffer format desktopd reads: {state.offers}")
            buffer = self._buffer_for(layout)
            frame.request(FRAME_COPY, Args().uint(buffer.buffer.id))
            self.conn.wait_for(lambda: state.outcome is not None, FRAME_TIMEOUT_S, "screencopy frame")
            if state.outcome != "ready":
                raise WaylandError("the compositor failed to copy the screen")
            return Shot(buffer.map[:], layout, state.y_invert)
        finally:
            frame.request(FRAME_DESTROY)
            self.conn.forget(frame)

    def _buffer_for(self, layout: Layout) -> ShmBuffer:
        if self._buffer is None or self._buffer.layout != layout:
            if self._buffer is not None:
                self._buffer.close()
            self._buffer = ShmBuffer(self.conn, self.shm, layout)
        return self._buffer

    def close(self) -> None:
        if self._buffer is not None:
            self._buffer.close()
            self._buffer = None
