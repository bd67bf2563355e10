#!/usr/bin/env python3
"""Input-order stress: type-then-click rounds through every input path, counting the rounds in
which the page's Submit click did not see the text typed before it (issue 26).

    .venv/bin/python benchmarks/stress_input_order.py [--rounds 1000] [--paths api,compat,...]

Starts its own Xvfb, xfwm4 (as in the desktop image), desktopd and the sidecar's Chromium on a
page that posts the field's value at each click to a local server (testbed/input_order.py), runs
the rounds path after path, and prints per path: rounds, wrong, seconds, milliseconds per round.
Exits 1 when any round was wrong. Stops exactly the processes it started."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from testbed.agent_stack import start_stack  # noqa: E402
from testbed.input_order import PATHS, RecordServer, find_targets, run_path  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000, help="rounds per path")
    parser.add_argument("--paths", default=",".join(PATHS), help=f"some of {','.join(PATHS)}")
    parser.add_argument("--log-dir", type=Path, help="keep the processes' logs here (default: a "
                        "temporary directory, removed)")
    args = parser.parse_args()
    paths = [p for p in args.paths.split(",") if p]
    unknown = [p for p in paths if p not in PATHS]
    if unknown or args.rounds < 1:
        parser.error(f"unknown paths {unknown} (one of {', '.join(PATHS)})" if unknown
                     else "--rounds must be >= 1")
    server = RecordServer()
    failed = False
    with tempfile.TemporaryDirectory(prefix="stress-input-order-") as temporary:
        logs = args.log_dir or Path(temporary)
        logs.mkdir(parents=True, exist_ok=True)
        stack = start_stack(logs, server.url, with_window_manager=True)
        try:
            targets = find_targets(stack.url)
            print(f"{'path':10} {'rounds':>7} {'wrong':>6} {'seconds':>8} {'ms/round':>9}")
            for path in paths:
                result = run_path(path, stack.desktopd_url, stack.url, server, targets, args.rounds)
                failed |= bool(result.wrong)
                print(f"{path:10} {result.rounds:7d} {len(result.wrong):6d} {result.seconds:8.1f} "
                      f"{1000 * result.seconds / result.rounds:9.1f}", flush=True)
                for wrong in result.wrong[:5]:
                    print(f"    round {wrong['round']}: the click saw {wrong['value']!r}; the page got "
                          f"{wrong.get('seen')}")
        finally:
            stack.stop()
            server.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
