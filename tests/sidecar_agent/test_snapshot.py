"""GET /snapshot's contract: refs on actionable and named elements, stable while the element
lives, refused (409 stale_ref) once it or its document is gone; the size budget with its marker;
interactive, depth, ref scoping, diff per client; counts in headers and JSON; 4xx naming the
field."""

from __future__ import annotations

import pytest
import requests

from testbed.agent_stack import Stack
from testbed.pages import PageServer

from .agent import Agent

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


def _open(agent: Agent, url: str, wait_for: str, **params: str) -> str:
    agent.post("/tabs/" + agent.get("/tabs")[0]["id"] + "/navigate", {"url": url})
    return agent.wait_for_text(wait_for, **params)


def test_refs_are_stable_and_bound_to_their_element(stack: Stack, pages: PageServer) -> None:
    agent = Agent(stack.url, mode="cdp")
    first = _open(agent, pages.url("tools.html"), '"Remove me"')
    assert 'heading "Tools" [ref=' in first and 'link "Next page" [ref=' in first, first
    assert "url=" in first                                  # links carry their URL
    gone = agent.ref("button", "Remove me")
    grow = agent.ref("button", "Grow")
    agent.act("click", ref=grow)                            # the page changes elsewhere...
    second = agent.snapshot()
    assert agent.ref("button", "Remove me", second) == gone  # ...the same element, the same ref
    assert second.count('text: "more"') == 1

    agent.act("click", ref=gone)                            # the button removes itself
    refused = agent.act("click", ref=gone, expect=409)
    assert refused["error"] == "stale_ref" and refused["field"] == "ref"

    link = agent.ref("link", "Next page")
    agent.act("click", ref=link)
    agent.wait_for_text("Thank you")
    refused = agent.act("click", ref=grow, expect=409)     # a ref of the document before
    assert refused["error"] == "stale_ref" and "new snapshot" in refused["detail"]
    never = agent.act("click", ref="e99999", expect=404)
    assert never["error"] == "unknown_ref"


def test_size_budget_and_views(stack: Stack, pages: PageServer) -> None:
    agent = Agent(stack.url, client="views")
    full = _open(agent, pages.url("big.html"), "Button 399-4", max_chars="2000000")
    default = agent.snapshot()
    assert "truncated at max_chars=40000" in default and len(default) < 40_500
    response = agent.http.get(stack.url + "/snapshot", params={"max_chars": 2000}, timeout=30)
    assert response.headers["X-Snapshot-Truncated"] == "true"
    assert len(response.text) < 2200
    assert "truncated at max_chars=2000" in response.text and "interactive=true" in response.text
    assert int(response.headers["X-Snapshot-Refs"]) < full.count("[ref=")

    interactive = agent.snapshot(interactive="true")
    assert "Some text in section" not in interactive and 'button "Button 3-2"' in interactive
    assert 'heading "Section 3"' not in interactive

    section = agent.ref("heading", "Section 7", full)
    scoped = agent.snapshot(ref=section)
    assert scoped.count("[ref=") == 1 and 'heading "Section 7"' in scoped

    data = agent.get("/snapshot", format="json", max_chars=3000)
    assert data["truncated"] is True and data["refs"] > 0 and data["chars"] <= 3000
    button = next(n for n in data["tree"] if n["role"] == "button")
    assert {"ref", "name", "screen"} <= button.keys()
    assert button["screen"]["center"]["x"] >= 0


def test_diff_mode_per_client(stack: Stack, pages: PageServer) -> None:
    one, two = Agent(stack.url, mode="cdp", client="one"), Agent(stack.url, client="two")
    _open(one, pages.url("host.html"), '"Name"')
    full = one.snapshot()
    shallow = one.snapshot(depth=1)                          # the iframe's document not shown
    assert "- iframe" in shallow and "below]" in shallow and "\n  - " not in shallow, shallow
    again = one.snapshot(diff="true")
    assert "[unchanged]" in again and len(again) < len(full)
    first_for_two = two.snapshot(diff="true")                # no previous snapshot of its own
    assert "[unchanged]" not in first_for_two
    one.act("type", ref=one.ref("textbox", "Name", full), text="changed")
    after = one.snapshot(diff="true")
    assert '"changed"' in after                              # the changed subtree is printed


def test_bad_input_names_the_field(stack: Stack) -> None:
    for params, field in (({"max_chars": "x"}, "max_chars"), ({"ref": "button1"}, "ref"),
                          ({"format": "yaml"}, "format"), ({"tab": "FFFF"}, "tab")):
        response = requests.get(stack.url + "/snapshot", params=params, timeout=30)
        assert response.status_code in (404, 422), response.text
        assert response.json()["field"] == field
    for body, field in (({"kind": "jump"}, "kind"), ({"kind": "click"}, "ref"),
                        ({"kind": "press", "key": "Hyper+q"}, "key"),
                        ({"kind": "click", "ref": "e1", "mode": "x"}, "mode"),
                        ({"kind": "fill", "fields": [{"ref": "e1"}]}, "fields[0].value")):
        response = requests.post(stack.url + "/act", json=body, timeout=30)
        assert response.status_code == 422, response.text
        assert response.json()["field"] == field
    spec = requests.get(stack.url + "/openapi.json", timeout=30).json()
    for path in ("/snapshot", "/act", "/console", "/errors", "/requests", "/pdf", "/screenshot",
                 "/downloads", "/hooks/dialog", "/hooks/file-chooser", "/back", "/forward", "/reload"):
        assert path in spec["paths"], path
