"""The MCP tools of desktopd's vision mode (/api/v1/vision/*): text read from the desktop's pixels,
clicks and typing aimed by that text, and the vision model loop. Every one works on the VISIBLE
desktop the operator watches, where pages and apps without a tree (canvas, images of text,
remote desktops) still show text."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.fastmcp import FastMCP
from pydantic import Field

from .backends import Backends, answer
from .structured import ObjectAnswer, json_answer

# No route model behind these parameters: the routes are desktopd's, whose models (desktopd/vision/)
# the sidecar may not import (tests/architecture/test_boundaries.py); declared here instead.
ON_SCREEN = ("Works on the VISIBLE desktop the operator watches (noVNC), from its pixels: for "
             "canvas pages, images of text and apps without an accessibility tree. ")
Region = Annotated[str | None, Field(description="Only this screen rectangle: x,y,width,height")]


def register_vision_tools(server: FastMCP, backends: Backends) -> None:
    @server.tool(description=(
        "Read the text visible on the desktop (OCR): lines and words with boxes and centres in "
        "screen pixels (desktop_click's space) and confidence. " + ON_SCREEN + "Read-only."))
    async def vision_read_text(region: Region = None,
                               window: Annotated[str | None, Field(description="Only this window id (desktop_windows)")] = None) -> ObjectAnswer:
        read = await answer(backends.client.vision_text(region=region, window=window))
        lines = [{"text": line["text"], "center": line["center"], "box": line["box"]} for line in read["lines"]]
        return json_answer({"region": read["region"], "lines": lines})

    @server.tool(description=(
        "Click the visible text `text` (found on screen by OCR) at its centre. When several places "
        "show it the call fails listing them: pass nth (0 = first in reading order) or a region. "
        + ON_SCREEN + "VISIBLE: the operator sees the pointer move and click."))
    async def vision_click(text: str, nth: int | None = None, exact: bool = False,
                           button: Literal["left", "middle", "right"] = "left", region: Region = None) -> ObjectAnswer:
        return json_answer(await answer(backends.client.vision_click(text, nth=nth, exact=exact, button=button,
                                                                    region=region)))

    @server.tool(description=(
        "Type `text` into the input field beside the visible label `label` (to its right, else "
        "below), replacing what it held. " + ON_SCREEN + "VISIBLE: the operator sees the typing."))
    async def vision_fill(label: str, text: str, nth: int | None = None, exact: bool = False,
                          region: Region = None) -> ObjectAnswer:
        return json_answer(await answer(backends.client.vision_fill(label, text, nth=nth, exact=exact,
                                                                   region=region)))

    @server.tool(description=(
        "Hand a task to the desktop's configured vision model, which looks at screenshots and "
        "clicks and types until it is done or a budget ends it; answers its trace. Fails when no "
        "model is configured. VISIBLE: it acts on the desktop the operator watches."))
    async def vision_act(instruction: str, model: str | None = None,
                         max_steps: Annotated[int, Field(ge=1, le=100)] = 10,
                         max_tokens: Annotated[int | None, Field(ge=1)] = None,
                         max_seconds: Annotated[int | None, Field(ge=1, le=3600)] = None) -> ObjectAnswer:
        budget = {name: value for name, value in (("tokens", max_tokens), ("seconds", max_seconds))
                  if value is not None}
        trace = await answer(backends.client.vision_act(instruction, model=model, max_steps=max_steps,
                                                        budget=budget or None))
        trace.pop("final_screenshot", None)   # large; desktop_screenshot shows the screen
        return json_answer(trace)
