"""GET/PUT /api/v1/clipboard: the CLIPBOARD selection as UTF-8 text."""

from __future__ import annotations

from typing import TypedDict

from aiohttp import web

from desktopd.app_keys import backend_service
from desktopd.clipboard.models import CLIPBOARD_BODY
from httpapi.bodies import json_body
from httpapi.errors import invalid, read_body
from httpapi.fields import F, Bool, Nullable, Str
from httpapi.responses import ResponseModel, TypedResponse


class ClipboardText(TypedDict):
    text: str | None
    empty: bool


CLIPBOARD = TypedResponse(ResponseModel("Clipboard", [F("text", Nullable(Str())), F("empty", Bool())]),
                          ClipboardText)


async def get_clipboard(request: web.Request) -> web.Response:
    text = await backend_service(request).call(lambda desk: desk.clipboard_get())
    return CLIPBOARD.response({"text": text, "empty": text is None})


async def put_clipboard(request: web.Request) -> web.Response:
    if request.content_type == "text/plain":  # curl --data-binary @file -H 'Content-Type: text/plain'
        raw = await read_body(request)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise invalid("body", "text/plain body must be UTF-8") from None
    else:
        text = (await json_body(request, CLIPBOARD_BODY))["text"]
    await backend_service(request).call(lambda desk: desk.clipboard_set(text), field="text")
    return web.json_response({"ok": True, "length": len(text)})
