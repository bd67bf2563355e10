#!/usr/bin/python3
"""The baseline of benchmarks/bench_atspi.py: the whole desktop's accessibility tree read the way
OSWorld's server reads it: pyatspi from the desktop root, one object at a time, each object's
role, name, states, attributes, screen position and size, text, value and actions asked for
separately, written out as XML.

Runs with Debian's python3 (python3-pyatspi needs gi); prints one JSON line per round:
{"ms": ..., "nodes": ..., "bytes": ...}. With --serve, one round per line read on stdin (so a
benchmark can interleave it with its own measurements), until stdin closes.

    /usr/bin/python3 benchmarks/atspi_xml_walk.py [--rounds 5 | --serve]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import xml.etree.ElementTree as ET

import pyatspi

MAX_TEXT = 4096


def element(accessible, counter: list[int]) -> ET.Element:
    counter[0] += 1
    node = ET.Element(accessible.getRoleName().replace(" ", "-") or "unknown")
    node.set("name", accessible.name or "")
    states = accessible.getState().getStates()
    node.set("states", " ".join(pyatspi.stateToString(s) for s in states))
    for key, value in (accessible.getAttributes() and dict(a.split(":", 1) for a in accessible.getAttributes()
                                                          if ":" in a) or {}).items():
        node.set("attr-" + key, value)
    try:
        component = accessible.queryComponent()
    except NotImplementedError:
        component = None
    if component is not None:
        x, y = component.getPosition(pyatspi.XY_SCREEN)
        w, h = component.getSize()
        node.set("screencoord", f"({x}, {y})")
        node.set("size", f"({w}, {h})")
    try:
        text = accessible.queryText()
        node.text = text.getText(0, min(text.characterCount, MAX_TEXT))
    except NotImplementedError:
        pass
    try:
        value = accessible.queryValue()
        node.set("value", str(value.currentValue))
    except NotImplementedError:
        pass
    try:
        action = accessible.queryAction()
        node.set("actions", " ".join(action.getName(i) for i in range(action.nActions)))
    except NotImplementedError:
        pass
    for index in range(accessible.childCount):
        child = accessible.getChildAtIndex(index)
        if child is not None:
            node.append(element(child, counter))
    return node


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--serve", action="store_true")
    args = parser.parse_args()
    rounds = iter(sys.stdin.readline, "") if args.serve else range(args.rounds)
    for _ in rounds:
        start = time.perf_counter()
        counter = [0]
        desktop = pyatspi.Registry.getDesktop(0)
        root = ET.Element("desktop-frame")
        for app in desktop:
            if app is not None:
                root.append(element(app, counter))
        body = ET.tostring(root, encoding="unicode")
        print(json.dumps({"ms": (time.perf_counter() - start) * 1000, "nodes": counter[0],
                          "bytes": len(body)}), flush=True)


if __name__ == "__main__":
    main()
