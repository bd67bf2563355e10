"""When Chromium cannot give the accessibility tree, /layout falls back to the DOM snapshot with
the same shape, says so ("source": "dom"), and its screen bounds still click true."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from .clicking import click_every_button
from .test_click_proof import ALL_IDS

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


class _NoAccessibility:
    """A real target whose Accessibility calls reach Chromium under a name it does not know,
    so Chromium itself answers with an error (as when the domain is unavailable)."""

    def __init__(self, target: Any) -> None:
        self._target = target

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)

    @property
    def children(self) -> dict[str, Any]:
        return {k: _NoAccessibility(v) for k, v in getattr(self._target, "children", {}).items()}

    async def send(self, method: str, params: dict | None = None, **kwargs: Any) -> dict:
        if method.startswith("Accessibility."):
            method += "Unavailable"
        return await self._target.send(method, params, **kwargs)


class _TrackerWithoutAccessibility:
    def __init__(self, tracker: Any) -> None:
        self._tracker = tracker

    def pages(self) -> list[Any]:
        return [_NoAccessibility(p) for p in self._tracker.pages()]

    def find_page(self, id_or_prefix: str) -> Any:
        page = self._tracker.find_page(id_or_prefix)
        return None if page is None else _NoAccessibility(page)

    def page_for_session(self, session_id: str) -> Any:
        page = self._tracker.page_for_session(session_id)
        return None if page is None else _NoAccessibility(page)

    async def refresh_titles(self) -> None:
        await self._tracker.refresh_titles()


async def test_dom_fallback_has_bounds_that_click_true(chromium, desktopd, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("main.html"), children=1)
    fallback = dataclasses.replace(chromium, tracker=_TrackerWithoutAccessibility(chromium.tracker))
    layout = (await fallback.layout())["tabs"][0]["layout"]
    assert layout["source"] == "dom"
    clicked = await click_every_button(fallback, desktopd, page, len(ALL_IDS))
    assert set(clicked) == ALL_IDS
