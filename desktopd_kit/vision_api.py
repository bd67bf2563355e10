"""desktopd's vision mode (/api/v1/vision/*, docs/vision.md) as methods of both clients: text
read from the screen's pixels, clicks and typing aimed by it, and the vision model loop."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from .calls import JSON, Call, body, json_reply, query
from .endpoint import endpoint

# The loop's own budget bounds a /vision/act run; this only bounds the wait for its answer.
VISION_ACT_WAIT_S = 3600.0


class VisionApi:
    @endpoint
    def vision_text(self, *, region: str | None = None, window: str | None = None) -> Call[dict]:
        """The text visible on the screen (or a region "x,y,width,height", or one window):
        lines and words with boxes and centres in screen pixels."""
        return Call("desktopd", "GET", "/api/v1/vision/text", json_reply,
                    params=query(region=region, window=window))

    @endpoint
    def vision_click(self, text: str, *, nth: int | None = None, exact: bool | None = None,
                     button: Literal["left", "middle", "right"] | None = None,
                     region: str | None = None) -> Call[dict]:
        """Clicks the visible text; a 404/409 DesktopError's body lists what the screen shows."""
        return Call("desktopd", "POST", "/api/v1/vision/click", json_reply,
                    json=body(text=text, nth=nth, exact=exact, button=button, region=region))

    @endpoint
    def vision_fill(self, label: str, text: str, *, nth: int | None = None, exact: bool | None = None,
                    region: str | None = None) -> Call[dict]:
        """Types ``text`` into the field beside the visible ``label``, replacing what it held."""
        return Call("desktopd", "POST", "/api/v1/vision/fill", json_reply,
                    json=body(label=label, text=text, nth=nth, exact=exact, region=region))

    @endpoint
    def vision_act(self, instruction: str, *, model: str | None = None, max_steps: int | None = None,
                   budget: Mapping[str, JSON] | None = None) -> Call[dict]:
        """Hands a task to the configured vision model; answers its trace."""
        return Call("desktopd", "POST", "/api/v1/vision/act", json_reply,
                    json=body(instruction=instruction, model=model, max_steps=max_steps,
                              budget=dict(budget) if budget else None),
                    extra_timeout=VISION_ACT_WAIT_S)
