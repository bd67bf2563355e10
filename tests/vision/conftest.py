"""A real desktopd on the session's Xvfb (the OCR tests read what it captures), and the
accessibility suite's desktop (xfwm4, AT-SPI, desktopd) for the GTK application test."""

from tests.accessibility.conftest import desktop  # noqa: F401 (fixture)
from tests.support.x11_fixtures import desktopd, pages  # noqa: F401 (fixtures)
