"""A small Wayland window that records what the compositor gives it: tk_recorder.py's twin for
Sway, a real xdg_shell client over desktopd's own wire module (Debian packages no Python
Wayland binding) with libxkbcommon (ctypes) reading the compositor's keymap.

A 400x300 window (its minimum and maximum size are equal when it maps, so Sway floats it; then
it takes any size the compositor configures, as a resize or full screen asks): blue, a red
100x50 block at its top-left, green below y=100, as the Tk recorder draws. Prints one JSON object
per event on stdout, in tk_recorder.py's shapes; coordinates are the surface's plus the origin
the test read from Sway's tree and gave on stdin ("origin X Y"). Buttons are numbered as X
numbers them (1 left, 2 middle, 3 right) and a wheel click is a press and release of 4-7, as X
delivers wheels. "ready" once the first frame is committed; "text" on stdin prints what was typed.
The window's close request (xdg_toplevel.close) ends the program with status 0.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import select
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from desktopd.sway.registry import Registry  # noqa: E402 (after the path)
from desktopd.sway.wire import Args, Connection, Reader, socket_path  # noqa: E402

WIDTH, HEIGHT = 400, 300
BLUE, RED, GREEN = b"\xff\x00\x00\x00", b"\x00\x00\xff\x00", b"\x00\xff\x00\x00"   # XRGB8888 in memory
XRGB8888 = 1
# Linux input button codes -> X button numbers.
X_BUTTONS = {0x110: 1, 0x111: 3, 0x112: 2, 0x113: 8, 0x114: 9}
# (axis, direction) of a wheel click -> X button: vertical up/down, horizontal left/right.
WHEEL_BUTTONS = {(0, -1): 4, (0, 1): 5, (1, -1): 6, (1, 1): 7}


def emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


class Xkb:
    """The compositor's keymap and the modifier state, through libxkbcommon."""

    def __init__(self) -> None:
        lib = ctypes.CDLL("libxkbcommon.so.0")
        lib.xkb_context_new.restype = ctypes.c_void_p
        lib.xkb_context_new.argtypes = [ctypes.c_int]
        lib.xkb_keymap_new_from_string.restype = ctypes.c_void_p
        lib.xkb_keymap_new_from_string.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int]
        lib.xkb_state_new.restype = ctypes.c_void_p
        lib.xkb_state_new.argtypes = [ctypes.c_void_p]
        lib.xkb_state_update_mask.argtypes = [ctypes.c_void_p] + [ctypes.c_uint32] * 6
        lib.xkb_state_key_get_one_sym.restype = ctypes.c_uint32
        lib.xkb_state_key_get_one_sym.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
        lib.xkb_state_key_get_utf8.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]
        lib.xkb_keysym_get_name.argtypes = [ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t]
        self.lib = lib
        self.context = lib.xkb_context_new(0)
        self.state: int | None = None
        self.mods = 0

    def load(self, text: bytes) -> None:
        keymap = self.lib.xkb_keymap_new_from_string(self.context, text, 1, 0)
        if not keymap:
            raise RuntimeError("libxkbcommon cannot compile the compositor's keymap")
        self.state = self.lib.xkb_state_new(keymap)

    def modifiers(self, depressed: int, latched: int, locked: int, group: int) -> None:
        self.mods = depressed | latched | locked
        if self.state is not None:
            self.lib.xkb_state_update_mask(self.state, depressed, latched, locked, 0, 0, group)

    def symbol(self, keycode: int) -> tuple[str, str]:
        """The key's symbol name and the text it types now (X key codes: evdev + 8)."""
        assert self.state is not None, "a key came before the keymap"
        name = ctypes.create_string_buffer(64)
        self.lib.xkb_keysym_get_name(self.lib.xkb_state_key_get_one_sym(self.state, keycode), name, 64)
        text = ctypes.create_string_buffer(64)
        self.lib.xkb_state_key_get_utf8(self.state, keycode, text, 64)
        return name.value.decode(), text.value.decode("utf-8", "replace")


class Window:
    def __init__(self, title: str) -> None:
        self.conn = Connection(socket_path())
        registry = Registry(self.conn)
        self.compositor, _ = registry.bind("wl_compositor", 4)
        self.shm, _ = registry.bind("wl_shm", 1)
        self.wm, _ = registry.bind("xdg_wm_base", 2, self._wm_event)
        self.seat, _ = registry.bind("wl_seat", 7, self._seat_event)
        self.xkb = Xkb()
        self.origin = (0, 0)
        self.at = (0.0, 0.0)
        self.held: set[int] = set()
        self.typed: list[str] = []
        self.configured: int | None = None
        self.size = (WIDTH, HEIGHT)
        self.asked = (0, 0)        # the size of the last toplevel configure (0: ours to choose)
        self.pointer = self.keyboard = None
        self.surface = self.conn.new_proxy("wl_surface")
        self.compositor.request(0, Args().uint(self.surface.id))
        self.xdg_surface = self.conn.new_proxy("xdg_surface", self._surface_event)
        self.wm.request(2, Args().uint(self.xdg_surface.id).uint(self.surface.id))
        self.toplevel = self.conn.new_proxy("xdg_toplevel", self._toplevel_event)
        self.xdg_surface.request(1, Args().uint(self.toplevel.id))
        self.toplevel.request(2, Args().string(title))
        self.toplevel.request(3, Args().string("recorder"))
        for opcode in (7, 8):   # set_max_size, set_min_size: equal, so Sway floats the window
            self.toplevel.request(opcode, Args().sint(WIDTH).sint(HEIGHT))
        self.surface.request(6)  # commit: the compositor answers with a configure
        self.conn.wait_for(lambda: self.configured is not None, 10, "the first configure")
        self._draw(WIDTH, HEIGHT)
        self.conn.roundtrip()
        for opcode in (7, 8):   # mapped and floating: from now on any size goes
            self.toplevel.request(opcode, Args().sint(0).sint(0))
        self.surface.request(6)

    def _draw(self, width: int, height: int) -> None:
        """A new buffer of that size, attached and committed."""
        stride, size = width * 4, width * height * 4
        fd = os.memfd_create("recorder", os.MFD_CLOEXEC)
        os.ftruncate(fd, size)
        with mmap.mmap(fd, size) as pixels:
            for y in range(height):
                if y < 50:
                    row = RED * min(100, width) + BLUE * max(0, width - 100)
                else:
                    row = (BLUE if y < 100 else GREEN) * width
                pixels[y * stride:(y + 1) * stride] = row
        pool = self.conn.new_proxy("wl_shm_pool")
        self.shm.request(0, Args().uint(pool.id).fd(fd).sint(size))
        buffer = self.conn.new_proxy("wl_buffer")
        pool.request(0, Args().uint(buffer.id).sint(0).sint(width).sint(height).sint(stride).uint(XRGB8888))
        pool.request(1)         # destroy: the buffer keeps the memory
        self.surface.request(1, Args().uint(buffer.id).sint(0).sint(0))
        self.surface.request(2, Args().sint(0).sint(0).sint(width).sint(height))
        self.surface.request(6)
        os.close(fd)
        self.size = (width, height)

    # ------------------------------------------------------------------ events
    def _wm_event(self, opcode: int, reader: Reader) -> None:
        if opcode == 0:   # ping
            self.wm.request(3, Args().uint(reader.uint()))

    def _surface_event(self, opcode: int, reader: Reader) -> None:
        if opcode == 0:   # configure: acked, then drawn at the size the toplevel's configure asked
            serial = reader.uint()
            self.xdg_surface.request(4, Args().uint(serial))
            if self.configured is not None:
                wanted = (self.asked[0] or self.size[0], self.asked[1] or self.size[1])
                if wanted != self.size:
                    self._draw(*wanted)
                else:
                    self.surface.request(6)
            self.configured = serial

    def _toplevel_event(self, opcode: int, reader: Reader) -> None:
        if opcode == 0:   # configure(width, height, states)
            self.asked = (reader.sint(), reader.sint())
        elif opcode == 1:   # close
            emit(ev="closed")
            sys.exit(0)

    def _seat_event(self, opcode: int, reader: Reader) -> None:
        if opcode != 0:
            return
        capabilities = reader.uint()
        if capabilities & 1 and self.pointer is None:
            self.pointer = self.conn.new_proxy("wl_pointer", self._pointer_event)
            self.seat.request(0, Args().uint(self.pointer.id))
        if capabilities & 2 and self.keyboard is None:
            self.keyboard = self.conn.new_proxy("wl_keyboard", self._keyboard_event)
            self.seat.request(1, Args().uint(self.keyboard.id))

    def _point(self) -> dict[str, int]:
        return {"x": self.origin[0] + round(self.at[0]), "y": self.origin[1] + round(self.at[1])}

    def _pointer_event(self, opcode: int, reader: Reader) -> None:
        if opcode in (0, 2):   # enter(serial, surface, x, y), motion(time, x, y)
            reader.uint()
            if opcode == 0:
                reader.uint()
            self.at = (reader.sint() / 256, reader.sint() / 256)
            emit(ev="drag" if 1 in self.held else "motion", **self._point())
        elif opcode == 3:      # button(serial, time, button, state)
            reader.uint()
            reader.uint()
            button, pressed = X_BUTTONS.get(reader.uint(), 0), reader.uint() == 1
            (self.held.add if pressed else self.held.discard)(button)
            emit(ev="press" if pressed else "release", b=button, **self._point())
        elif opcode == 8:      # axis_discrete(axis, clicks)
            axis, clicks = reader.uint(), reader.sint()
            button = WHEEL_BUTTONS.get((axis, 1 if clicks > 0 else -1))
            for _ in range(abs(clicks)):
                emit(ev="press", b=button, **self._point())
                emit(ev="release", b=button, **self._point())

    def _keyboard_event(self, opcode: int, reader: Reader) -> None:
        if opcode == 0:        # keymap(format, fd, size)
            _format, fd, size = reader.uint(), reader.fd(), reader.uint()
            with mmap.mmap(fd, size, prot=mmap.PROT_READ) as text:
                self.xkb.load(text[:].rstrip(b"\0"))
            os.close(fd)
        elif opcode == 3:      # key(serial, time, key, state)
            reader.uint()
            reader.uint()
            keycode, down = reader.uint() + 8, reader.uint() == 1
            if down:
                name, text = self.xkb.symbol(keycode)
                emit(ev="key", keysym=name, state=self.xkb.mods)
                self._type(name, text)
        elif opcode == 4:      # modifiers(serial, depressed, latched, locked, group)
            reader.uint()
            self.xkb.modifiers(reader.uint(), reader.uint(), reader.uint(), reader.uint())

    def _type(self, name: str, text: str) -> None:
        # As a text area takes keys: Return a newline, BackSpace removes, no control characters.
        if name == "BackSpace":
            if self.typed:
                self.typed.pop()
        elif name in ("Return", "KP_Enter"):
            self.typed.append("\n")
        elif text and (text == "\t" or text.isprintable()) and not self.xkb.mods & 4:   # not with Control
            self.typed.append(text)

    # ------------------------------------------------------------------ commands
    def command(self, line: str) -> None:
        words = line.split()
        if words[:1] == ["origin"]:
            self.origin = (int(words[1]), int(words[2]))
            emit(ev="origin", x=self.origin[0], y=self.origin[1])
        elif words == ["text"]:
            self.conn.roundtrip()   # every event the compositor sent before is handled now
            emit(ev="text", text="".join(self.typed))

    def run(self) -> None:
        emit(ev="ready", app_id="recorder", pid=os.getpid())
        pending = b""
        while True:
            ready, _, _ = select.select([self.conn.fileno(), sys.stdin.fileno()], [], [])
            if self.conn.fileno() in ready:
                self.conn.dispatch(0)
            if sys.stdin.fileno() in ready:
                chunk = os.read(sys.stdin.fileno(), 4096)
                if not chunk:
                    return
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    self.command(line.decode())


if __name__ == "__main__":
    Window(sys.argv[1] if len(sys.argv) > 1 else "recorder").run()
