"""The screen: GET /api/v1/screenshot (capture, scale, encode) and the region other features
capture with."""
