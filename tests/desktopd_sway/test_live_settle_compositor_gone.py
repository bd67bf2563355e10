"""The settle on Sway when the compositor goes away mid-wait: it says it observed nothing more,
and why, rather than answering quiet. A module of its own: it ends its module's Sway."""

from __future__ import annotations

import os

from desktopd.backend.protocol import change_source_opener
from desktopd.settle.settler import SettleSpec, Settler

from .conftest import Sway


async def test_a_compositor_gone_mid_wait_is_unobserved_with_the_reason(sway: Sway) -> None:
    settler = Settler(os.path.join(sway.runtime_dir, sway.wayland_display), change_source_opener("sway"))
    try:
        await settler.start()
        assert settler.info()["watching"] is True, settler.info()
        mark = await settler.mark()
        assert mark is not None
        sway.process.kill()
        settled = await settler.settle(mark, SettleSpec(5.0, 4.0, browser=False))
        assert settled.reason == "unobserved" and "Wayland connection lost" in (settled.detail or ""), settled
        # The next act finds no compositor to watch: said, not guessed.
        assert await settler.mark() is None
        again = await settler.settle(None, SettleSpec(1.0, 0.05, browser=False))
        assert again.reason == "unobserved" and again.detail, again
        assert settler.info()["watching"] is False and settler.info()["last_error"], settler.info()
    finally:
        await settler.close()
