"""A tool's JSON answer as MCP structured output: ``structuredContent`` is the answer's object
itself (a list goes under ``result``), checked against the tool's ``outputSchema``, and the same
JSON as text for clients that read only the text. Without this the SDK wraps a ``str`` return in
``{"result": "<JSON text>"}`` and clients get a string where an object was meant."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Annotated

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, JsonValue

JsonObject = dict[str, JsonValue]

# The return annotations the SDK reads the outputSchema from.
ObjectAnswer = Annotated[CallToolResult, JsonObject]


class ListOrObject(BaseModel):
    """An answer that is a list for one action and an object for another (browser_tabs): always
    under ``result``, so one schema describes the tool."""
    result: list[JsonObject] | JsonObject


ListOrObjectAnswer = Annotated[CallToolResult, ListOrObject]


def json_answer(value: Mapping[str, object] | Sequence[object], *, under_result: bool = False) -> CallToolResult:
    """``value`` as structured content (the object itself; a list, or any answer of a tool that
    sets ``under_result``, under ``result``) and as JSON text."""
    structured = dict(value) if isinstance(value, Mapping) and not under_result else {"result": value}
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(value, ensure_ascii=False))],
                          structuredContent=structured)
