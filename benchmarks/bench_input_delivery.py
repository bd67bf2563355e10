#!/usr/bin/env python3
"""What waiting for input delivery costs (issue 26): a click and a 12-character type, each as
desktopd's X layer does it now (returns once the X server delivered the events) beside the same
calls without that wait (returns once the server processed the requests: the old behaviour), on
Xvfb with xfwm4 managing a Chromium window, as in the desktop image.

    .venv/bin/python benchmarks/bench_input_delivery.py [--rounds 200]

The two variants are measured round-robin in the same run; after each call, untimed, the bench
waits until the events were delivered, so no call pays for the one before it. Prints medians and
95th percentiles in milliseconds, and their ratios. Stops exactly the processes it started."""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from Xlib import display as xdisplay  # noqa: E402

from desktopd.x11 import keyboard as x11_keyboard  # noqa: E402
from desktopd.x11 import pointer as x11_pointer
from desktopd.x11.delivery import buttons_delivered, wait_until  # noqa: E402
from desktopd.x11.desktop import X11Desktop  # noqa: E402
from testbed.agent_stack import start_stack  # noqa: E402
from testbed.input_order import TEXT, RecordServer, find_targets  # noqa: E402


@contextmanager
def without_delivery_wait() -> Iterator[None]:
    """The old behaviour: XSync only."""
    saved = x11_pointer.wait_until, x11_keyboard.wait_until
    x11_pointer.wait_until = x11_keyboard.wait_until = lambda delivered, what: True
    try:
        yield
    finally:
        x11_pointer.wait_until, x11_keyboard.wait_until = saved


def percentile_95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    server = RecordServer()
    with tempfile.TemporaryDirectory(prefix="bench-input-delivery-") as logs:
        stack = start_stack(Path(logs), server.url, with_window_manager=True)
        desk = X11Desktop(stack.xvfb.display)
        watcher = xdisplay.Display(stack.xvfb.display)
        try:
            targets = find_targets(stack.url)
            settled = buttons_delivered(watcher.screen().root, set(), [1])
            clicks = 0

            def click() -> None:
                """Field and button in turn: a click that moves the focus is what xfwm4 holds."""
                nonlocal clicks
                clicks += 1
                desk.pointer_move(*(targets.field if clicks % 2 else targets.submit))
                desk.pointer_button(1, True)
                desk.pointer_button(1, False)

            def type_() -> None:
                desk.type_text(TEXT)

            cases: list[tuple[str, Callable[[], None]]] = [("click", click), (f"type {len(TEXT)} chars", type_)]
            samples: dict[tuple[str, bool], list[float]] = {}
            for _ in range(args.rounds):
                for name, action in cases:
                    for waits in (False, True):
                        start = time.perf_counter()
                        if waits:
                            action()
                        else:
                            with without_delivery_wait():
                                action()
                        samples.setdefault((name, waits), []).append(time.perf_counter() - start)
                        wait_until(settled, "bench")           # untimed: the next call starts clean
                        watcher.sync()
            print(f"{'action':16} {'':6} {'sync only ms':>13} {'delivered ms':>13} {'ratio':>7}")
            for name, _ in cases:
                for label, pick in (("median", statistics.median), ("p95", percentile_95)):
                    old = pick(samples[(name, False)]) * 1000
                    new = pick(samples[(name, True)]) * 1000
                    print(f"{name:16} {label:6} {old:13.3f} {new:13.3f} {new / old:7.2f}")
        finally:
            watcher.close()
            desk.shutdown()
            stack.stop()
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
