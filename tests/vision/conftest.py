"""A real desktopd on the session's Xvfb (the OCR tests read what it captures), and the
accessibility suite's desktop (xfwm4, AT-SPI, desktopd) for the GTK application test."""

from testbed.x11_fixtures import desktopd, pages  # noqa: F401 (fixtures)
from tests.accessibility.conftest import desktop  # noqa: F401 (fixture)
