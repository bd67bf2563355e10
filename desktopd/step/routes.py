"""The step's route, declared once (desktopd/routes.py lists it with the others)."""

from __future__ import annotations

from desktopd.backend.protocol import POINTER_SOURCE_SCHEMA, POINTER_SOURCES
from desktopd.settle.settler import SETTLED
from httpapi.fields import F, Enum, Int, ListOf, Nullable, Number, Opaque, Str
from httpapi.responses import ResponseModel
from httpapi.routing import Route, with_body

from . import handlers
from .models import ACTS, STEP_BODY

# The backend's pointer schema (desktopd/backend/protocol.py) keeps the sources' sentence.
POINTER_SOURCES_DOC = str(POINTER_SOURCE_SCHEMA["description"])
SCREENSHOT = ResponseModel("StepScreenshot", [
    F("media_type", Str()), F("data", Str(), description="Base64."),
    F("width", Int()), F("height", Int()),
    F("scale", Number(), description="screen_x = region.x + image_x / scale."),
    F("scale_y", Number(), description="screen_y = region.y + image_y / scale_y (scale unless the "
                                       "screenshot's width and height changed the aspect)."),
    F("region", Opaque("object"), description="Captured rectangle, screen pixels."),
    F("screen", Opaque("object")),
])
POINTER = ResponseModel("StepPointer", [
    F("x", Int()), F("y", Int()),
    F("source", Enum(list(POINTER_SOURCES), typed=False), description=POINTER_SOURCES_DOC),
])
RESULT = ResponseModel("StepResult", [
    F("act", Nullable(Enum(ACTS))),
    F("executed", Opaque(), description="What the act did: the vendor endpoint's executed (screen "
                                        "pixels), or /tablet's or /keyboard's answer."),
    F("text", Nullable(Str()), description="An Anthropic action's text output."),
    F("settled", SETTLED, required=True),
    F("screenshot", Nullable(SCREENSHOT)),
    F("windows", ListOf(Opaque("object")), description="As /api/v1/tree's."),
    F("pointer", POINTER),
    F("timings", Opaque("object"), description="Seconds: act, settle_and_capture, observe."),
])

ROUTES: list[Route] = [
    Route("POST", "/api/v1/step", with_body(STEP_BODY, handlers.step),
          "A harness step in one round trip: act, settle, observe", "computer",
          returns=RESULT,
          description=f"Runs at most one act ({', '.join(ACTS[:-1])} or {ACTS[-1]}), waits for "
                      "the screen to settle (X damage quiet for settle_quiet, at most settle "
                      "seconds) and answers with the screenshot (base64), windows and pointer."),
]
