"""Refs across Chromium's back/forward cache: a document the tab left and then restored from the
cache (the same document: the page's pageshow says persisted) has every element under its old
ref again, never some old and some new; while the tab shows another document they are refused.
It used to be a mix: acting on one of them from the next page forgot that one ref alone."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.sidecar_service.support import SidecarProcess, serve_pages

from .conftest import AUTH, loaded, start_sidecar

pytestmark = pytest.mark.chromium

SHOP = """<!doctype html><title>Shop</title>
<button>One</button><button>Two</button><input aria-label="Name">
<button id="go" onclick="location.href='/other'">Go</button><a href="/other">Other page</a>
<script>
window.restoredFromCache = false;
addEventListener('pageshow', e => { window.restoredFromCache = e.persisted; });
</script>"""
OTHER = "<!doctype html><title>Other</title><button>Bee</button>"


@pytest.fixture
async def shop(chromium: str, tmp_path) -> AsyncIterator[tuple[SidecarProcess, dict[str, str]]]:
    runner, port = await serve_pages({"/shop": SHOP, "/other": OTHER})
    urls = {"shop": f"http://127.0.0.1:{port}/shop", "other": f"http://127.0.0.1:{port}/other"}
    sidecar = await start_sidecar(tmp_path, "--headless", urls["shop"])
    try:
        await loaded(sidecar, urls["shop"])
        yield sidecar, urls
    finally:
        await sidecar.stop()
        await runner.cleanup()


async def refs(sidecar: SidecarProcess) -> dict[tuple[str, str], str]:
    """(role, name) -> ref of every element of the front tab's snapshot that has a ref."""
    status, shot = await sidecar.get("/snapshot", params={"format": "json"}, headers=AUTH)
    assert status == 200, shot
    out: dict[tuple[str, str], str] = {}
    stack = list(shot["tree"])
    while stack:
        node = stack.pop()
        if node.get("ref"):
            out[(node["role"], node.get("name", ""))] = node["ref"]
        stack.extend(node.get("children") or ())
    return out


async def act(sidecar: SidecarProcess, kind: str, ref: str) -> tuple[int, dict]:
    return await sidecar.request("POST", "/act", json={"kind": kind, "ref": ref, "mode": "cdp"}, headers=AUTH)


async def back_from_cache(sidecar: SidecarProcess) -> None:
    status, moved = await sidecar.request("POST", "/back", json={}, headers=AUTH)
    assert status == 200 and moved["title"] == "Shop", moved
    status, run = await sidecar.request("POST", "/playwright", json={"code": "await page.evaluate('restoredFromCache')"},
                                        headers=AUTH)
    # The premise: Chromium restored the very document from its back/forward cache.
    assert status == 200 and run["result"] is True, run


async def test_a_document_restored_from_the_cache_has_all_its_old_refs(shop) -> None:
    sidecar, urls = shop
    before = await refs(sidecar)
    assert {("button", "One"), ("button", "Two"), ("textbox", "Name"), ("button", "Go"),
            ("link", "Other page")} <= set(before), before

    status, clicked = await act(sidecar, "click", before[("button", "Go")])
    assert status == 200 and clicked["navigated"], clicked
    # On the next page the shop's refs are refused (one of them tried), and nothing else changes.
    status, refused = await act(sidecar, "hover", before[("button", "Go")])
    assert status == 409 and refused["error"] == "stale_ref", refused
    await back_from_cache(sidecar)
    assert await refs(sidecar) == before
    for ref in before.values():
        status, hovered = await act(sidecar, "hover", ref)
        assert status == 200, (ref, hovered)

    # Again with a snapshot of the other page in between: still every old ref, none new.
    status, tab = await sidecar.request("POST", f"/tabs/{clicked['tab']}/navigate",
                                        json={"url": urls["other"], "wait": "load"}, headers=AUTH)
    assert status == 200, tab
    other = await refs(sidecar)
    assert set(other.values()).isdisjoint(before.values()), other
    await back_from_cache(sidecar)
    assert await refs(sidecar) == before
