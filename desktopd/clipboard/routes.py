"""The clipboard routes, declared once (desktopd/routes.py lists them with the others)."""

from __future__ import annotations

from httpapi.routing import Route

from . import handlers
from .models import CLIPBOARD_BODY

ROUTES: list[Route] = [
    Route("GET", "/api/v1/clipboard", handlers.get_clipboard, "Read the CLIPBOARD selection",
          "clipboard", returns=handlers.CLIPBOARD),
    Route("PUT", "/api/v1/clipboard", handlers.put_clipboard, "Set the CLIPBOARD selection",
          "clipboard", body=CLIPBOARD_BODY.model, text_types=frozenset({"text/plain"}),
          description="JSON {\"text\":...}, or a text/plain UTF-8 body."),
]
