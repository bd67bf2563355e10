"""The step's route, declared once (desktopd/routes.py lists it with the others)."""

from __future__ import annotations

from desktopd.backend.protocol import POINTER_SOURCE_SCHEMA
from desktopd.settle.settler import SETTLED_SCHEMA
from httpapi.routing import Route, with_body

from . import handlers
from .models import ACTS, STEP_BODY

RESULT = {"type": "object", "required": ["settled"], "properties": {
    "act": {"type": ["string", "null"], "enum": [*ACTS, None]},
    "executed": {"description": "What the act did: the vendor endpoint's executed (screen pixels), "
                                "or /tablet's or /keyboard's answer."},
    "text": {"type": ["string", "null"], "description": "An Anthropic action's text output."},
    "settled": SETTLED_SCHEMA,
    "screenshot": {"type": ["object", "null"], "properties": {
        "media_type": {"type": "string"}, "data": {"type": "string", "description": "Base64."},
        "width": {"type": "integer"}, "height": {"type": "integer"},
        "scale": {"type": "number", "description": "screen_x = region.x + image_x / scale."},
        "region": {"type": "object", "description": "Captured rectangle, screen pixels."},
        "screen": {"type": "object"}}},
    "windows": {"type": "array", "items": {"type": "object"}, "description": "As /api/v1/tree's."},
    "pointer": {"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "integer"},
                                                 "source": POINTER_SOURCE_SCHEMA}},
    "timings": {"type": "object", "description": "Seconds: act, settle_and_capture, observe."}}}

ROUTES: list[Route] = [
    Route("POST", "/api/v1/step", with_body(STEP_BODY, handlers.step),
          "A harness step in one round trip: act, settle, observe", "computer",
          success={"application/json": {"schema": RESULT}},
          description=f"Runs at most one act ({', '.join(ACTS[:-1])} or {ACTS[-1]}), waits for "
                      "the screen to settle (X damage quiet for settle_quiet, at most settle "
                      "seconds) and answers with the screenshot (base64), windows and pointer."),
]
