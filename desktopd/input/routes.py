"""The input routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.fields import F, Int
from httpapi.responses import ResponseModel
from httpapi.routing import Route, with_body

from . import handlers
from .models import KEYBOARD_BODY, POINTER_BODY

POSITION = ResponseModel("PointerPosition", [
    F("x", Int(), required=True, description="Pointer x after the events, screen pixels."),
    F("y", Int(), required=True, description="Pointer y after the events, screen pixels."),
    F("events", Int()),
])

ROUTES: list[Route] = [
    Route("POST", "/api/v1/tablet", handlers.tablet, "Pointer: tap, move, click, down/up, drag, scroll",
          "input", body=POINTER_BODY,
          returns=POSITION,
          description="Coordinates are screen pixels; off-screen ones are a 422 naming the field."),
    Route("POST", "/api/v1/keyboard", with_body(KEYBOARD_BODY, handlers.keyboard),
          "Keyboard: text, key combos, key events",
          "input"),
]
