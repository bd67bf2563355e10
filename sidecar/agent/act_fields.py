"""Field specs the agent routes share: a ref, a tab, the act's mode and the fields every act
kind takes (tab, mode, snapshot, timeout)."""

from __future__ import annotations

from httpapi.fields import F, Bool, Enum, Number, Str

from .key_combos import KeyError_, parse_combo
from .refs import REF_PATTERN, is_ref

MODES = ("visible", "cdp")


def _ref_check(value: str) -> str | None:
    return None if is_ref(value) else "expected a ref from GET /snapshot, such as e12 or f1e3"


def combo_check(value: str) -> str | None:
    try:
        parse_combo(value)
    except KeyError_ as exc:
        return str(exc)
    return None


REF = Str(min_length=1, max_length=20, check=_ref_check, pattern=REF_PATTERN,
          description="An element's ref from GET /snapshot.")
TAB = Str(min_length=1, max_length=64, pattern=r"\S",
          description="Target id of a tab, or a unique prefix (default: the tab in front).")
TAB_FIELD = F("tab", TAB)
MODE_FIELD = F("mode", Enum(MODES), default="visible",
               description="visible: the real pointer and keyboard through desktopd (XTEST), on the "
                           "element scrolled into view: the operator sees it; cdp: input through "
                           "CDP, also on background tabs and without a desktop.")
SNAPSHOT_FIELD = F("snapshot", Bool(), default=False,
                   description="Answer with a fresh snapshot of the tab too (text).")
TIMEOUT_FIELD = F("timeout", Number(minimum=0.1, maximum=60),
                  description="Seconds to wait for a navigation the act started (default 10), or "
                              "for a wait act's condition (default 5).")
MODIFIER = Enum(("Control", "Shift", "Alt", "Meta", "ctrl", "shift", "alt", "meta"))
ACT_COMMON = [TAB_FIELD, MODE_FIELD, SNAPSHOT_FIELD, TIMEOUT_FIELD]
