"""Each reader switched on alone (SIDECAR_LAYOUT_STRATEGIES) answers what the whole read, the
oracle (?fresh=true), answers after random changes; one switched off is never used, and a
removed one's name ("sections") switches nothing on."""

from __future__ import annotations

import random

import pytest

from sidecar.layout import LayoutOptions, LayoutService
from sidecar.layout.reading.readers import readers_named

from .test_incremental import _comparable, _first_difference

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

# The readers switched on, and the counters that must move (>= 1) or stay (0) over the rounds.
CASES = {
    "whole only": ((), {"captures": "moves", "patches": 0, "reuses": 0}),
    "reuse": (("reuse",), {"reuses": "moves", "patches": 0}),
    "patch": (("patch",), {"patches": "moves", "reuses": 0}),
    "removed sections": (("sections",), {"captures": "moves", "patches": 0, "reuses": 0,
                                         "rescans": 0, "frames": 0}),
    "all": (("reuse", "rescan", "patch", "frames"), {"patches": "moves", "reuses": "moves"}),
}


@pytest.mark.parametrize("case", list(CASES))
async def test_each_strategy_alone_equals_the_whole_read(chromium, page_server, case):
    names, expected = CASES[case]
    service = LayoutService(chromium.conn, chromium.tracker, readers=readers_named(names), refresh=False)
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("/mutable.html"))
    ask = LayoutOptions(tab=page.target_id)
    try:
        await service.build(ask)                  # installs the change tracker
        count = await chromium.evaluate(page, "window.mutations.length")
        rng = random.Random(f"strategies {case}")
        for round_ in range(8):
            for _ in range(rng.randint(0, 2)):    # none: the page as it was (a reuse)
                await chromium.evaluate(page, f"mutate({rng.randrange(count)}, {rng.randrange(1, 10**6)})")
            read = await service.build(ask)
            oracle = await service.build(LayoutOptions(tab=page.target_id, fresh=True))
            assert _comparable(read) == _comparable(oracle), f"round {round_}: " + _first_difference(
                _comparable(read), _comparable(oracle))
    finally:
        service.stop()
    counters = service.counters.as_dict()
    for name, want in expected.items():
        if want == "moves":
            assert counters[name] >= 1, (name, counters)
        else:
            assert counters[name] == want, (name, counters)
