"""Browser state that outlives a reset, and what the browser did on the network: named profiles
(profiles.py), Playwright-format storage state (storage_state.py) and HAR capture (har.py), with
their HTTP routes (routes.py)."""
