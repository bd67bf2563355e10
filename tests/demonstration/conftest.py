"""A real desktopd on the session's Xvfb (the person: xdotool, another X client injecting
through XTEST as a VNC server does)."""

from testbed.x11_fixtures import desktopd  # noqa: F401 (fixture)
