"""Fixtures of the agent suite: real Xvfb, desktopd and the sidecar's Chromium, local pages."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from testbed.agent_stack import PAGES, Stack, start_stack
from testbed.capability import chromium_path, have_program, require
from testbed.pages import PageServer


@pytest.fixture(scope="module")
def pages() -> Iterator[PageServer]:
    """This suite's pages (testbed/pages/agent) beside testbed's."""
    server = PageServer(PAGES)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def stack(pages: PageServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """One desktop per test module: Xvfb, desktopd, and the sidecar acting through it."""
    require(chromium_path() is not None, "Chromium")
    require(have_program("Xvfb"), "Xvfb")
    running = start_stack(tmp_path_factory.mktemp("agent-stack"), pages.url("form.html"))
    try:
        yield running
    finally:
        running.stop()
