"""A real desktopd on the session's Xvfb, with recorders that report what X delivered."""

from testbed.x11_fixtures import desktopd, pointer_recorder, recorder  # noqa: F401 (fixtures)
