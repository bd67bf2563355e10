"""desktopd: an HTTP service that lets agents see and drive an X11 desktop."""

__version__ = "0.1.0"
