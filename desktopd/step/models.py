"""POST /api/v1/step's body model: at most one act (a vendor format's action, a /tablet or a
/keyboard body), the display and settle fields, and what to observe."""

from __future__ import annotations

from typing import Any

from desktopd.computer.display import DISPLAY_FIELDS, display_pair
from desktopd.input.models import KEYBOARD_BODY, POINTER_BODY
from desktopd.screen.models import SCREENSHOT_QUERY
from desktopd.settle.settler import SETTLE_FIELDS
from desktopd_contract.formats import FORMATS
from httpapi.fields import Bool, F, Model

ACTS = (*FORMATS, "tablet", "keyboard")


def _one_act(body: dict[str, Any]) -> tuple[str, str] | None:
    given = [name for name in ACTS if body[name] is not None]
    if len(given) > 1:
        return given[1], f"give at most one of {', '.join(ACTS)}"
    return display_pair(body)


STEP_BODY = Model("StepRequest", [
    *(F(name, fmt.action, description=fmt.step_description) for name, fmt in FORMATS.items()),
    F("tablet", POINTER_BODY, description="A POST /api/v1/tablet body to run."),
    F("keyboard", KEYBOARD_BODY, description="A POST /api/v1/keyboard body to run."),
    *DISPLAY_FIELDS,
    *SETTLE_FIELDS,
    F("screenshot", SCREENSHOT_QUERY,
      description="The image to return after the settle, as GET /api/v1/screenshot's query "
                  "(e.g. {\"format\": \"jpeg\", \"max_width\": 1280}); omitted: no image."),
    F("windows", Bool(), default=False, description="Return the top-level windows as /tree does."),
    F("pointer", Bool(), default=True, description="Return the pointer position."),
], check=_one_act, description="At most one act; without one, the step only observes (and "
                               "settles from the request's arrival).")
