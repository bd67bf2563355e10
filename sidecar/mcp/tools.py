"""The MCP tools: few, named for what they act on. ``browser_*`` act on the Chromium that is shown
on the desktop (the sidecar's tabs); ``desktop_*`` on the whole X desktop through desktopd. Each
description says whether the operator watching the desktop (noVNC) sees the action: agents pick
tools from these descriptions."""

from __future__ import annotations

import warnings
from typing import Annotated, Literal

from mcp.server.fastmcp import FastMCP, Image
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import Field, JsonValue

from desktopd_kit.sidecar_api import History

from ..agent.agent_requests import ACT_BODY, HISTORY_BODY, SNAPSHOT_QUERY
from ..agent.kinds import mcp_summary
from ..request_models import NAVIGATE_BODY, OPEN_TAB_BODY, PLAYWRIGHT_BODY
from .backends import Backends, answer
from .model_parameters import Parameters, with_model_parameters
from .structured import JsonObject, ListOrObjectAnswer, ObjectAnswer, json_answer
from .variant_fields import variant_fields
from .vision_tools import register_vision_tools

INSTRUCTIONS = (
    "A real Linux desktop with a Chromium window already open on it; a person may be watching it. "
    "For web pages: browser_snapshot to read the page (each element you can act on has a ref), then "
    "browser_act with that ref; after a navigation take a new snapshot (old refs are refused). "
    "browser_act in mode 'visible' (the default) moves the real pointer and types on the desktop, "
    "so the watcher sees it. For anything outside the page (dialogs of other programs, the "
    "browser's own UI) use desktop_screenshot and the desktop_* tools with screen pixels.")

# Each tool's parameters that are fields of the route it calls, taken from the route's model.
# GET /snapshot's query, but not format (the tool answers text) nor client (each MCP session is
# one client).
SNAPSHOT = Parameters(SNAPSHOT_QUERY.model, ("tab", "interactive", "max_chars", "ref", "depth", "diff"))
# POST /act's body, every kind's fields in one model; the fields an agent uses most have a
# parameter each, the others go in options.
ACT = Parameters(variant_fields(ACT_BODY, "ActFields"), (
    "kind", "ref", "text", "submit", "key", "to_ref", "values", "fields", "button", "double",
    "modifiers", "mode", "snapshot", "tab"))
OPEN_TAB = Parameters(OPEN_TAB_BODY.model, ("url",))
# url is POST /tabs/{id}/navigate's; optional in the tool, where go may stand instead. tab is
# the history routes' (a tab id or its prefix).
NAVIGATE_URL = Parameters(NAVIGATE_BODY.model, ("url",), optional=True)
HISTORY_TAB = Parameters(HISTORY_BODY.model, ("tab",))
PLAYWRIGHT = Parameters(PLAYWRIGHT_BODY.model, ("code", "timeout_s", "tab"))
VISIBLE = "VISIBLE: the operator watching the desktop sees this happen."
READ_ONLY = "Read-only: changes nothing on the desktop."


def build_server(backends: Backends, *, name: str = "desktopd") -> FastMCP:
    """The server with every tool bound to ``backends``. Its HTTP transport is stateless JSON (each
    POST answers in its body) and leaves Host/Origin checks to the sidecar's guard."""
    with warnings.catch_warnings():
        # pydantic-settings warns about a forward reference in the SDK's own settings model
        # (its `lifespan` field), which nothing here reads from the environment.
        warnings.filterwarnings("ignore", message=r"Field 'lifespan' has an incomplete definition")
        server = FastMCP(name, instructions=INSTRUCTIONS, stateless_http=True, json_response=True,
                         transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False))

    @server.tool(description=(
        "Read a browser tab as an indented text tree: `- role \"name\" [ref=...] [states]`. Elements "
        "you can act on carry a ref for browser_act. Bounded in size (max_chars); interactive=true "
        "keeps only actionable elements; ref=... scopes to a subtree; diff=true prints [unchanged] for "
        "parts equal to your previous snapshot. " + READ_ONLY))
    @with_model_parameters(SNAPSHOT)
    async def browser_snapshot(tab: str | None, interactive: bool | None, max_chars: int | None,
                               ref: str | None, depth: int | None, diff: bool | None) -> str:
        return await answer(backends.client.snapshot(tab=tab, interactive=interactive, max_chars=max_chars,
                                                     ref=ref, depth=depth, diff=diff))

    @server.tool(description=(
        "Act on a page element by its snapshot ref. kind: " + mcp_summary() + ". Fields without a "
        "parameter of their own go in options. mode 'visible' (default) scrolls the element into view and uses the real "
        "pointer and keyboard of the desktop: " + VISIBLE + " mode 'cdp' sends input through the "
        "browser's DevTools protocol: HEADLESS, not shown as pointer movement. Answers what happened "
        "(navigation, dialog); snapshot=true adds a fresh snapshot. A 409 means the ref is stale: "
        "take a new snapshot."))
    @with_model_parameters(ACT)
    async def browser_act(
            # No route field: the rest of POST /act's body, passed on as it is (the route checks it).
            options: Annotated[JsonObject | None,
                               Field(description="Every other field of POST /act (e.g. wait's text_gone, "
                                                 "evaluate's function)")] = None,
            **fields: JsonValue,
    ) -> ObjectAnswer:
        body: JsonObject = {name: value for name, value in fields.items() if value is not None}
        body.update(options or {})
        return json_answer(await answer(backends.client.act(body)))

    @server.tool(description=(
        "The browser's tabs. action: list (default), open (url), focus (tab), close (tab). Opening "
        "and focusing change the browser window: " + VISIBLE))
    @with_model_parameters(OPEN_TAB)
    async def browser_tabs(
            # No route field: it picks the route (GET /tabs, POST /tabs, .../activate, DELETE).
            action: Literal["list", "open", "focus", "close"] = "list",
            # No route field: the id in the path of /tabs/{tab_id}/activate and DELETE /tabs/{tab_id}.
            tab: Annotated[str | None, Field(description="Tab id, for focus and close")] = None,
            url: str | None = None,
    ) -> ListOrObjectAnswer:
        client = backends.client
        if action == "list":
            return json_answer(await answer(client.tabs()), under_result=True)
        if action == "open":
            return json_answer(await answer(client.open_tab(url or "about:blank")), under_result=True)
        if not tab:
            raise ValueError(f"{action} needs the tab's id (see action=list)")
        if action == "focus":
            return json_answer(await answer(client.activate_tab(tab)), under_result=True)
        return json_answer(await answer(client.close_tab(tab)), under_result=True)

    @server.tool(description=(
        "Load a URL in a tab (default: the tab in front), or go back, forward or reload (go=...), and "
        "wait for the load. " + VISIBLE + " Take a new snapshot afterwards: refs of the old page are "
        "refused."))
    @with_model_parameters(NAVIGATE_URL, HISTORY_TAB)
    async def browser_navigate(
            url: str | None = None,
            # No route field: it picks POST /back, /forward or /reload instead of the navigation.
            go: Annotated[History | None, Field(description="Instead of a URL: a history step or a reload")] = None,
            tab: str | None = None,
    ) -> ObjectAnswer:
        if go is not None:
            return json_answer(await answer(backends.client.history(go, tab=tab or None)))
        if not url:
            raise ValueError("navigate needs a url, or go=back|forward|reload")
        tab_id = tab or await _front_tab(backends)
        return json_answer(await answer(backends.client.navigate(tab_id, url)))

    @server.tool(description=(
        "Run Python Playwright code (async API) against the live browser, with `page` (the tab), "
        "`context` and `browser` bound; `return` a JSON value. A single expression is returned as it "
        "is: `await page.title()`. Default timeout 60 s, at most 300. Locals do not persist between "
        "calls; the browser does. Failures come back as content (error, stderr) so you can fix the "
        "code. Playwright input is sent through CDP: HEADLESS, but the visible browser's page "
        "changes; no screenshot is returned."))
    @with_model_parameters(PLAYWRIGHT)
    async def browser_playwright(code: str, timeout_s: float | None = None, tab: str | None = None) -> ObjectAnswer:
        return json_answer(await answer(backends.client.playwright(code, timeout_s=timeout_s, tab=tab)))

    # The desktop_* tools call desktopd's routes, whose models the sidecar may not import
    # (tests/architecture/test_boundaries.py): their parameters are declared here, by hand.
    @server.tool(structured_output=False, description=(
        "A screenshot of the whole desktop (what the operator sees), as an image; max_width scales "
        "it down. Coordinates for desktop_click are screen pixels of the full-size screen, which "
        "the answer's text gives. " + READ_ONLY))
    async def desktop_screenshot(
            max_width: Annotated[int | None, Field(description="Fit into this width", ge=16, le=16384)] = 1280,
    ) -> list[Image | str]:
        shot = await answer(backends.client.screenshot("png", max_width=max_width))
        size = f"{shot.screen_size[0]}x{shot.screen_size[1]}"
        return [Image(data=shot.data, format="png"),
                f"screen {size} pixels; image scale {shot.scale:g} (screen = image / scale)"]

    @server.tool(description="Click at a point of the screen (screen pixels). " + VISIBLE)
    async def desktop_click(
            x: int, y: int,
            button: Literal["left", "middle", "right"] = "left",
            double: bool = False,
    ) -> ObjectAnswer:
        return json_answer(await answer(backends.client.click(x, y, button=button, clicks=2 if double else 1)))

    @server.tool(description="Type text into whatever has the keyboard focus (any Unicode). " + VISIBLE)
    async def desktop_type(text: str) -> str:
        await answer(backends.client.type_text(text))
        return f"typed {len(text)} characters"

    @server.tool(description=(
        "Press a key or combination, xdotool names: Return, ctrl+a, alt+Tab, ctrl+shift+t. " + VISIBLE))
    async def desktop_key(keys: str) -> str:
        await answer(backends.client.keys(keys))
        return f"pressed {keys}"

    @server.tool(description=(
        "Scroll the wheel at a point of the screen: dy clicks down (>0) or up (<0), dx right or "
        "left. " + VISIBLE))
    async def desktop_scroll(x: int, y: int, dy: int = 3, dx: int = 0) -> ObjectAnswer:
        return json_answer(await answer(backends.client.scroll(x, y, dx=dx, dy=dy)))

    @server.tool(description=(
        "The desktop's top-level windows: id, title, class, geometry in screen pixels, focused. "
        + READ_ONLY))
    async def desktop_windows() -> ObjectAnswer:
        return json_answer(await answer(backends.client.tree()))

    register_vision_tools(server, backends)
    return server


async def _front_tab(backends: Backends) -> str:
    tabs = await answer(backends.client.tabs())
    if not tabs:
        raise ValueError("the browser has no tab")
    return next((t["id"] for t in tabs if t.get("visible")), tabs[0]["id"])
