"""The HTTP plumbing both daemons share (desktopd and the sidecar): errors, request models and
validation (fields, bodies), the route table and its OpenAPI document, the browser guard,
bearer-token auth, deadlines, lifetime, the daemon runner, and typed application keys that work
on aiohttp 3.8 (bookworm) and 3.9+."""
