"""PUT /api/v1/clipboard's JSON body model."""

from __future__ import annotations

from typing import TypedDict

from httpapi.bodies import Typed
from httpapi.fields import F, Model, Str


class ClipboardBody(TypedDict):
    text: str


CLIPBOARD_BODY = Typed(Model("ClipboardText", [
    F("text", Str(max_length=10 << 20), required=True, description="UTF-8 text for CLIPBOARD."),
]), ClipboardBody)
