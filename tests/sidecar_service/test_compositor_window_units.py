"""The window check of Chromium on Sway (sidecar/browser/compositor_window.py) over a page that
answers its window size from a script, and windows given as Sway's tree would (unit tests; the
real Sway and Chromium are in tests/desktopd_sway/test_live_chromium_bounds.py). The sizes are the
ones measured on Chromium 156 under Sway 1.7."""

from __future__ import annotations

from collections.abc import Mapping

from sidecar.browser.compositor_window import NOT_SHOWN, Rect, SwayWindowCheck, mismatch

TILED = (Rect(0, 0, 1280, 800),)


def test_a_tiled_window_with_an_even_shadow_is_exact() -> None:
    assert mismatch((1300, 820), TILED) is None


def test_chromium_still_on_its_floating_window_is_not_exact() -> None:
    # Mapped floating at 1018x748 with a 16 px shadow, then tiled by Sway: the page still says so.
    assert "has not taken Sway's last configure" in mismatch((1050, 780), TILED)
    # Floating (or its shadow kept after tiling): 16 px at the sides, 42 px in all up and down.
    assert mismatch((1312, 842), TILED) is not None
    assert mismatch((832, 542), (Rect(200, 150, 800, 500),)) is not None


def test_a_window_away_from_the_corner_is_not_exact_and_none_is_not_either() -> None:
    assert "(640, 0)" in mismatch((660, 820), (Rect(640, 0, 640, 800),))
    assert "no window" in mismatch((1300, 820), ())


class ScriptedPage:
    """A page whose window sizes come from a list, one per evaluate (the last one repeats)."""

    def __init__(self, sizes: list[list[float] | None]) -> None:
        self.sizes = sizes
        self.calls = 0

    @property
    def target_id(self) -> str:
        return "T"

    @property
    def session_id(self) -> str:
        return "S"

    async def send(self, method: str, params: dict | None = None, *, timeout: float | None = None) -> dict:
        value = self.sizes[min(self.calls, len(self.sizes) - 1)]
        self.calls += 1
        return {"result": {"value": value}}

    url = "about:blank"
    title = ""
    crashed = False
    pending_navigation = None
    navigations = 0
    children: Mapping = {}


def check(settle_s: float = 5.0) -> SwayWindowCheck:
    return SwayWindowCheck(lambda: 42, settle_s=settle_s, windows=lambda pid: TILED if pid == 42 else ())


async def test_it_waits_until_chromium_reports_the_window_sway_shows() -> None:
    page = ScriptedPage([[1050, 780], [1050, 780], [1300, 820], [1300, 820]])
    assert await check().unsettled(page) is None
    assert page.calls == 4     # now, then after frames until the same settled size came twice


async def test_a_settled_window_answers_at_once_the_next_time() -> None:
    page, checker = ScriptedPage([[1300, 820]]), check()
    assert await checker.unsettled(page) is None
    calls = page.calls
    assert await checker.unsettled(page) is None
    assert page.calls == calls + 1     # the size now only: it is the one seen settled


async def test_a_window_that_never_settles_says_why_within_the_bound_then_at_once() -> None:
    page, checker = ScriptedPage([[1312, 842]]), check(settle_s=0.2)
    reason = await checker.unsettled(page)
    assert reason is not None and "1312x842" in reason
    calls = page.calls
    assert await checker.unsettled(page) == reason
    assert page.calls == calls + 1     # the same unsettled window: not waited for again


async def test_a_tab_not_shown_has_no_exact_screen_bounds() -> None:
    assert await check().unsettled(ScriptedPage([None])) == NOT_SHOWN


async def test_a_page_that_cannot_answer_is_not_asked() -> None:
    page = ScriptedPage([[1300, 820]])
    page.pending_navigation = "http://127.0.0.1/next"
    assert "loading" in await check().unsettled(page)
    assert page.calls == 0
