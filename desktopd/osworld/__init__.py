"""OSWorld's VM-server API (its ``desktop_env/server/main.py`` shapes) as an adapter over desktopd's
own parts: capture, execute, the AT-SPI reader, windows and recording. Served on its own port
(DESKTOPD_OSWORLD=1, default 5000) by the desktopd process, so it shares desktopd's X connection,
recorder and accessibility bus instead of having copies of them."""
