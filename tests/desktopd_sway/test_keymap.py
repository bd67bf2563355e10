"""The virtual keyboard's keymap: keys where a US keyboard has them, spare keys for the rest."""

from __future__ import annotations

import pytest

from desktopd.sway.keymap import SPARE, US_KEYS, Keymap


def test_every_printable_ascii_character_has_its_us_key_and_shift_only_for_the_upper_level() -> None:
    keymap = Keymap()
    for char in map(chr, range(0x20, 0x7F)):
        stroke = keymap.stroke(ord(char))
        plain, shifted = US_KEYS[stroke.code]
        assert char == (shifted if stroke.shift else plain), char
    assert not keymap.ensure(range(0x20, 0x7F))   # nothing to upload for ASCII


def test_other_symbols_take_spare_keys_and_the_least_recent_make_room() -> None:
    keymap = Keymap()
    greek = [0x1000000 + 0x3B1 + i for i in range(len(SPARE))]
    assert keymap.ensure(greek)
    codes = {keymap.stroke(k).code for k in greek}
    assert codes == set(SPARE)
    keymap.stroke(greek[0])                        # used again: now the most recent
    assert keymap.ensure([0x263A], held=[greek[1]])
    assert keymap.stroke(greek[1]).code in SPARE   # held: kept
    assert greek[0] in keymap.spare and greek[2] not in keymap.spare


def test_more_symbols_at_once_than_spare_keys_is_refused() -> None:
    with pytest.raises(ValueError, match="text"):
        Keymap().ensure([0x1000000 + 0x3B1 + i for i in range(len(SPARE) + 1)])


def test_the_keymap_text_names_each_code_once() -> None:
    keymap = Keymap()
    keymap.ensure([0x1000000 + 0x263A])
    text = keymap.text()
    codes = [line.split()[0] for line in text.splitlines() if line.strip().startswith("<K")]
    assert len(codes) == len(set(codes))
    assert "0x100263a" in text and "modifier_map Control" in text
