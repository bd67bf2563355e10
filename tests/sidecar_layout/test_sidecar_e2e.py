"""The issue's "done": `python -m sidecar URL` on a fresh Xvfb plus desktopd; a client finds
elements by role and name over HTTP and clicks them; responses validate against the schema."""

from __future__ import annotations

import asyncio

import pytest

from testbed.capability import require

from .harness import sidecar_and_desktopd
from .schema import validate_layout

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

TARGETS = [("button", "Rotated", "b-rot"), ("button", "cross Two", "cross-f-two"),
           ("button", "same Three", "same-f-three"), ("button", "Fixed", "b-fixed"),
           ("button", "Bottom", "b-bottom")]


def _jsonschema_available() -> bool:
    try:
        import jsonschema  # noqa: F401
    except ImportError:
        return False
    return True


async def test_find_by_role_and_name_then_click_through_desktopd(need_browser, page_server, tmp_path):
    require(_jsonschema_available(), "jsonschema (pip install -e .[test])")
    async with sidecar_and_desktopd(tmp_path, page_server.url("main.html")) as (sidecar, desktopd, session):
        for query in ({}, {"interesting": "true"}, {"roles": "button,link"}, {"max_nodes": "7"}):
            status, body = await sidecar.get(session, "/layout", **query)
            assert status == 200, body
            validate_layout(body)
        assert body["tabs"][0]["layout"]["truncated"] is True
        for role, name, element_id in TARGETS:
            node = None
            scrolled_to, still = None, 0
            for _ in range(100):    # the OOPIF attaches shortly after the page loads
                status, body = await sidecar.get(session, "/layout", roles=role)
                assert status == 200, body
                tab = body["tabs"][0]
                assert "nodes" in tab["layout"], (tab["layout"], tab.get("error"))
                matches = [n for n in tab["layout"]["nodes"] if n["name"]["value"] == name]
                # Wheel scrolling is animated, and an animation can pause for a frame: click
                # once the scroll position held still over three reads (>= 100 ms).
                visual = tab["layout"]["viewport"]["visualViewport"]
                position = (visual["pageX"], visual["pageY"])
                still = still + 1 if position == scrolled_to else 0
                scrolled_to = position
                if matches and matches[0]["fullyVisible"] and still >= 2:
                    node = matches[0]
                    break
                if matches and matches[0]["fullyVisible"]:
                    await asyncio.sleep(0.05)
                    continue
                if matches:     # scroll it into view the way a user would: the wheel
                    await desktopd.post("/api/v1/tablet", {
                        "action": "scroll", "x": 400, "y": 400,
                        "dy": 3 if matches[0]["viewport"]["borderBox"]["y"] > 0 else -3})
                await asyncio.sleep(0.05)
            assert node is not None, f"no fully visible {role} named {name!r}"
            await desktopd.tap(node["screen"]["center"]["x"], node["screen"]["center"]["y"])
            assert await sidecar.title_once(session, f"clicked {element_id}", tab=tab["id"]) == \
                f"clicked {element_id}"
        status, body = await sidecar.get(session, "/layout", max_nodes="0")
        assert status == 422 and body["field"] == "max_nodes", body
        status, body = await sidecar.get(session, "/layout", tab="nope")
        assert status == 404 and body["field"] == "tab", body
        status, body = await sidecar.get(session, "/layout", fresh="always")
        assert status == 422 and body["field"] == "fresh" and body["error"] == "invalid_field", body
        status, body = await sidecar.get(session, "/layout", fresh="true")     # a full read
        assert status == 200, body
        validate_layout(body)
