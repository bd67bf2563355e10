"""Keyboard input through XTEST, including characters the keymap does not have.

A character whose keysym is in the current keymap (plain or with Shift) is typed with its own
keycode. Anything else (accents the layout lacks, CJK, emoji) is typed on a *scratch* keycode -
one the keymap leaves empty - temporarily mapped to the character's keysym. The known failure of
xdotool's version of this is a race: it restores the mapping right after the key event, so a
client that looks the keycode up a moment later (after its MappingNotify) sees the restored map
and types nothing or the wrong character. Here scratch keycodes form a small LRU pool: a mapping
stays in place after use, repeated characters reuse it, and a keycode is only re-mapped once the
pool is exhausted and it is the least recently used; the pool is cleared back to NoSymbol after a
quiet period (``restore_scratch``) or on close. Every mapping change is followed by a sync, so
the server has sent MappingNotify to every client before the key event that needs it.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict

from Xlib import X
from Xlib.ext import xtest

from .keynames import char_to_keysym, parse_key_name

log = logging.getLogger(__name__)

SHIFT_L = 0xFFE1
# A keycode re-mapped sooner than this after its last key event might still be unread by a slow
# client; pace the (rare) recycling instead of racing it. Keycodes are recycled in LRU order, so
# one wait ages a whole pool's worth: typing N distinct unmapped characters costs about
# N / pool-size waits (50 ms proved too short for Tk on a loaded 2-core machine).
RECYCLE_GUARD_S = 0.2
MAX_SCRATCH = 24


class Keyboard:
    def __init__(self, xdisplay) -> None:
        self._dpy = xdisplay
        self._root = xdisplay.screen().root
        self._min = xdisplay.display.info.min_keycode
        self._max = xdisplay.display.info.max_keycode
        mapping = self._read_mapping()
        self._per_keycode = max(1, len(mapping[0]) if mapping else 1)
        modifier_keycodes = {kc for row in xdisplay.get_modifier_mapping() for kc in row if kc}
        # Empty keycodes at startup become the scratch pool (never keycode 8: some clients drop it).
        self._pool = [kc for kc, syms in zip(range(self._min, self._max + 1), mapping)
                      if not any(syms) and kc > 8 and kc not in modifier_keycodes][-MAX_SCRATCH:]
        self._scratch: OrderedDict[int, int] = OrderedDict()   # keycode -> keysym, LRU first
        self._scratch_used: dict[int, float] = {}              # keycode -> last key event time
        self._lookup: dict[int, tuple[int, int]] = {}
        self._build_lookup(mapping)
        self._held: dict[int, tuple[int, bool]] = {}           # keysym -> (keycode, shift added)
        self.last_activity = 0.0
        self._stale = False

    # ------------------------------------------------------------------------------ keymap
    def _read_mapping(self) -> list[list[int]]:
        return [list(row) for row in
                self._dpy.get_keyboard_mapping(self._min, self._max - self._min + 1)]

    def _build_lookup(self, mapping: list[list[int]]) -> None:
        """keysym -> (keycode, level) for levels 0 (plain) and 1 (Shift), lowest level first."""
        lookup: dict[int, tuple[int, int]] = {}
        pool = set(self._pool)
        for level in (0, 1):
            for keycode, syms in zip(range(self._min, self._max + 1), mapping):
                if keycode in pool or len(syms) <= level:
                    continue
                sym = syms[level]
                if level == 1 and syms[0] == sym:
                    continue
                if sym and sym not in lookup:
                    lookup[sym] = (keycode, level)
        self._lookup = lookup

    def refresh(self) -> None:
        """Re-read the keymap (after a MappingNotify from someone else, e.g. setxkbmap)."""
        mapping = self._read_mapping()
        self._build_lookup(mapping)
        # Re-learn what our scratch keycodes hold now; drop those someone else changed.
        for keycode, sym in list(self._scratch.items()):
            if sym not in mapping[keycode - self._min]:
                del self._scratch[keycode]

    def handle_events(self) -> None:
        """Drain queued events; a keyboard MappingNotify refreshes the keymap."""
        while self._dpy.pending_events():
            self.note_event(self._dpy.next_event())
        if self._stale:
            self._stale = False
            self.refresh()

    def note_event(self, event) -> None:
        """Look at an event someone else read from the shared connection."""
        if event.type == X.MappingNotify and event.request == X.MappingKeyboard:
            self._stale = True

    # ---------------------------------------------------------------------- scratch pool
    def _scratch_keycode(self, keysym: int) -> int:
        for keycode, sym in self._scratch.items():
            if sym == keysym:
                self._scratch.move_to_end(keycode)
                return keycode
        busy = {kc for kc, _ in self._held.values()}
        free = [kc for kc in self._pool if kc not in self._scratch and kc not in busy]
        if free:
            keycode = free[0]
        else:
            candidates = [kc for kc in self._scratch if kc not in busy]
            if not candidates:
                raise ValueError("keys: too many unmapped keys held down at once")
            keycode = candidates[0]  # least recently used
            since = time.monotonic() - self._scratch_used.get(keycode, 0.0)
            if since < RECYCLE_GUARD_S:
                self._dpy.sync()
                time.sleep(RECYCLE_GUARD_S - since)
            del self._scratch[keycode]
        self._dpy.change_keyboard_mapping(keycode, [[keysym] * self._per_keycode])
        # The round trip guarantees the MappingNotify went out before our key event.
        self._dpy.sync()
        self._scratch[keycode] = keysym
        return keycode

    def restore_scratch(self) -> None:
        """Map every scratch keycode back to NoSymbol (the keymap as we found it)."""
        busy = {kc for kc, _ in self._held.values()}
        for keycode in [kc for kc in self._scratch if kc not in busy]:
            self._dpy.change_keyboard_mapping(keycode, [[X.NoSymbol] * self._per_keycode])
            del self._scratch[keycode]
        self._dpy.sync()

    @property
    def scratch_in_use(self) -> int:
        return len(self._scratch)

    # ------------------------------------------------------------------------ key events
    def _resolve(self, keysym: int, *, plain_state: bool) -> tuple[int, bool]:
        """(keycode, needs Shift) for keysym; a scratch keycode when the keymap lacks it or when
        the current modifier state (Shift/Lock held) would change what the level yields."""
        found = self._lookup.get(keysym)
        if found is not None and (plain_state or self._is_modifier_key(keysym)):
            keycode, level = found
            return keycode, level == 1
        return self._scratch_keycode(keysym), False

    @staticmethod
    def _is_modifier_key(keysym: int) -> bool:
        return 0xFFE1 <= keysym <= 0xFFEE or keysym in (0xFE03, 0xFF7E, 0xFF7F)

    def _plain_state(self) -> bool:
        mask = self._root.query_pointer().mask
        return not mask & (X.ShiftMask | X.LockMask)

    def _fake(self, keycode: int, down: bool) -> None:
        xtest.fake_input(self._dpy, X.KeyPress if down else X.KeyRelease, detail=keycode)
        if keycode in self._scratch:
            self._scratch_used[keycode] = time.monotonic()

    def keysym(self, keysym: int, down: bool) -> None:
        self.handle_events()
        self.last_activity = time.monotonic()
        if down:
            if keysym in self._held:  # a second "down": auto-repeat, like a held key
                self._fake(self._held[keysym][0], True)
            else:
                keycode, shift = self._resolve(keysym, plain_state=self._plain_state())
                if shift:
                    self._fake(self._lookup[SHIFT_L][0], True)
                self._fake(keycode, True)
                self._held[keysym] = (keycode, shift)
        else:
            held = self._held.pop(keysym, None)
            if held is not None:
                keycode, shift = held
                self._fake(keycode, False)
                if shift:
                    self._fake(self._lookup[SHIFT_L][0], False)
            else:
                # Releasing a key we did not press (e.g. after a restart): release its keycode.
                found = self._lookup.get(keysym)
                if found is not None:
                    self._fake(found[0], False)
        self._dpy.sync()

    def key(self, name: str, down: bool) -> None:
        self.keysym(parse_key_name(name), down)

    def type_text(self, text: str, delay_ms: float = 0) -> None:
        """Type ``text`` exactly. Every key pressed here is released, even on error."""
        keysyms = [char_to_keysym(ch) for ch in text.replace("\r\n", "\n")]  # validate first
        self.handle_events()
        self.last_activity = time.monotonic()
        plain = self._plain_state()
        shift_code = self._lookup.get(SHIFT_L, (None, 0))[0]
        pressed: list[int] = []
        try:
            for index, keysym in enumerate(keysyms):
                keycode, shift = self._resolve(keysym, plain_state=plain)
                if shift and shift_code is None:
                    keycode, shift = self._scratch_keycode(keysym), False
                if shift:
                    self._fake(shift_code, True)
                    pressed.append(shift_code)
                self._fake(keycode, True)
                pressed.append(keycode)
                self._fake(keycode, False)
                pressed.pop()
                if shift:
                    self._fake(shift_code, False)
                    pressed.pop()
                if delay_ms > 0 and index + 1 < len(keysyms):
                    self._dpy.sync()
                    time.sleep(delay_ms / 1000.0)
        finally:
            for keycode in reversed(pressed):
                self._fake(keycode, False)
            self._dpy.sync()
            self.last_activity = time.monotonic()

    def release_all(self) -> None:
        for keysym in list(self._held):
            self.keysym(keysym, False)
