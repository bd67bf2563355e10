"""A small Chrome DevTools Protocol client: one browser WebSocket, flattened sessions.

``connection.CDPConnection`` speaks the protocol; ``targets.TargetTracker`` follows tabs and
out-of-process iframes on top of it, owns their lifecycle and sets every new session up
(``attach``).
"""
