"""Keyboard input through XTEST, including characters the keymap does not have.

A character whose keysym is in the current keymap (plain or with Shift) is typed with its own
keycode. Anything else (accents the layout lacks, CJK, emoji) is typed on a *scratch* keycode -
one the keymap leaves empty (or holds only multimedia keysyms) - temporarily mapped to the character's keysym. The known failure of
xdotool's version of this is a race: it restores the mapping right after the key event, so a
client that looks the keycode up a moment later (after its MappingNotify) sees the restored map
and types nothing or the wrong character. Here scratch keycodes form a small LRU pool: a mapping
stays in place after use, repeated characters reuse it, and a keycode is only re-mapped once the
pool is exhausted and it is the least recently used; the pool is cleared back to NoSymbol after a
quiet period (``restore_scratch``) or on close. Every mapping change is followed by a sync, so
the server has sent MappingNotify to every client before the key event that needs it.

Every call ends with a sync and waits until the server has delivered its key events (see
delivery.py), so input sent after it cannot reach an application first.
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict

from Xlib import X
from Xlib.ext import xtest

from .delivery import keys_delivered, wait_until
from .keynames import char_to_keysym, parse_key_name

log = logging.getLogger(__name__)

SHIFT_L = 0xFFE1
# A keycode re-mapped sooner than this after its last key event might still be unread by a slow
# client; pace the (rare) recycling instead of racing it. Keycodes are recycled in LRU order, so
# one wait ages a whole pool's worth: typing N distinct unmapped characters costs about
# N / pool-size waits (50 ms proved too short for Tk on a loaded 2-core machine).
RECYCLE_GUARD_S = 0.2
MAX_SCRATCH = 128
# After a batch of mapping changes, before the first key event that needs them (see _premap).
MAPPING_SETTLE_S = 0.02
XF86_FIRST, XF86_LAST = 0x1008FF00, 0x1008FFFF


class Keyboard:
    def __init__(self, xdisplay) -> None:
        self._dpy = xdisplay
        self._root = xdisplay.screen().root
        self._min = xdisplay.display.info.min_keycode
        self._max = xdisplay.display.info.max_keycode
        mapping = self._read_mapping()
        self._per_keycode = max(1, len(mapping[0]) if mapping else 1)
        modifier_keycodes = {kc for row in xdisplay.get_modifier_mapping() for kc in row if kc}
        rows = [(kc, syms) for kc, syms in zip(range(self._min, self._max + 1), mapping)
                if kc > 8 and kc not in modifier_keycodes]  # some clients drop keycode 8
        # The scratch pool: keycodes the keymap leaves empty first, then (borrowed, and given
        # back exactly) keycodes holding only XF86 multimedia keysyms - nothing types text with
        # those, and a big pool means a keycode is rarely re-mapped while a client may still be
        # about to look it up. XF86 keys still work: like any absent keysym, via the pool.
        empty = [kc for kc, syms in rows if not any(syms)]
        media = [kc for kc, syms in rows
                 if any(syms) and all(not sym or XF86_FIRST <= sym <= XF86_LAST for sym in syms)]
        self._pool = (empty + media)[:MAX_SCRATCH]
        self._original = {kc: list(syms) + [X.NoSymbol] * (self._per_keycode - len(syms))
                          for kc, syms in zip(range(self._min, self._max + 1), mapping)
                          if kc in set(self._pool)}
        self._scratch: OrderedDict[int, int] = OrderedDict()   # keycode -> keysym, LRU first
        self._scratch_used: dict[int, float] = {}              # keycode -> last key event time
        self._lookup: dict[int, tuple[int, int]] = {}
        self._build_lookup(mapping)
        self._held: dict[int, tuple[int, bool]] = {}           # keysym -> (keycode, shift added)
        self._touched: set[int] = set()                        # keycodes sent since the last wait
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
    def _scratch_keycode(self, keysym: int, *, sync: bool = True) -> int:
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
        if sync:
            # The round trip guarantees the MappingNotify went out before our key event.
            self._dpy.sync()
        self._scratch[keycode] = keysym
        return keycode

    def restore_scratch(self) -> None:
        """Give every scratch keycode back its original keysyms (the keymap as we found it)."""
        busy = {kc for kc, _ in self._held.values()}
        for keycode in [kc for kc in self._scratch if kc not in busy]:
            self._dpy.change_keyboard_mapping(keycode, [self._original[keycode]])
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
        self._touched.add(keycode)
        if keycode in self._scratch:
            self._scratch_used[keycode] = time.monotonic()

    def _sync_delivered(self) -> None:
        """Sync, then wait until the server delivered the key events sent since the last time."""
        self._dpy.sync()
        held = {kc for kc, _ in self._held.values()}
        if any(shift for _, shift in self._held.values()):
            held.add(self._lookup[SHIFT_L][0])
        touched, self._touched = self._touched, set()
        wait_until(keys_delivered(self._dpy, held, touched), "key events")

    def keysym(self, keysym: int, down: bool) -> None:
        self.handle_events()
        self.last_activity = time.monotonic()
        if down:
            if keysym in self._held:  # a second "down": auto-repeat, like a held key
                self._fake(self._held[keysym][0], True)
            else:
                keycode, shift = self._physical_key(keysym)
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
        self._sync_delivered()

    def _physical_key(self, keysym: int) -> tuple[int, bool]:
        """(keycode, press Shift too) for a key press, as on a real keyboard and as xdotool does:
        a keysym in the keymap uses its own key, so "shift+b" gives "B" and apps see a real key
        code (browsers derive KeyboardEvent.code from it); Shift is added only for a level-1
        keysym while Shift is not already held. Only keysyms absent from the map use scratch."""
        found = self._lookup.get(keysym)
        if found is None:
            self._premap([keysym], plain=False)  # a new scratch mapping settles before the press
            return self._resolve(keysym, plain_state=False)
        keycode, level = found
        return keycode, level == 1 and self._plain_state()

    def key(self, name: str, down: bool) -> None:
        self.keysym(parse_key_name(name), down)

    def _premap(self, keysyms: list[int], plain: bool) -> None:
        """Map every scratch keysym a run of text needs before its first key event, then let
        clients catch up once. Clients look keycodes up lazily (libX11/XKB refetch the map when
        they process the key, input methods filter keys as they are read), so a mapping that
        changes between key events can be seen late; one batch up front, one sync and one short
        settle (there is no protocol signal for "every client has re-read the keymap") makes the
        whole run see a keymap that no longer changes under it."""
        needed = [k for k in dict.fromkeys(keysyms) if not (plain and k in self._lookup)]
        mapped = {sym: kc for kc, sym in self._scratch.items()}
        for keysym in needed:  # mark this run's mapped keysyms most recent: never evicted below
            if keysym in mapped:
                self._scratch.move_to_end(mapped[keysym])
        changed = False
        for keysym in needed:
            if keysym not in mapped:
                self._scratch_keycode(keysym, sync=False)
                changed = True
        if changed:
            self._dpy.sync()
            time.sleep(MAPPING_SETTLE_S)

    def _runs(self, keysyms: list[int], plain: bool) -> list[list[int]]:
        """Split text so each run's distinct unmapped keysyms fit in the scratch pool."""
        runs: list[list[int]] = [[]]
        distinct: set[int] = set()
        room = max(1, len(self._pool) - len(self._held))
        for keysym in keysyms:
            needs_scratch = not (plain and keysym in self._lookup)
            if needs_scratch and keysym not in distinct and len(distinct) >= room:
                runs.append([])
                distinct = set()
            if needs_scratch:
                distinct.add(keysym)
            runs[-1].append(keysym)
        return runs

    def type_text(self, text: str, delay_ms: float = 0) -> None:
        """Type ``text`` exactly. Every key pressed here is released, even on error."""
        keysyms = [char_to_keysym(ch) for ch in text.replace("\r\n", "\n")]  # validate first
        self.handle_events()
        self.last_activity = time.monotonic()
        plain = self._plain_state()
        shift_code = self._lookup.get(SHIFT_L, (None, 0))[0]
        if shift_code is None:
            plain = False  # no Shift key in the map: type everything through the pool
        pressed: list[int] = []
        try:
            for run in self._runs(keysyms, plain):
                self._premap(run, plain)
                for keysym in run:
                    keycode, shift = self._resolve(keysym, plain_state=plain)
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
                    if delay_ms > 0:
                        self._dpy.sync()
                        time.sleep(delay_ms / 1000.0)
        finally:
            for keycode in reversed(pressed):
                self._fake(keycode, False)
            self._sync_delivered()
            self.last_activity = time.monotonic()

    def release_all(self) -> None:
        for keysym in list(self._held):
            self.keysym(keysym, False)
