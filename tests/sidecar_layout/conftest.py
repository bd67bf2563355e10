"""Fixtures of the layout suite: real Chromium on a real Xvfb, real desktopd, local pages."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest

from testbed.capability import chromium_path, have_program, require
from testbed.pages import PageServer

from .harness import Chromium, Desktopd, launch_chromium, start_desktopd


@pytest.fixture(scope="session")
def page_server() -> Iterator[PageServer]:
    server = PageServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def need_browser() -> None:
    require(chromium_path() is not None, "Chromium")
    require(have_program("Xvfb"), "Xvfb")


@pytest.fixture
async def desktopd(xvfb, need_browser) -> AsyncIterator[Desktopd]:
    service = await start_desktopd(xvfb.display)
    try:
        yield service
    finally:
        await service.close()


@pytest.fixture
async def chromium(xvfb, need_browser) -> AsyncIterator[Chromium]:
    browser = await launch_chromium(xvfb.display, position=(30, 20))
    try:
        yield browser
    finally:
        await browser.close()
