"""The browser: one Chromium process, its CDP connection, the tabs health and the CDP proxy."""
