"""A real desktopd on the session's Xvfb (the OCR tests read what it captures)."""

from tests.support.x11_fixtures import desktopd, pages  # noqa: F401 (fixtures)
