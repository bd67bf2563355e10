"""The name of a browser profile, one rule for both daemons: the sidecar keeps profiles under
these names, desktopd's reset passes one on."""

from __future__ import annotations

import re

PROFILE_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
_NAME = re.compile(PROFILE_NAME_PATTERN)


def profile_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a profile, or None (it is also a safe directory name)."""
    if not _NAME.match(name):
        return ("expected 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit, "
                f"got {name!r}")
    return None
