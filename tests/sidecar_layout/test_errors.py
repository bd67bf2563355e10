"""A tab that crashes, closes or navigates mid-request gives a JSON error for that tab (or a
fresh layout), within the timeout; other tabs are still reported; bad parameters are 422/404."""

from __future__ import annotations

import asyncio

import pytest

from httpapi.errors import ApiError
from sidecar.errors import RendererCrashed, TabNotFound
from sidecar.layout import LayoutOptions

from .reference_schema import validate_reference

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


async def _second_tab(chromium, url: str):
    created = await chromium.conn.send("Target.createTarget", {"url": url})
    return await chromium.tracker.wait_for_page(created["targetId"], 20)


async def test_crashed_renderer_is_reported_and_other_tabs_still_work(chromium, page_server):
    first = await chromium.page()
    await chromium.navigate(first, page_server.url("frame.html?name=first"))
    second = await _second_tab(chromium, page_server.url("frame.html?name=second"))
    await chromium.layout()
    with pytest.raises(Exception):
        await second.send("Page.crash", timeout=5)     # never answers: the renderer is gone
    await chromium.tracker.wait_for(lambda: second.crashed, 20)
    body = await asyncio.wait_for(chromium.layout(), 30)
    tabs = {tab["id"]: tab for tab in body["tabs"]}
    assert tabs[first.target_id]["layout"]["nodeCount"] > 0
    # The reference's shape for a failed tab ({"error": message}), our error object beside it.
    assert tabs[second.target_id]["layout"]["code"] == "renderer_crashed"
    assert "crashed" in tabs[second.target_id]["layout"]["error"]
    assert tabs[second.target_id]["error"]["error"] == "renderer_crashed"
    validate_reference(body)
    with pytest.raises(RendererCrashed):
        await chromium.layout(tab=second.target_id[:12])


async def test_tab_closing_or_navigating_mid_request_never_hangs(chromium, page_server):
    first = await chromium.page()
    await chromium.navigate(first, page_server.url("/gen/3000"))
    for _ in range(3):
        second = await _second_tab(chromium, page_server.url("/gen/3000"))
        request = asyncio.ensure_future(chromium.layout())
        await asyncio.sleep(0)                              # let the request start
        await chromium.conn.send("Target.closeTarget", {"targetId": second.target_id})
        body = await asyncio.wait_for(request, 30)
        tabs = {tab["id"]: tab for tab in body["tabs"]}
        assert tabs[first.target_id]["layout"]["nodeCount"] > 0
        closed = tabs.get(second.target_id)
        assert closed is None or "error" not in closed["layout"] or closed["error"]["error"] in (
            "tab_closed", "tab_unresponsive", "layout_unavailable", "tab_changing")
    for path in ("frame.html?name=a", "/gen/2000", "main.html"):
        request = asyncio.ensure_future(chromium.layout(tab=first.target_id))
        await first.send("Page.navigate", {"url": page_server.url(path)})
        try:
            body = await asyncio.wait_for(request, 30)
            assert body["tabs"][0]["layout"]["nodeCount"] > 0
        except ApiError as exc:
            assert exc.status in (404, 409, 503), exc.body()


async def test_bad_parameters_are_rejected_naming_the_field(chromium):
    await chromium.page()
    for query, field in (({"tab": "no-such-tab"}, "tab"), ({"max_nodes": "0"}, "max_nodes"),
                         ({"max_nodes": "ten"}, "max_nodes"), ({"interesting": "maybe"}, "interesting"),
                         ({"roles": ",,"}, "roles"), ({"colour": "red"}, "colour")):
        with pytest.raises((ApiError, TabNotFound)) as raised:
            await chromium.layout_service.build(LayoutOptions.from_query(query))
        assert raised.value.field == field
        assert isinstance(raised.value, TabNotFound) or raised.value.status == 422
