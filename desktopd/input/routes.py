"""The input routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.routing import Route, with_body

from . import handlers
from .models import KEYBOARD_BODY, POINTER_BODY

POSITION = {"type": "object", "properties": {
    "x": {"type": "integer", "description": "Pointer x after the events, screen pixels."},
    "y": {"type": "integer", "description": "Pointer y after the events, screen pixels."},
    "events": {"type": "integer"}}, "required": ["x", "y"]}

ROUTES: list[Route] = [
    Route("POST", "/api/v1/tablet", handlers.tablet, "Pointer: tap, move, click, down/up, drag, scroll",
          "input", body=POINTER_BODY,
          success={"application/json": {"schema": POSITION}},
          description="Coordinates are screen pixels; off-screen ones are a 422 naming the field."),
    Route("POST", "/api/v1/keyboard", with_body(KEYBOARD_BODY, handlers.keyboard),
          "Keyboard: text, key combos, key events",
          "input"),
]
