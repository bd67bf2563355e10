"""Bounds the request models share, apart from desktopd's models so that the vendor format declarations
(and with them the harness kit) use them without loading desktopd's server."""

COORD_LIMIT = 1 << 15  # X coordinates are 16-bit; the screen check comes later, against the real size
