"""The act kinds beyond click and fill, in both modes: hover, drag, press, type slowly, select,
wait, resize, and a fresh snapshot in the answer."""

from __future__ import annotations

import time

import pytest

from testbed.agent_stack import Stack, start_stack
from testbed.pages import PageServer

from .agent import Agent

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


def _log_has(agent: Agent, entry: str) -> list[str]:
    log: list[str] = []
    for _ in range(40):
        log = agent.act("evaluate", function="() => window.__log", mode="cdp")["result"]
        if entry in log:
            break
        time.sleep(0.05)
    return log


@pytest.mark.parametrize("mode", ["visible", "cdp"])
def test_kinds(stack: Stack, pages: PageServer, mode: str) -> None:
    agent = Agent(stack.url, mode=mode)
    agent.post("/tabs/" + agent.get("/tabs")[0]["id"] + "/navigate", {"url": pages.url("kinds.html")})
    text = agent.wait_for_text('"Hover me"')
    assert agent.act("wait", text="Late text", timeout=5)["waited"] == {"text": "Late text"}
    with_snapshot = agent.act("hover", ref=agent.ref("button", "Hover me", text), snapshot=True)
    assert "Late text" in with_snapshot["snapshot"]
    assert "hover" in _log_has(agent, "hover")
    agent.act("drag", ref=agent.ref("button", "Source", text), to_ref=agent.ref("button", "Target", text))
    assert "dropped" in _log_has(agent, "dropped")
    keys = agent.ref("textbox", "Keys", text)
    agent.act("type", ref=keys, text="ab", slowly=True)
    agent.act("press", ref=keys, key="Control+a")
    log = _log_has(agent, "key:ctrl+a")
    assert "key:a" in log and "key:b" in log and "key:ctrl+a" in log, log
    chosen = agent.act("select", ref=agent.ref("listbox", "Color", text), values=["Green", "b"])
    assert chosen["selected"] == ["g", "b"]
    assert "color:g,b" in _log_has(agent, "color:g,b")
    refused = agent.act("wait", text="never there", timeout=0.5, expect=408)
    assert refused["error"] == "wait_timeout"


def test_a_wait_longer_than_the_act_budget_answers_its_own_408(pages: PageServer, tmp_path) -> None:
    """An act counts as hung after three CDP call budgets (here 3 x 0.5 s), but a wait the caller
    allowed longer runs its whole budget and answers wait_timeout, not act_timeout (a 60 s wait
    was cut off at 30 s with a 504)."""
    stack = start_stack(tmp_path, pages.url("form.html"), sidecar_args=["--cdp-timeout", "0.5"],
                        with_desktopd=False)
    try:
        agent = Agent(stack.url, mode="cdp")
        agent.wait_for_text("Sign up")
        refused = agent.act("wait", text="never there", timeout=3, expect=408)
        assert refused["error"] == "wait_timeout", refused
        refused = agent.act("wait", time=1, text="never there", timeout=1.5, expect=408)
        assert refused["error"] == "wait_timeout"
    finally:
        stack.stop()
