"""A cached /layout never differs from a full read (?fresh=true) while the page does not change:
random actions through desktopd (wheel scrolling the page and a scroll box, keys, page zoom, a
<select>'s popup opened and closed from the keyboard), a <details> with a <textarea> inserted
by script, and reads overlapping a scroll, on a page with a sticky header, a fixed element
inside a transformed one, details and a select. Each action is followed by a cached read and
a full read once the page is still."""

from __future__ import annotations

import asyncio
import os
import random

import pytest

from .harness import Chromium, Desktopd
from .test_incremental import _comparable, _first_difference

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

# Resolves once the page's scroll positions held for three frames (bounded: 240 frames).
STILL_JS = """
new Promise((resolve) => {
  const where = () => [scrollX, scrollY, document.getElementById('scroller').scrollTop,
                       devicePixelRatio, innerWidth].join();
  let last = where(), same = 0, frames = 0;
  (function check() {
    const now = where();
    same = now === last ? same + 1 : 0; last = now;
    if (same >= 3 || ++frames > 240) resolve(frames); else requestAnimationFrame(check);
  })();
})
"""


async def _screen_point(chromium: Chromium, page, selector: str) -> tuple[int, int]:
    body = await chromium.layout(tab=page.target_id)
    viewport = body["tabs"][0]["layout"]["viewport"]
    rect = await chromium.evaluate(page, f"""(() => {{ const r = document.querySelector({selector!r})
        .getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()""")
    k = viewport["devicePixelRatio"] * viewport["visualViewport"]["scale"]
    origin = viewport["screenOrigin"]
    return round(origin["x"] + rect[0] * k), round(origin["y"] + rect[1] * k)


async def _viewport_centre(chromium: Chromium, page) -> tuple[int, int]:
    viewport = (await chromium.layout(tab=page.target_id))["tabs"][0]["layout"]["viewport"]
    k = viewport["devicePixelRatio"] * viewport["visualViewport"]["scale"]
    origin, visual = viewport["screenOrigin"], viewport["visualViewport"]
    return round(origin["x"] + visual["width"] * k * 0.7), round(origin["y"] + visual["height"] * k / 2)


async def _wheel(desktopd: Desktopd, point: tuple[int, int], clicks: int) -> None:
    await desktopd.post("/api/v1/tablet", {"x": point[0], "y": point[1], "action": "scroll", "dy": clicks})


async def _act(kind: str, rng: random.Random, chromium: Chromium, desktopd: Desktopd, page,
               zoom: list[int]) -> None:
    if kind == "wheel":
        await _wheel(desktopd, await _viewport_centre(chromium, page), rng.choice((-3, -1, 1, 2, 4)))
    elif kind == "wheel-box":
        await chromium.evaluate(page, "document.getElementById('scroller').scrollIntoView({block: 'center'}); 0")
        await chromium.evaluate(page, STILL_JS)
        await _wheel(desktopd, await _screen_point(chromium, page, "#scroller"), rng.choice((-2, 1, 2)))
    elif kind == "wheel-mid-read":
        # A scroll that lands while a cached read is under way.
        point = await _viewport_centre(chromium, page)
        await chromium.evaluate(page, "window.scrollBy(0, 1); 0")     # the next read is not a hit

        async def scroll_soon() -> None:
            for _ in range(rng.randrange(4)):
                await asyncio.sleep(0)
            await _wheel(desktopd, point, rng.choice((-2, 2, 3)))
        await asyncio.gather(chromium.layout(tab=page.target_id), scroll_soon())
    elif kind == "tab":
        await desktopd.keys(rng.choice(("Tab", "shift+Tab")))
    elif kind == "select":
        await chromium.evaluate(page, "document.getElementById('pick').focus(); 0")
        await desktopd.keys(rng.choice(("alt+Down", "space", "Down")))
    elif kind == "escape":
        await desktopd.keys("Escape")
    elif kind == "details":
        await chromium.evaluate(page, "addDetails(); 0")
    elif kind == "zoom":
        step = rng.choice((-1, 1)) if -2 < zoom[0] < 3 else (-1 if zoom[0] >= 3 else 1)
        zoom[0] += step
        await desktopd.keys("ctrl+equal" if step > 0 else "ctrl+minus")


KINDS = ("wheel", "wheel-box", "wheel-mid-read", "tab", "select", "escape", "details", "zoom")
# The suite's run; a long run for a report: DESKTOPD_TRUTH_STEPS=720 DESKTOPD_TRUTH_SEED=...
STEPS = int(os.environ.get("DESKTOPD_TRUTH_STEPS") or 48)
SEED = int(os.environ.get("DESKTOPD_TRUTH_SEED") or 20261126)


async def test_cached_reads_equal_full_reads_after_random_actions(chromium, desktopd, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("truth.html"))
    await desktopd.tap(*(await _screen_point(chromium, page, "#para")))      # focus the window
    rng = random.Random(SEED)
    zoom = [0]
    stale: list[str] = []
    kinds_seen: dict[str, int] = {}
    try:
        for step in range(STEPS):
            kind = KINDS[step % len(KINDS)] if step < len(KINDS) else rng.choice(KINDS)
            kinds_seen[kind] = kinds_seen.get(kind, 0) + 1
            await _act(kind, rng, chromium, desktopd, page, zoom)
            await chromium.evaluate(page, STILL_JS)
            cached = await chromium.layout(tab=page.target_id)
            full = await chromium.layout(tab=page.target_id, fresh="true")
            if _comparable(cached) != _comparable(full):
                stale.append(f"step {step} ({kind}): " + _first_difference(_comparable(cached), _comparable(full)))
    finally:
        await desktopd.keys("Escape ctrl+0")
    assert all(kinds_seen.get(kind) for kind in KINDS)
    print(f"\n[truth] {len(stale)} stale of {STEPS} random actions (seed {SEED}): {kinds_seen}")
    assert not stale, f"{len(stale)} stale of {STEPS}:\n" + "\n".join(stale)
