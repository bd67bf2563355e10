"""Replay: drive a desktop through a record, step by step. Each step's element is found again in
the desktop's /layout by role and name (its recorded path decides between several) and the
action is moved onto it (the same offset inside the element); without an element, or when it is
not found, the recorded coordinates are used. After each step it says whether the target was
found and whether the state after matches the record's: the screenshot's similarity and the
element's value. A target not found or a value that differs is a divergence."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from ..client import Desktop
from ..errors import DesktopError
from ..observe import ObserveOptions, Observer
from .elements import find_again
from .reader import EpisodeReader, StepView

SIMILARITY_SIDE = 160     # screenshots are compared at this width (a coarse look, not pixels)


@dataclass
class StepReport:
    index: int
    kind: str
    target: dict | None            # the recorded element: role, name
    found: bool | None             # None: the step has no element to find
    matches: int
    by: str                        # element or coordinates
    similarity: float | None       # 0..1 with the record's after image (None: no after image)
    value: dict | None = None      # {"recorded", "replayed", "matches"} of the element's value
    error: dict | None = None
    divergent: bool = field(default=False)

    def json(self) -> dict:
        return dict(self.__dict__)


def recorded_target(step: StepView) -> dict | None:
    """The element a step acted on: a demonstration's (with its path) or an agent's /layout hit."""
    demo = step.record.get("demonstration") or {}
    if demo.get("element"):
        e = demo["element"]
        return {"role": e["role"], "name": e["name"], "path": e.get("path") or [], "bounds": e.get("bounds")}
    hit = step.action.get("element")
    node = (hit or {}).get("target") or hit
    if not node or not node.get("screen"):
        return None
    return {"role": node["role"], "name": node["name"], "path": [], "bounds": node["screen"]}


def moved(action: dict, old: dict | None, new: dict | None) -> dict:
    """The action with its points moved by how far the element moved (our format only)."""
    if not old or not new:
        return action
    dx, dy = round(new["x"] - old["x"]), round(new["y"] - old["y"])
    out = dict(action)
    if "x" in out and "y" in out:
        out["x"], out["y"] = int(out["x"]) + dx, int(out["y"]) + dy
    if out.get("type") == "drag":
        out["path"] = [[int(p[0]) + dx, int(p[1]) + dy] for p in out["path"]]
    return out


def similarity(recorded_png: bytes, replayed_png: bytes) -> float:
    from PIL import Image, ImageChops, ImageStat
    images = []
    for data in (recorded_png, replayed_png):
        with Image.open(io.BytesIO(data)) as image:
            height = max(1, round(image.height * SIMILARITY_SIDE / image.width))
            images.append(image.convert("L").resize((SIMILARITY_SIDE, height)))
    if images[0].size != images[1].size:
        return 0.0
    return 1.0 - ImageStat.Stat(ImageChops.difference(*images)).mean[0] / 255.0


def _value_of(layout: dict | None, target: dict) -> object:
    node, _ = find_again(layout, target["role"], target["name"], target["path"])
    return None if node is None else node.get("value")


def replay(directory: str, desktop: Desktop, *, report: Callable[[StepReport], None] = lambda r: None) -> list[StepReport]:
    episode = EpisodeReader(directory)
    with_layout = desktop.endpoints.sidecar_url is not None
    observer = Observer(desktop, ObserveOptions(observe_layout=with_layout))
    reports = []
    for step in episode:
        reports.append(replay_step(step, observer, with_layout))
        report(reports[-1])
    return reports


def replay_step(step: StepView, observer: Observer, with_layout: bool) -> StepReport:
    target = recorded_target(step)
    action = dict(step.action["issued"])
    fmt = step.action["format"]
    found, matches, by = None, 0, "coordinates"
    if target is not None and with_layout:
        layout = observer.desktop.layout(**observer.options.layout_query)
        node, matches = find_again(layout, target["role"], target["name"], target["path"])
        found = node is not None
        if node is not None and fmt == "desktopd":
            action = moved(action, target["bounds"], node["screen"]["borderBox"])
            by = "element"
    acted, after = observer.step(action, None, fmt)
    after_record = step.record.get("after")
    sim = None
    if after_record is not None and after.screenshot.format in ("png", "raw"):
        sim = round(similarity((step.directory / after_record["image"]).read_bytes(), after.screenshot.png()), 4)
    value = None
    if target is not None and after_record is not None and after_record.get("layout") and after.layout is not None:
        recorded_layout = json.loads((step.directory / after_record["layout"]).read_text())
        recorded, replayed = _value_of(recorded_layout, target), _value_of(after.layout, target)
        value = {"recorded": recorded, "replayed": replayed, "matches": recorded == replayed}
    divergent = found is False or (value is not None and not value["matches"]) or acted.error is not None
    return StepReport(step.index, step.action["kind"],
                      {"role": target["role"], "name": target["name"]} if target else None,
                      found, matches, by, sim, value, acted.error, divergent)


def replay_main(directory: str, desktop_url: str, sidecar_url: str | None, token: str | None) -> int:
    desktop = Desktop(desktop_url, token=token, sidecar_url=sidecar_url)
    try:
        reports = replay(directory, desktop, report=lambda r: print(json.dumps(r.json(), ensure_ascii=False), flush=True))
    except DesktopError as error:
        print(json.dumps({"error": str(error)}))
        return 2
    divergent = [r.index for r in reports if r.divergent]
    print(json.dumps({"steps": len(reports), "divergent_steps": divergent, "diverged": bool(divergent)}))
    return 1 if divergent else 0
