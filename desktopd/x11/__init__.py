"""desktopd's X layer: one ``X11Desktop`` object drives an X display in-process (python-xlib XTEST,
MIT-SHM capture through ctypes, EWMH windows, an in-process clipboard owner).

See docs/contracts.md ("desktopd: HTTP layer <-> desktop backend") for the interface the HTTP layer uses."""
