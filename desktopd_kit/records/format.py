"""The episode directory layout, version 1 (docs/harness-kit.md):

    <episode_id>/episode.json          metadata (schema/episode.schema.json)
    <episode_id>/steps.jsonl           one line per step (schema/step.schema.json)
    <episode_id>/images/000001.png     the screenshot before step 1 (.jpg/.webp as observed)
    <episode_id>/layout/000001.json    the sidecar's /layout before step 1, when observed
"""

from __future__ import annotations

import json
from pathlib import Path

from ..actions import FORMATS

VERSION = 1
FORMAT = "desktopd-episode"
EPISODE_FILE = "episode.json"
STEPS_FILE = "steps.jsonl"
IMAGE_EXTENSIONS = {"png": "png", "raw": "png", "jpeg": "jpg", "webp": "webp"}
SCHEMA_DIR = Path(__file__).parent / "schema"


def image_name(index: int, screenshot_format: str) -> str:
    return f"images/{index:06d}.{IMAGE_EXTENSIONS[screenshot_format]}"


def layout_name(index: int) -> str:
    return f"layout/{index:06d}.json"


def schema(name: str) -> dict:
    """``episode`` or ``step``: the JSON Schema of episode.json or of a steps.jsonl line. The
    step's action formats are the registered ones (actions.FORMATS), named here, not in the file."""
    loaded = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text())
    if name == "step":
        loaded["properties"]["action"]["properties"]["format"]["enum"] = list(FORMATS)
    return loaded
