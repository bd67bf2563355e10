"""The agent routes' handlers and their rows of the sidecar's route table (sidecar/server/routes.py
adds AGENT_ROUTES to ROUTES, so each is in the OpenAPI document with its model)."""

from __future__ import annotations

from aiohttp import web

from httpapi.routing import BodyHandler, ErrorOptions, Route, with_body, with_query

from . import app_keys as keys
from ..cdp.connection import CDPConnection
from ..cdp.targets import PageTarget, TargetTracker
from ..layout import LayoutService
from ..agent import browser_tools as tools
from ..agent.act import run_act, settle
from ..agent.act_kind import ActBody
from ..agent.gestures import ActContext
from ..agent.kinds import KINDS
from ..agent.agent_requests import (ACT_BODY, CONSOLE_QUERY, DIALOG_HOOK_BODY, FILE_CHOOSER_HOOK_BODY, HISTORY_BODY,
                     PDF_BODY, REQUESTS_QUERY, SCREENSHOT_QUERY, SNAPSHOT_QUERY, TAB_QUERY, ConsoleQuery,
                     DialogHookBody, ElementScreenshotQuery, FileChooserHookBody, HistoryBody, PdfBody, RequestsQuery,
                     SnapshotQuery, TabQuery)
from ..agent.tree_text import RenderOptions
from ..agent.session import AgentSession
from ..agent.page_snapshot import pick_tab, take_snapshot

CLIENT_HEADER = "X-Agent-Client"
DEFAULT_CLIENT = "default"


class Agent:
    """What one request needs, from the app's current Chromium connection."""

    def __init__(self, request: web.Request) -> None:
        live = request.app[keys.SUPERVISOR].current()
        self.conn: CDPConnection = live.conn
        self.tracker: TargetTracker = live.tracker
        self.layout: LayoutService = live.layout
        self.session: AgentSession = live.agent
        self.health = live.tab_health
        self.settings = request.app[keys.SETTINGS]
        self.desktopd = request.app[keys.DESKTOPD]

    @property
    def timeout(self) -> float:
        return self.settings.cdp_timeout

    async def tab(self, tab: str | None) -> PageTarget:
        return await pick_tab(self.tracker, tab)

    def act_context(self, page: PageTarget, mode: str, *, visible: bool = True) -> ActContext:
        """An act's context on ``page``; ``visible=False`` for work that never moves the pointer."""
        return ActContext(conn=self.conn, tracker=self.tracker, layout=self.layout, agent=self.session,
                          health=self.health, page=page, mode=mode, timeout=self.timeout,
                          desktopd=self.desktopd if visible else None,
                          evaluate_allowed=self.settings.agent_evaluate if visible else False)


async def snapshot(request: web.Request, params: SnapshotQuery) -> web.Response:
    agent = Agent(request)
    page = await agent.tab(params["tab"])
    client = params["client"] or request.headers.get(CLIENT_HEADER) or DEFAULT_CLIENT
    options = RenderOptions(max_chars=params["max_chars"], interactive=params["interactive"],
                            depth=params["depth"], diff=params["diff"])
    shot = await take_snapshot(agent.layout, agent.session, agent.health, page, options,
                               client[:128], params["ref"], agent.timeout, agent.tracker)
    r = shot.rendered
    headers = {"X-Snapshot-Refs": str(r.refs), "X-Snapshot-Nodes": str(r.nodes),
               "X-Snapshot-Chars": str(len(r.text)), "X-Snapshot-Truncated": str(r.truncated).lower()}
    if params["format"] == "json":
        body: dict[str, object] = {"tab": page.target_id, "url": shot.url, "title": shot.title,
                                "refs": r.refs, "nodes": r.nodes, "total_nodes": r.total_nodes,
                                "chars": len(r.text), "truncated": r.truncated, "unchanged": r.unchanged,
                                "modal_state": shot.modal, "navigation_pending": shot.navigation_pending,
                                "tree": r.tree}
        return web.json_response(body, headers=headers)
    head = f"- page: {shot.url}\n- title: {shot.title}\n- tab: {page.target_id}\n"
    return web.Response(text=head + r.text + "\n", headers=headers, content_type="text/plain",
                        charset="utf-8")


async def act(request: web.Request, body: ActBody) -> web.Response:
    agent = Agent(request)
    page = await agent.tab(body["tab"])
    ctx = agent.act_context(page, body["mode"])
    result = await run_act(ctx, body)
    if body["snapshot"] and body["kind"] != "close" and "modal_state" not in result:
        shot = await take_snapshot(agent.layout, agent.session, agent.health, page,
                                   RenderOptions(), request.headers.get(CLIENT_HEADER) or DEFAULT_CLIENT,
                                   None, agent.timeout, agent.tracker)
        result["snapshot"] = shot.rendered.text
    return web.json_response(result)


def _history(step: int | None) -> BodyHandler[HistoryBody]:
    async def handler(request: web.Request, body: HistoryBody) -> web.Response:
        agent = Agent(request)
        page = await agent.tab(body["tab"])
        if step is None:
            await agent.tracker.reload(page, agent.timeout)
            result: tools.HistoryMove = {"url": page.url}
        else:
            result = await tools.go_history(agent.tracker, page, step, agent.timeout)
        ctx = agent.act_context(page, "cdp", visible=False)
        await settle(ctx, agent.session.events(page.target_id), body["timeout"] or 10.0)
        return web.json_response({"tab": page.target_id, **result, "url": page.url})
    return with_body(HISTORY_BODY, handler, optional=True)


async def console(request: web.Request, params: ConsoleQuery) -> web.Response:
    agent = Agent(request)
    page = await agent.tab(params["tab"])
    return web.json_response({"tab": page.target_id, **tools.console(
        agent.session.events(page.target_id), params["level"], params["limit"])})


async def page_errors(request: web.Request, params: TabQuery) -> web.Response:
    agent = Agent(request)
    page = await agent.tab(params["tab"])
    return web.json_response({"tab": page.target_id,
                              "errors": list(agent.session.events(page.target_id).errors)})


async def network(request: web.Request, params: RequestsQuery) -> web.Response:
    agent = Agent(request)
    page = await agent.tab(params["tab"])
    return web.json_response({"tab": page.target_id, **tools.requests(
        agent.session.events(page.target_id), params["limit"], params["failed"])})


async def pdf(request: web.Request, body: PdfBody) -> web.Response:
    agent = Agent(request)
    page = await agent.tab(body["tab"])
    data = await tools.pdf(page, body["landscape"], body["print_background"], agent.timeout)
    return web.Response(body=data, content_type="application/pdf")


async def screenshot(request: web.Request, params: ElementScreenshotQuery) -> web.Response:
    agent = Agent(request)
    page = await agent.tab(params["tab"])
    data = await tools.screenshot(agent.layout, agent.session, agent.health, page,
                                  params["ref"], params["full_page"], agent.timeout)
    return web.Response(body=data, content_type="image/png")


async def downloads(request: web.Request) -> web.Response:
    agent = Agent(request)
    return web.json_response({"directory": agent.session.config.downloads_dir,
                              "downloads": [{"guid": guid, **entry} for guid, entry
                                            in agent.session.downloads.items()]})


async def dialog_hook(request: web.Request, body: DialogHookBody) -> web.Response:
    agent = Agent(request)
    page = await agent.tab(body["tab"])
    return web.json_response({"tab": page.target_id, **await tools.arm_dialog(
        agent.session, page, body["accept"], body["prompt_text"])})


async def file_chooser_hook(request: web.Request, body: FileChooserHookBody) -> web.Response:
    agent = Agent(request)
    page = await agent.tab(body["tab"])
    return web.json_response({"tab": page.target_id, **await tools.arm_file_chooser(
        agent.session, page, body["paths"])})


TEXT = {"text/plain": {"schema": {"type": "string"}}, "application/json": {"schema": {"type": "object"}}}
PNG = {"image/png": {"schema": {"type": "string", "format": "binary"}}}
PDF = {"application/pdf": {"schema": {"type": "string", "format": "binary"}}}
_ERR: ErrorOptions = dict(not_found=True, extra_errors=(409, 502, 504))
AGENT_ROUTES: list[Route] = [
    Route("GET", "/snapshot", with_query(SNAPSHOT_QUERY, snapshot),
          "The tab as an agent reads it: roles, names, refs", "agent",
          success=TEXT, **_ERR,
          success_headers={"X-Snapshot-Refs": "Refs in the answer", "X-Snapshot-Nodes": "Nodes shown",
                           "X-Snapshot-Chars": "Characters of the text",
                           "X-Snapshot-Truncated": "true when max_chars cut it"},
          description="Text (`- role \"name\" [ref=e1] [states]: value`) or format=json. Refs stay "
                      "the same while their element lives; after a navigation acting on an old one "
                      "is a 409 stale_ref. See docs/agent.md."),
    Route("POST", "/act", with_body(ACT_BODY, act), "Act on an element by ref: " + ", ".join(KINDS), "agent",
          extra_errors=(403, 408, 409, 502, 504), not_found=True,
          description="mode=visible (default) uses the real pointer and keyboard through desktopd; "
                      "mode=cdp uses CDP input. 409 stale_ref for a ref of a gone element or "
                      "document, 409 modal_state while a dialog or file chooser waits; on Wayland (Sway) "
                      "409 screen_bounds_not_exact or pointer_not_confirmed rather than a visible "
                      "act at a point that would miss (docs/sway.md)."),
    Route("POST", "/back", _history(-1), "Go back one history entry", "agent", **_ERR),
    Route("POST", "/forward", _history(1), "Go forward one history entry", "agent", **_ERR),
    Route("POST", "/reload", _history(None), "Reload the tab", "agent", **_ERR),
    Route("GET", "/console", with_query(CONSOLE_QUERY, console),
          "The tab's console messages (this level and above)", "agent",
          **_ERR),
    Route("GET", "/errors", with_query(TAB_QUERY, page_errors),
          "The tab's uncaught page errors", "agent", **_ERR),
    Route("GET", "/requests", with_query(REQUESTS_QUERY, network),
          "The tab's network requests: URL, method, status", "agent",
          **_ERR),
    Route("POST", "/pdf", with_body(PDF_BODY, pdf, optional=True), "The tab printed to PDF", "agent",
          success=PDF, **_ERR),
    Route("GET", "/screenshot", with_query(SCREENSHOT_QUERY, screenshot),
          "PNG of the tab's viewport, whole page, or one element by ref",
          "agent", success=PNG,
          description="409 tab_hidden for a tab behind another in its window: Chromium draws no "
                      "frames for it; bring it to the front (POST /tabs/{id}/activate) first.", **_ERR),
    Route("GET", "/downloads", downloads, "Downloads and the paths they were saved at", "agent"),
    Route("POST", "/hooks/dialog", with_body(DIALOG_HOOK_BODY, dialog_hook, optional=True),
          "Answer the open JavaScript dialog, or arm an answer "
          "for the next", "agent", **_ERR),
    Route("POST", "/hooks/file-chooser", with_body(FILE_CHOOSER_HOOK_BODY, file_chooser_hook),
          "Give files to the open file chooser, or "
          "arm them for the next", "agent", **_ERR),
]
