"""The browser window's default size: the display's, in the device-independent pixels
Chromium's --window-size takes. At a device scale factor above 1 a window sized to the display
in DIP would be that many times larger than the screen, and most of the page off it."""

from __future__ import annotations

from collections.abc import Sequence

SCALE_FLAG = "--force-device-scale-factor="


def device_scale_factor(flags: Sequence[str]) -> float:
    """The scale Chromium is told to use (the last such flag wins, as in Chromium), else 1."""
    scale = 1.0
    for flag in flags:
        if flag.startswith(SCALE_FLAG):
            try:
                value = float(flag[len(SCALE_FLAG):])
            except ValueError:
                continue
            if value > 0:
                scale = value
    return scale


def default_window_size(display: tuple[int, int], flags: Sequence[str]) -> tuple[int, int]:
    """The display's size in screen pixels as DIP for the window flags (rounded down: never
    larger than the screen)."""
    scale = device_scale_factor(flags)
    return int(display[0] / scale), int(display[1] / scale)
