"""Top-level windows: the tree (desktopd's shape or i3's, i3tree.py), one window, and the window
actions (focus, close, move, resize, ...)."""
