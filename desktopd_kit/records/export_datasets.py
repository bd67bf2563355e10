"""Export episodes as a Hugging Face ``datasets`` layout: Parquet, one row per step, the
screenshots before and after as Image features (their bytes in the file), the action in our
format and the vendors', the element and the snapshot text.
``datasets.load_dataset("parquet", data_files="OUT/data/*.parquet")`` loads it; the features
ride in the Parquet schema's "huggingface" metadata, as ``datasets`` itself writes them. Needs
pyarrow (the ``datasets`` extra)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .reader import EpisodeReader

STRING, INT, FLOAT = {"dtype": "string", "_type": "Value"}, {"dtype": "int64", "_type": "Value"}, \
    {"dtype": "float64", "_type": "Value"}
IMAGE = {"_type": "Image"}
FEATURES = {
    "episode_id": STRING, "index": INT, "source": STRING, "kind": STRING, "format": STRING,
    "action": STRING, "point_x": INT, "point_y": INT, "text": STRING,
    "element_role": STRING, "element_name": STRING, "element_path": STRING,
    "window_class": STRING, "window_title": STRING, "task": STRING,
    "anthropic": STRING, "openai": STRING, "pyautogui": STRING,
    "image": IMAGE, "after_image": IMAGE, "snapshot": STRING, "video_time_s": FLOAT, "record": STRING,
}


def _json(value: object) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _image(path: Path | None) -> dict | None:
    return {"bytes": path.read_bytes(), "path": path.name} if path is not None and path.is_file() else None


def rows(paths: list[Path]) -> list[dict]:
    out = []
    for path in paths:
        episodes = [EpisodeReader(path)] if (path / "episode.json").is_file() else list(EpisodeReader.all(path))
        for episode in episodes:
            task = str(episode.episode.get("metadata", {}).get("task", ""))
            for step in episode:
                r, action = step.record, step.action
                demo = r.get("demonstration") or {}
                element = demo.get("element") or (action.get("element") or {}).get("target") or {}
                vendor = action.get("vendor") or {}
                point = action.get("point") or {}
                issued = action["issued"]
                after = r.get("after")
                out.append({
                    "episode_id": episode.episode["episode_id"], "index": step.index,
                    "source": r.get("source", "agent"), "kind": action["kind"], "format": action["format"],
                    "action": _json(issued), "point_x": point.get("x"), "point_y": point.get("y"),
                    "text": issued.get("text") if action["kind"] == "type" else issued.get("keys"),
                    "element_role": element.get("role"), "element_name": element.get("name"),
                    "element_path": _json(element.get("path")),
                    "window_class": (demo.get("window") or {}).get("class"),
                    "window_title": (demo.get("window") or {}).get("title"), "task": task,
                    "anthropic": _json(vendor.get("anthropic")), "openai": _json(vendor.get("openai")),
                    "pyautogui": vendor.get("pyautogui"),
                    "image": _image(step.image_path),
                    "after_image": _image(episode.directory / after["image"] if after else None),
                    "snapshot": (episode.directory / demo["snapshot"]).read_text(encoding="utf-8")
                    if demo.get("snapshot") else None,
                    "video_time_s": r.get("video_time_s"), "record": _json(r)})
    return out


def export_datasets(paths: list[Path], out_dir: str | os.PathLike) -> tuple[int, Path]:
    """Writes ``out_dir/data/train-00000-of-00001.parquet``; returns (rows, its path)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    types = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64()}
    schema = pa.schema([(name, image if f["_type"] == "Image" else types[f["dtype"]]) for name, f in FEATURES.items()],
                       metadata={"huggingface": json.dumps({"info": {"features": FEATURES}})})
    found = rows(paths)
    table = pa.Table.from_pylist(found, schema=schema)
    target = Path(out_dir) / "data" / "train-00000-of-00001.parquet"
    target.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, target)
    return len(found), target
