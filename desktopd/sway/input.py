"""Pointer and keyboard input through wlroots' virtual-pointer and virtual-keyboard protocols.

Both devices live on desktopd's one Wayland connection; every call ends with a roundtrip, so
when it returns the compositor has handled the events (X11's calls end with a sync likewise)."""

from __future__ import annotations

import os
import time

from .keymap import MODIFIERS, Keymap
from .registry import Registry
from .wire import Args, Connection, fixed

# zwlr_virtual_pointer_manager_v1 / zwlr_virtual_pointer_v1 requests
CREATE_VIRTUAL_POINTER = 0
MOTION_ABSOLUTE, BUTTON, AXIS, FRAME, AXIS_SOURCE, AXIS_STOP, AXIS_DISCRETE, POINTER_DESTROY = 1, 2, 3, 4, 5, 6, 7, 8
# zwp_virtual_keyboard_manager_v1 / zwp_virtual_keyboard_v1 requests
CREATE_VIRTUAL_KEYBOARD = 0
KEYMAP, KEY, MODIFIERS_REQUEST, KEYBOARD_DESTROY = 0, 1, 2, 3
KEYMAP_FORMAT_XKB_V1 = 1
PRESSED, RELEASED = 1, 0
AXIS_VERTICAL, AXIS_HORIZONTAL, SOURCE_WHEEL = 0, 1, 0
WHEEL_STEP = 15.0   # what one libinput wheel click scrolls, in the axis' units

# X button numbers (the API's) -> Linux input event codes; 4-7 are wheel clicks, not buttons.
BUTTON_CODES = {1: 0x110, 2: 0x112, 3: 0x111, 8: 0x113, 9: 0x114}
WHEEL_BUTTONS = {4: (AXIS_VERTICAL, -1), 5: (AXIS_VERTICAL, 1), 6: (AXIS_HORIZONTAL, -1),
                 7: (AXIS_HORIZONTAL, 1)}
# XKB's real modifiers in their fixed order: the bit of each in a modifier mask.
MODIFIER_BITS = {name: 1 << i for i, name in enumerate(
    ("Shift", "Lock", "Control", "Mod1", "Mod2", "Mod3", "Mod4", "Mod5"))}


def _now_ms() -> int:
    return int(time.monotonic() * 1000) & 0xFFFFFFFF


class VirtualPointer:
    def __init__(self, conn: Connection, registry: Registry, width: int, height: int) -> None:
        self.conn = conn
        manager, _ = registry.bind("zwlr_virtual_pointer_manager_v1", 1)
        self._pointer = conn.new_proxy("zwlr_virtual_pointer_v1")
        manager.request(CREATE_VIRTUAL_POINTER, Args().uint(0).uint(self._pointer.id))
        self.width, self.height = width, height
        # Wayland lets no client read the pointer: desktopd's own moves are where it is (a VNC
        # viewer moving it meanwhile is not seen).
        self.position = (width // 2, height // 2)
        self.moved = False   # True once desktopd has put the pointer somewhere itself
        self.held: set[int] = set()

    def check(self, x: int, y: int) -> None:
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"({x}, {y}) is outside the {self.width}x{self.height} screen")

    def move(self, x: int, y: int) -> None:
        self.check(x, y)
        self._pointer.request(MOTION_ABSOLUTE, Args().uint(_now_ms()).uint(x).uint(y)
                              .uint(self.width).uint(self.height))
        self._pointer.request(FRAME)
        self.conn.roundtrip()
        self.position = (x, y)
        self.moved = True

    def button(self, button: int, down: bool) -> None:
        if not 1 <= button <= 9:
            raise ValueError(f"button: {button} is not a pointer button (1..9)")
        if button in WHEEL_BUTTONS:
            if down:
                axis, sign = WHEEL_BUTTONS[button]
                self._wheel(axis, sign)
            return
        self._pointer.request(BUTTON, Args().uint(_now_ms()).uint(BUTTON_CODES[button])
                              .uint(PRESSED if down else RELEASED))
        self._pointer.request(FRAME)
        self.conn.roundtrip()
        (self.held.add if down else self.held.discard)(button)

    def _wheel(self, axis: int, clicks: int) -> None:
        self._pointer.request(AXIS_SOURCE, Args().uint(SOURCE_WHEEL))
        self._pointer.request(AXIS_DISCRETE, Args().uint(_now_ms()).uint(axis)
                              .sint(fixed(WHEEL_STEP * clicks)).sint(clicks))
        self._pointer.request(FRAME)

    def scroll(self, dx: int, dy: int) -> None:
        """Wheel clicks, one frame each: dy>0 scrolls down, dx>0 right (as X buttons 5 and 7)."""
        for axis, count in ((AXIS_VERTICAL, dy), (AXIS_HORIZONTAL, dx)):
            for _ in range(abs(count)):
                self._wheel(axis, 1 if count > 0 else -1)
        self.conn.roundtrip()

    def release_all(self) -> None:
        for button in sorted(self.held):
            self.button(button, False)


class VirtualKeyboard:
    def __init__(self, conn: Connection, registry: Registry, seat_id: int) -> None:
        self.conn = conn
        manager, _ = registry.bind("zwp_virtual_keyboard_manager_v1", 1)
        self._keyboard = conn.new_proxy("zwp_virtual_keyboard_v1")
        manager.request(CREATE_VIRTUAL_KEYBOARD, Args().uint(seat_id).uint(self._keyboard.id))
        self.keymap = Keymap()
        self.held: set[int] = set()   # keysyms down
        # Keysyms down on the upper level of their key with Shift added for them (as X11's
        # XTEST path and xdotool do): Shift stays in the modifiers until they are released.
        self._shifted: set[int] = set()
        self._upload()

    def _upload(self) -> None:
        text = self.keymap.text().encode() + b"\0"
        fd = os.memfd_create("desktopd-keymap", os.MFD_CLOEXEC)
        try:
            os.write(fd, text)
            self._keyboard.request(KEYMAP, Args().uint(KEYMAP_FORMAT_XKB_V1).fd(fd).uint(len(text)))
            self.conn.roundtrip()   # the compositor has read it before the descriptor closes
        finally:
            os.close(fd)

    def _prepare(self, keysyms: list[int]) -> None:
        if self.keymap.ensure(keysyms, self.held):
            self._upload()

    def _modifiers(self, extra_shift: bool = False) -> None:
        mask = MODIFIER_BITS["Shift"] if extra_shift or self._shifted else 0
        for held in self.held:
            mask |= MODIFIER_BITS.get(MODIFIERS.get(held, ""), 0)
        self._keyboard.request(MODIFIERS_REQUEST, Args().uint(mask).uint(0).uint(0).uint(0))

    def _send(self, keysym: int, down: bool) -> None:
        stroke = self.keymap.stroke(keysym)
        self._keyboard.request(KEY, Args().uint(_now_ms()).uint(stroke.code)
                               .uint(PRESSED if down else RELEASED))
        (self.held.add if down else self.held.discard)(keysym)
        if keysym in MODIFIERS:
            self._modifiers()

    def keysym(self, keysym: int, down: bool) -> None:
        """One key down or up, as named: a symbol on the upper level of its key ("A", ":") gets
        Shift while it is down unless Shift is held already, so it arrives as named; the
        modifiers held stay as they are."""
        self._prepare([keysym])
        if down and keysym not in self.held and self.keymap.stroke(keysym).shift and not self._shift_held():
            self._shifted.add(keysym)
            self._modifiers()
        self._send(keysym, down)
        if not down and keysym in self._shifted:
            self._shifted.discard(keysym)
            self._modifiers()
        self.conn.roundtrip()

    def _shift_held(self) -> bool:
        return any(MODIFIERS.get(held) == "Shift" for held in self.held)

    def type_keysyms(self, keysyms: list[int], delay_ms: float = 0) -> None:
        """Press and release each in order; Shift only for the upper level of a US key, so each
        symbol arrives exactly as given. A new symbol that needs a spare key uploads the map
        again between two keys; the compositor passes it on in order with them."""
        for keysym in keysyms:
            self._prepare([keysym])
            shift = self.keymap.stroke(keysym).shift
            if shift:
                self._modifiers(extra_shift=True)
            self._send(keysym, True)
            self._send(keysym, False)
            if shift:
                self._modifiers()
            if delay_ms:
                self.conn.roundtrip()
                time.sleep(delay_ms / 1000)   # the caller asked for this pace between keys
        self.conn.roundtrip()

    def release_all(self) -> None:
        for keysym in sorted(self.held):
            self._send(keysym, False)
        if self._shifted:
            self._shifted.clear()
            self._modifiers()
        self.conn.roundtrip()
