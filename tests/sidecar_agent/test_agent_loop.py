"""The issue's "done means": an agent loop written from docs/agent.md alone (snapshot, pick a ref
by name, act, snapshot again) fills and submits a multi-step form with a dialog and a file
upload, in the main page and in a cross-origin iframe, in visible mode (desktopd's real pointer
and keyboard); a ref of the old document is refused afterwards."""

from __future__ import annotations

import pytest

from testbed.agent_stack import Stack
from testbed.pages import PageServer

from .agent import Agent

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

TRUSTED_CLICKS = "(el) => el.ownerDocument.defaultView.__events.filter(e => e.type === 'click')"


def fill_and_submit(agent: Agent, tmp_path, *, arm_first: bool) -> None:
    attachment = tmp_path / "notes.txt"
    attachment.write_text("hello from the agent")
    agent.snapshot()
    agent.act("type", ref=agent.ref("textbox", "Name"), text="Ada Lovelace")
    agent.act("type", ref=agent.ref("textbox", "Email"), text="ada@example.org")
    agent.act("fill", fields=[{"ref": agent.ref("checkbox", "Subscribe"), "value": True},
                              {"ref": agent.ref("combobox", "Plan"), "value": "Pro"}])
    agent.act("click", ref=agent.ref("button", "Next"))

    agent.wait_for_text('"Confirm"')
    upload = agent.ref("button", "Attachment")
    if arm_first:
        agent.post("/hooks/file-chooser", {"paths": [str(attachment)]})
        done = agent.act("click", ref=upload)
        assert done["file_chooser"]["paths"] == [str(attachment)], done
    else:
        done = agent.act("click", ref=upload)
        assert done["modal_state"]["kind"] == "file_chooser", done
        # While the chooser waits, acts are refused with the modal state, never left hanging.
        refused = agent.act("click", ref=agent.ref("button", "Confirm"), expect=409)
        assert refused["error"] == "modal_state"
        agent.post("/hooks/file-chooser", {"paths": [str(attachment)]})
    agent.act("fill", fields=[{"ref": agent.ref("radio", "By phone"), "value": True}])
    clicks = agent.act("evaluate", ref=agent.ref("button", "Confirm"), function=TRUSTED_CLICKS)["result"]
    assert clicks and all(c["trusted"] for c in clicks), clicks      # real input, not script

    confirm = agent.ref("button", "Confirm")
    if arm_first:
        agent.post("/hooks/dialog", {"accept": True})
        done = agent.act("click", ref=confirm)
        assert done["dialog"]["message"] == "Send the form?", done
    else:
        done = agent.act("click", ref=confirm)
        assert done["modal_state"]["kind"] == "dialog", done
        assert done["modal_state"]["message"] == "Send the form?"
        assert "modal state: dialog" in agent.snapshot()
        agent.post("/hooks/dialog", {"accept": True})

    text = agent.wait_for_text("Thank you")
    for line in ("name=Ada Lovelace", "email=ada@example.org", "subscribe=yes", "plan=pro",
                 "contact=phone", "attachment_text=notes.txt:hello from the agent"):
        assert line in text, text
    # The old document's refs are refused: never a click on some other element.
    stale = agent.act("click", ref=confirm, expect=409)
    assert stale["error"] == "stale_ref" and "new snapshot" in stale["detail"], stale


def test_form_in_the_main_page(stack: Stack, pages: PageServer, tmp_path) -> None:
    agent = Agent(stack.url)
    agent.post("/tabs/" + agent.get("/tabs")[0]["id"] + "/navigate", {"url": pages.url("form.html")})
    fill_and_submit(agent, tmp_path, arm_first=False)


def test_form_in_a_cross_origin_iframe(stack: Stack, pages: PageServer, tmp_path) -> None:
    agent = Agent(stack.url)
    agent.post("/tabs/" + agent.get("/tabs")[0]["id"] + "/navigate", {"url": pages.url("host.html")})
    text = agent.wait_for_text('"Name"')
    iframe_line = next(line for line in text.splitlines() if line.lstrip().startswith("- iframe"))
    assert 'textbox "Name" [ref=f' in text, text          # frame refs carry their frame's prefix
    assert iframe_line, text
    fill_and_submit(agent, tmp_path, arm_first=True)
