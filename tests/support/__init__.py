"""Test helpers shared by the unit, X11, Chromium and container suites."""
