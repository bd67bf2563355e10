"""The browser's tools beside the act: history, console by level, page errors, requests, PDF,
screenshots of the page and of an element by ref, downloads with their paths; and a sidecar
without desktopd or with evaluate switched off says so."""

from __future__ import annotations

import io
import time
from collections.abc import Iterator

import pytest
from PIL import Image

from testbed.agent_stack import Stack, start_stack
from testbed.capability import chromium_path, have_program, require
from testbed.pages import PageServer

from .agent import Agent

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


def _open(agent: Agent, url: str, wait_for: str) -> str:
    agent.post("/tabs/" + agent.get("/tabs")[0]["id"] + "/navigate", {"url": url})
    return agent.wait_for_text(wait_for)


def _until(check, attempts: int = 50):  # type: ignore[no-untyped-def]
    for _ in range(attempts):
        value = check()
        if value:
            return value
        time.sleep(0.1)
    return check()


def test_console_errors_requests(stack: Stack, pages: PageServer) -> None:
    agent = Agent(stack.url, mode="cdp")
    _open(agent, pages.url("tools.html"), '"Boom"')
    texts = _until(lambda: [m["text"] for m in agent.get("/console", level="debug")["messages"]
                            if m["text"].endswith(" line")])
    assert texts == ["debug line", "log line", "warn line", "error line"], texts
    errors_only = [m["text"] for m in agent.get("/console", level="error")["messages"]]
    assert "error line" in errors_only and "warn line" not in errors_only

    agent.act("click", ref=agent.ref("button", "Boom"))
    errors = _until(lambda: agent.get("/errors")["errors"])
    assert any("boom 42" in e["message"] for e in errors), errors

    failed = _until(lambda: [r for r in agent.get("/requests", failed="true")["requests"]
                             if r["url"].endswith("/missing.json")])
    assert failed and failed[0]["status"] == 404, agent.get("/requests")
    assert failed[0]["method"] == "GET" and failed[0]["type"] == "Fetch"


def test_pdf_screenshots_downloads(stack: Stack, pages: PageServer) -> None:
    agent = Agent(stack.url, mode="cdp")
    text = _open(agent, pages.url("tools.html"), '"Boom"')
    response = agent.http.post(stack.url + "/pdf", json={}, timeout=60)
    assert response.status_code == 200 and response.content.startswith(b"%PDF-")

    page = Image.open(io.BytesIO(agent.get("/screenshot")))
    button = Image.open(io.BytesIO(agent.get("/screenshot", ref=agent.ref("button", "Boom", text))))
    assert button.width < page.width / 4 and 10 < button.height < 60, (button.size, page.size)

    # A tab behind another draws nothing: its capture is refused at once (it hung for 30 s on
    # every other call), and works again once the tab is in front.
    first = agent.get("/tabs")[0]["id"]
    second = agent.post("/tabs", {"url": "about:blank"}, expect=201)["id"]
    hidden = agent.http.get(stack.url + "/screenshot", params={"tab": first, "full_page": "true"}, timeout=60)
    assert hidden.status_code == 409 and hidden.json()["error"] == "tab_hidden", hidden.text
    agent.post(f"/tabs/{first}/activate", {})
    assert Image.open(io.BytesIO(agent.get("/screenshot", tab=first))).size == page.size
    assert agent.http.delete(f"{stack.url}/tabs/{second}", timeout=30).status_code == 200

    agent.act("click", ref=agent.ref("link", "Download notes", text))
    done = _until(lambda: [d for d in agent.get("/downloads")["downloads"] if d["state"] == "completed"])
    assert done[0]["suggested_filename"] == "notes.txt"
    with open(done[0]["path"], encoding="utf-8") as saved:
        assert saved.read() == "hello download\n"


def test_history(stack: Stack, pages: PageServer) -> None:
    agent = Agent(stack.url, mode="cdp")
    _open(agent, pages.url("tools.html"), '"Boom"')
    agent.act("click", ref=agent.ref("link", "Next page"))
    assert "Thank you" in agent.snapshot()
    back = agent.post("/back", {})
    assert back["url"].endswith("/tools.html")
    assert '"Boom"' in agent.wait_for_text('"Boom"')
    assert agent.post("/forward", {})["url"].endswith("from=tools")
    agent.wait_for_text("Thank you")
    assert agent.post("/reload", {})["url"].endswith("from=tools")
    assert agent.post("/forward", {}, expect=409)["error"] == "no_history"


@pytest.fixture
def bare_stack(pages: PageServer, tmp_path) -> Iterator[Stack]:
    require(chromium_path() is not None, "Chromium")
    require(have_program("Xvfb"), "Xvfb")
    running = start_stack(tmp_path, pages.url("tools.html"), with_desktopd=False,
                          sidecar_args=["--no-agent-evaluate"])
    try:
        yield running
    finally:
        running.stop()


def test_without_desktopd_and_evaluate(bare_stack: Stack) -> None:
    agent = Agent(bare_stack.url)
    text = agent.wait_for_text('"Boom"')
    refused = agent.act("click", ref=agent.ref("button", "Boom", text), expect=409)
    assert refused["error"] == "visible_mode_unavailable" and "SIDECAR_DESKTOPD_URL" in refused["detail"]
    assert agent.act("click", ref=agent.ref("button", "Boom", text), mode="cdp")["mode"] == "cdp"
    refused = agent.act("evaluate", function="() => 1", mode="cdp", expect=403)
    assert refused["error"] == "evaluate_disabled"
    refused = agent.act("close", mode="cdp", expect=409)      # the only tab stays
    assert refused["error"] == "last_tab"
