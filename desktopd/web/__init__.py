"""HTTP plumbing shared by desktopd and the Chromium sidecar: one error type, its middleware,
bearer-token auth and typed application keys that work on aiohttp 3.8 (bookworm) and 3.9+."""
