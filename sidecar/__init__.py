"""The Chromium sidecar: launches Chromium on the desktop and serves its tabs' structure over HTTP.

Modules: ``settings`` (CLI/env), ``launcher`` (one Chromium process), ``chromium_watch`` (keeps
Chromium and the CDP connection alive), ``cdp`` (the CDP client), ``app``/``routes`` (HTTP),
``layout`` (/layout: one LayoutService per Chromium connection).
"""

__version__ = "0.1.0"   # the project's version (pyproject.toml), as desktopd.__version__
