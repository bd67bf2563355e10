#!/usr/bin/env python3
"""How long importing the harness kit takes here against another checkout, in one run.

Each module is imported in a fresh interpreter (the same Python, the checkout's directory first
on sys.path), rounds alternating between the two trees; printed: the median wall milliseconds of
the import, the modules it loaded, and this tree's ratio to the baseline's.
Usage: .venv/bin/python benchmarks/bench_kit_import.py BASELINE_DIR [--rounds 9]
(e.g. a clean main: ``git archive main | tar -x -C /tmp/base``)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = ("desktopd_kit", "desktopd_kit.actions", "desktopd_kit.env")
PROBE = ("import json, sys, time\n"
         "sys.path.insert(0, sys.argv[1])\n"
         "started = time.perf_counter()\n"
         "__import__(sys.argv[2])\n"
         "print(json.dumps([time.perf_counter() - started, len(sys.modules)]))\n")


def import_once(tree: Path, module: str) -> tuple[float, int]:
    out = subprocess.run([sys.executable, "-c", PROBE, str(tree), module], cwd=tree, capture_output=True,
                         text=True, check=True)
    seconds, loaded = json.loads(out.stdout)
    return seconds * 1000, loaded


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("baseline", type=Path)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    trees = {"baseline": args.baseline.resolve(), "this tree": ROOT}
    for tree in trees.values():   # compiled bytecode written before the timed rounds
        for module in MODULES:
            import_once(tree, module)
    print(f"{'module':24} {'baseline ms':>12} {'this tree ms':>13} {'ratio':>6}   modules loaded")
    for module in MODULES:
        times: dict[str, list[float]] = {label: [] for label in trees}
        loaded: dict[str, int] = {}
        for _ in range(args.rounds):
            for label, tree in trees.items():
                ms, loaded[label] = import_once(tree, module)
                times[label].append(ms)
        base, here = (statistics.median(times[label]) for label in trees)
        print(f"{module:24} {base:12.0f} {here:13.0f} {here / base:6.2f}   "
              f"{loaded['baseline']} -> {loaded['this tree']}")


if __name__ == "__main__":
    main()
