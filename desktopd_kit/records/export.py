"""Export episodes to the Multimodal-Mind2Web layout: one JSON line per step.

Field mapping (Mind2Web's names; docs/harness-kit.md has the table):
- ``annotation_id`` = episode id, ``action_uid`` = "<episode>-<index>",
  ``target_action_index`` = index - 1, ``confirmed_task`` = metadata["task"] (or "").
- ``operation``: {"op", "original_op", "value"}: click -> CLICK, type -> TYPE (value = the text),
  keys "Return"/"enter" -> original_op ENTER (op TYPE, as Mind2Web folds it), move -> HOVER
  (op CLICK). Other kinds (scroll, drag, keys, wait, ...) have no Mind2Web operation: op "OTHER"
  with our kind as original_op; ``--skip-other`` leaves them out.
- ``pos_candidates``: the element acted on (from /layout: the hit node's interactive target,
  else the hit node itself), as {"backend_node_id", "tag" (its role),
  "attributes" (a JSON string with name, bounding_box_rect "x,y,w,h" in screen pixels)};
  empty when no layout was observed.
- ``screenshot``: the image path (relative to the output file); ``accessibility_tree``: the
  layout file's path or null (Mind2Web ships raw_html/cleaned_html instead; we have no DOM).
- ``target_action_reprs``: "[role]  name -> OP: value", Mind2Web's way of writing a step.
- Our additions: ``coordinates`` (screen pixels acted on) and ``desktopd`` (the original step).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

from .reader import EpisodeReader, StepView

ENTER_KEYS = {"return", "enter", "kp_enter"}


def operation(action: dict) -> dict:
    kind, issued = action["kind"], action["issued"]
    if kind == "click":
        return {"op": "CLICK", "original_op": "CLICK", "value": ""}
    if kind == "type":
        return {"op": "TYPE", "original_op": "TYPE", "value": str(issued.get("text", ""))}
    if kind == "move":
        return {"op": "CLICK", "original_op": "HOVER", "value": ""}
    if kind == "keys":
        keys = issued.get("keys") or issued.get("text") or ""
        names = [k.lower() for k in (keys if isinstance(keys, list) else str(keys).split())]
        if names and all(n in ENTER_KEYS for n in names):
            return {"op": "TYPE", "original_op": "ENTER", "value": ""}
    return {"op": "OTHER", "original_op": kind.upper(), "value": ""}


def acted_on(element: dict | None) -> dict | None:
    """The interactive node a step acted on (a button rather than its text), else the hit."""
    if not element:
        return None
    return element.get("target") or element


def _candidate(element: dict | None) -> list[dict]:
    if not element or not element.get("screen"):
        return []
    box = element["screen"]
    attributes = {"name": element.get("name"),
                  "bounding_box_rect": f"{box['x']},{box['y']},{box['width']},{box['height']}",
                  "node_id": element.get("nodeId")}
    return [{"backend_node_id": str(element.get("backendDOMNodeId") or ""), "tag": element.get("role"),
             "attributes": json.dumps(attributes, ensure_ascii=False)}]


def mind2web_row(episode: EpisodeReader, step: StepView, image: str, tree: str | None) -> dict:
    record, action = step.record, step.action
    op = operation(action)
    element = acted_on(action["element"])
    label = f"[{element['role']}]  {element['name']}" if element else "[desktop]"
    repr_ = f"{label} -> {op['original_op']}" + (f": {op['value']}" if op["value"] else "")
    return {"annotation_id": episode.episode["episode_id"],
            "action_uid": f"{episode.episode['episode_id']}-{step.index}",
            "confirmed_task": str(episode.episode["metadata"].get("task", "")),
            "website": str(episode.episode["metadata"].get("website", "")),
            "target_action_index": step.index - 1, "target_action_reprs": repr_,
            "operation": op, "pos_candidates": _candidate(element), "neg_candidates": [],
            "screenshot": image, "accessibility_tree": tree,
            "coordinates": action["point"], "desktopd": record}


def export_mind2web(episode_dirs: list[Path], out_dir: str | os.PathLike, *, skip_other: bool = False) -> int:
    """Writes ``out_dir/data.jsonl`` and copies images (and layouts) beside it; returns rows."""
    out = Path(out_dir)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "trees").mkdir(exist_ok=True)
    rows = 0
    with open(out / "data.jsonl", "w", encoding="utf-8") as sink:
        for episode, step in _steps(episode_dirs):
            if skip_other and operation(step.action)["op"] == "OTHER":
                continue
            uid = f"{episode.episode['episode_id']}-{step.index:06d}"
            image = f"images/{uid}{step.image_path.suffix}"
            shutil.copyfile(step.image_path, out / image)
            tree = None
            if step.layout_path is not None:
                tree = f"trees/{uid}.json"
                shutil.copyfile(step.layout_path, out / tree)
            sink.write(json.dumps(mind2web_row(episode, step, image, tree), ensure_ascii=False) + "\n")
            rows += 1
    return rows


def _steps(episode_dirs: list[Path]) -> Iterator[tuple[EpisodeReader, StepView]]:
    for directory in episode_dirs:
        readers = [EpisodeReader(directory)] if (directory / "episode.json").is_file() \
            else list(EpisodeReader.all(directory))
        for episode in readers:
            for step in episode:
                yield episode, step
