"""Eager refresh: a page's change is captured in the background, so the next /layout is warm,
and it is never stale (a change during or after a refresh is still seen)."""

from __future__ import annotations

import pytest

from sidecar.layout.freshness.refresh import BINDING

from .clicking import NEXT_FRAME_JS

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

RECT_JS = """
(() => { const e = document.getElementById(%r); if (!e) return null;
         const r = e.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()
"""


def _service(chromium):
    return chromium.layout_service


async def _refreshed_after(chromium, page, script: str) -> None:
    """Run ``script`` in the page and wait until the background refresh it causes has ended."""
    async with chromium.conn.events("Runtime.bindingCalled", session_id=page.session_id) as calls:
        await chromium.evaluate(page, "{ %s }" % script)        # a block: its own `const`s
        while True:
            _method, params, _session = await calls.get(timeout=10)
            if params.get("name") == BINDING:
                break
    task = _service(chromium).tab(page.target_id).refresh.task
    assert task is not None, "the page's change notification started no refresh"
    await task
    await _settled(chromium, page)


async def _settled(chromium, page) -> None:
    """Until the page's changes have settled: the probe counts a changed node again two frames
    later (Chromium updates its tree after the DOM), which starts one more background read;
    wait for it, and for a few frames with none running (bounded)."""
    quiet = 0
    for _ in range(40):
        await chromium.evaluate(page, NEXT_FRAME_JS)
        task = _service(chromium).tab(page.target_id).refresh.task
        if task is not None and not task.done():
            await task
            quiet = 0
            continue
        quiet += 1
        if quiet >= 3:
            return


def _by_name(layout: dict, name: str) -> list[dict]:
    """The buttons named ``name`` (their text is a StaticText node of the same name)."""
    return [n for n in layout["tabs"][0]["layout"]["nodes"]
            if n["name"]["value"] == name and n["role"]["value"] == "button"]


async def _assert_box(chromium, page, node: dict, element_id: str) -> None:
    rect = await chromium.evaluate(page, RECT_JS % element_id)
    box = node["viewport"]["borderBox"]
    assert [box["x"], box["y"], box["width"], box["height"]] == pytest.approx(rect, abs=1.0)


async def test_a_change_is_captured_before_it_is_asked_for(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("/gen/300"))
    await chromium.layout()                      # first sight: probe installed, binding added
    await chromium.evaluate(page, NEXT_FRAME_JS)
    await chromium.layout()                      # the binding is in place by now
    state = _service(chromium)
    before = state.tab(page.target_id).refresh.refreshes

    # A new node: captured in the background; the request reuses that capture as it is.
    await _refreshed_after(chromium, page, """
        const b = document.createElement("button"); b.id = "eager"; b.textContent = "Eager new";
        b.style.marginLeft = "40px"; document.body.prepend(b); true""")
    assert state.tab(page.target_id).refresh.refreshes > before
    capture = state.tab(page.target_id).capture
    assert _by_name({"tabs": [{"layout": {"nodes": capture.records}}]}, "Eager new")
    layout = await chromium.layout()
    assert state.tab(page.target_id).capture is capture, "the request captured again: not warm"
    [node] = _by_name(layout, "Eager new")
    await _assert_box(chromium, page, node, "eager")

    # Attribute changes: the name and the state follow.
    await _refreshed_after(chromium, page, """
        const b = document.getElementById("eager"); b.setAttribute("aria-label", "Eager renamed");
        b.disabled = true; true""")
    layout = await chromium.layout(roles="button")
    assert not _by_name(layout, "Eager new")
    [node] = _by_name(layout, "Eager renamed")
    assert node["states"].get("disabled") is True

    # Removal: gone.
    await _refreshed_after(chromium, page, 'document.getElementById("eager").remove(); true')
    assert not _by_name(await chromium.layout(), "Eager renamed")


async def test_never_stale_when_asked_at_once_or_during_a_refresh(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("/gen/2000"))
    await chromium.layout()
    await chromium.evaluate(page, NEXT_FRAME_JS)
    await chromium.layout()
    # Asked in the same breath as the change (before the page's notification): fresh.
    add = ('{ const b = document.createElement("button"); b.id = %r; b.textContent = %r; '
           'document.body.prepend(b); true }')
    await chromium.evaluate(page, add % ("now", "Asked at once"))
    [node] = _by_name(await chromium.layout(), "Asked at once")
    await _assert_box(chromium, page, node, "now")

    # A change while a background refresh is running: the request still sees it.
    async with chromium.conn.events("Runtime.bindingCalled", session_id=page.session_id) as calls:
        await chromium.evaluate(page, add % ("first", "First change"))
        await calls.get(timeout=10)
    refresh = _service(chromium).tab(page.target_id).refresh.task
    assert refresh is not None and not refresh.done(), "no refresh in flight"
    await chromium.evaluate(page, 'document.getElementById("first").textContent = "Second change"; true')
    layout = await chromium.layout()
    assert not _by_name(layout, "First change")
    [node] = _by_name(layout, "Second change")
    await _assert_box(chromium, page, node, "first")


async def test_eager_refresh_survives_navigation(chromium, page_server):
    """Chromium drops a Runtime.addBinding when a same-site navigation swaps the frame's
    renderer host: the binding must be added again for the new document."""
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("/gen/100"))
    await chromium.layout()
    await chromium.evaluate(page, NEXT_FRAME_JS)
    await chromium.layout()
    for size in (200, 300):
        await chromium.navigate(page, page_server.url(f"/gen/{size}"))
        await chromium.layout()
        await chromium.evaluate(page, NEXT_FRAME_JS)
        await chromium.layout()
        await _refreshed_after(chromium, page, f"""
            const b = document.createElement("button"); b.textContent = "After nav {size}";
            document.body.prepend(b); true""")
        capture = _service(chromium).tab(page.target_id).capture
        assert _by_name(await chromium.layout(), f"After nav {size}")
        assert _service(chromium).tab(page.target_id).capture is capture, "not warm after navigating"


async def _background_read(chromium, page, refreshes: int, cause: str) -> None:
    """Wait (a bounded number of frames) for the tab's background refresh after ``refreshes``."""
    refresh = _service(chromium).tab(page.target_id).refresh
    for _ in range(100):
        if refresh.task is not None:
            await refresh.task
        if refresh.refreshes > refreshes:
            return
        await chromium.evaluate(page, NEXT_FRAME_JS)
    raise AssertionError(f"{cause} started no refresh")


async def test_a_new_document_is_read_when_its_dom_is_ready_while_it_still_loads(chromium, page_server):
    """DOMContentLoaded starts the background read: a look while an image still holds the load
    event back finds it done."""
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("/gen/100"))
    await chromium.layout()                          # asked: the tab is refreshed from now on
    state = _service(chromium)
    refreshes = state.tab(page.target_id).refresh.refreshes
    captures = state.counters.captures
    try:
        async with chromium.conn.events("Page.domContentEventFired", "Page.loadEventFired",
                                        session_id=page.session_id) as events:
            await page.send("Page.navigate", {"url": page_server.url("/loading.html")})
            method, _params, _session = await events.get(timeout=20)
            assert method == "Page.domContentEventFired"
            await _background_read(chromium, page, refreshes, "DOMContentLoaded")
            assert await chromium.evaluate(page, "document.readyState") == "interactive"
            assert state.counters.captures == captures + 1
            layout = await chromium.layout()
            assert state.counters.captures == captures + 1, "the request read the page again"
            assert [n for n in layout["tabs"][0]["layout"]["nodes"] if n["name"]["value"] == "Ready"]
    finally:
        page_server.release.set()


async def test_a_new_document_is_captured_when_it_has_loaded(chromium, page_server):
    """Navigate, wait for the load, look: the new page's full read was done in the background
    (its load event started it), so the request only probes."""
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("/gen/100"))
    await chromium.layout()                          # asked: the tab is refreshed from now on
    state = _service(chromium)
    for size in (400, 500):
        refreshes = state.tab(page.target_id).refresh.refreshes
        captures = state.counters.captures
        await chromium.navigate(page, page_server.url(f"/gen/{size}"))   # returns on the load event
        await _background_read(chromium, page, refreshes, "the load")
        assert state.counters.captures == captures + 1
        capture = state.tab(page.target_id).capture
        layout = await chromium.layout()
        assert state.tab(page.target_id).capture is capture, "the request read the page again"
        assert state.counters.captures == captures + 1
        assert layout["tabs"][0]["url"].endswith(f"/gen/{size}")
        full = await chromium.layout(fresh="true")
        assert layout["tabs"][0]["layout"]["nodes"] == full["tabs"][0]["layout"]["nodes"]
