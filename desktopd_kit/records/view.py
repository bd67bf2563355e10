"""A static page to review episodes before they go into a dataset: it opens from file:// (no
server, no network). Per episode its steps; per step the screenshot before with the action drawn
where it acted (a ring at the point, the drag's line, the element's box), the text typed or keys
pressed, the element (role, name, ref, path), the source, the screenshot after, the video at the
step's time and the snapshot text. Images and the video are copied beside the page."""

from __future__ import annotations

import html
import json
import os
import shutil
from pathlib import Path

from .reader import EpisodeReader, StepView

STYLE = """body{font:14px sans-serif;margin:16px;background:#f6f6f6}
.step{background:#fff;border:1px solid #ccc;margin:12px 0;padding:8px}
.shots{display:flex;gap:8px;flex-wrap:wrap}.shot{position:relative;display:inline-block}
.shot img{display:block;width:640px;height:auto}.shot svg{position:absolute;left:0;top:0;width:100%;height:100%}
.person{color:#06c}.agent{color:#a50}pre{max-height:240px;overflow:auto;background:#eee;padding:4px}"""


def _esc(value: object) -> str:
    return html.escape("" if value is None else str(value))


def _to_image(step: dict, x: float, y: float) -> tuple[float, float]:
    """Screen pixels -> pixels of the step's before image."""
    obs = step["observation"]
    return (x - obs["region"]["x"]) * obs["scale"], (y - obs["region"]["y"]) * obs.get("scale_y", obs["scale"])


def marks(step: dict) -> str:
    """The SVG drawn over the before image, in its pixels (viewBox = the image's size)."""
    obs, action = step["observation"], step["action"]
    size = obs["image_size"]
    parts = []
    element = (step.get("demonstration") or {}).get("element") or (action.get("element") or {}).get("target")
    bounds = (element or {}).get("bounds") or (element or {}).get("screen")
    if bounds:
        x, y = _to_image(step, bounds["x"], bounds["y"])
        parts.append(f'<rect class="element-box" x="{x:.1f}" y="{y:.1f}" width="{bounds["width"] * obs["scale"]:.1f}" '
                     f'height="{bounds["height"] * obs.get("scale_y", obs["scale"]):.1f}" fill="none" stroke="#0a0" stroke-width="2"/>')
    issued = action["issued"]
    if action["kind"] == "drag" and isinstance(issued.get("path"), list):
        points = [_to_image(step, *p) for p in issued["path"]]
        parts.append('<polyline class="drag-line" fill="none" stroke="#f0f" stroke-width="3" points="'
                     + " ".join(f"{x:.1f},{y:.1f}" for x, y in points) + '"/>')
    point = action.get("point")
    if point:
        x, y = _to_image(step, point["x"], point["y"])
        parts.append(f'<circle class="action-mark" data-x="{point["x"]}" data-y="{point["y"]}" cx="{x:.1f}" '
                     f'cy="{y:.1f}" r="10" fill="none" stroke="#e00" stroke-width="3"/>'
                     f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2" fill="#e00"/>')
    return (f'<svg viewBox="0 0 {size["width"]} {size["height"]}" preserveAspectRatio="none" '
            f'xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>')


def _copy(source: Path, out: Path, name: str) -> str:
    target = out / name
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return name


def step_html(episode: EpisodeReader, step: StepView, out: Path, video: str | None) -> str:
    record, eid = step.record, episode.episode["episode_id"]
    action = record["action"]
    source = record.get("source", "agent")
    before = _copy(step.image_path, out, f"{eid}/{record['observation']['image']}")
    after_html = ""
    if record.get("after"):
        after = _copy(episode.directory / record["after"]["image"], out, f"{eid}/{record['after']['image']}")
        after_html = f'<div class="shot"><div>after</div><img class="after" src="{_esc(after)}"></div>'
    demo = record.get("demonstration") or {}
    element = demo.get("element") or (action.get("element") or {}).get("target")
    issued = action["issued"]
    said = issued.get("text") if action["kind"] == "type" else issued.get("keys")
    snapshot = ""
    if demo.get("snapshot"):
        snapshot = (f"<details><summary>snapshot</summary><pre>"
                    f"{_esc((episode.directory / demo['snapshot']).read_text(encoding='utf-8'))}</pre></details>")
    video_html = ""
    if video and record.get("video_time_s") is not None:
        video_html = f'<video controls preload="none" src="{_esc(video)}#t={record["video_time_s"]:.2f}" width="320"></video>'
    path = " > ".join(f"{p['role']} \"{p['name']}\"" for p in (element or {}).get("path") or [])
    return f"""<section class="step" id="{_esc(eid)}-{step.index}" data-index="{step.index}">
<h3>{step.index}. <span class="{_esc(source)}">{_esc(source)}</span> <span class="kind">{_esc(action['kind'])}</span>
{f'<q class="typed">{_esc(said)}</q>' if said else ''}</h3>
<div>action: <code>{_esc(json.dumps(issued, ensure_ascii=False))}</code></div>
<div>element: {_esc((element or {}).get('role'))} "{_esc((element or {}).get('name'))}" ref {_esc((element or {}).get('ref'))}
<small>{_esc(path)}</small></div>
<div>window: {_esc((demo.get('window') or {}).get('class'))} {_esc((demo.get('window') or {}).get('title'))}</div>
<div class="shots"><div class="shot"><div>before</div><div style="position:relative">
<img class="before" src="{_esc(before)}">{marks(record)}</div></div>{after_html}</div>
{video_html}{snapshot}</section>"""


def write_view(paths: list[Path], out_dir: str | os.PathLike) -> Path:
    """Writes ``out_dir/index.html`` (and the media it shows); returns the page's path."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    episodes: list[EpisodeReader] = []
    for path in paths:
        episodes.extend([EpisodeReader(path)] if (path / "episode.json").is_file() else EpisodeReader.all(path))
    sections, toc = [], []
    for episode in episodes:
        eid = episode.episode["episode_id"]
        video = None
        if episode.video_path is not None and episode.video_path.is_file():
            video = _copy(episode.video_path, out, f"{eid}/{episode.video_path.name}")
        steps = [step_html(episode, step, out, video) for step in episode]
        task = episode.episode.get("metadata", {}).get("task", "")
        toc.append(f'<li><a href="#{_esc(eid)}">{_esc(eid)}</a> {len(steps)} steps {_esc(task)}</li>')
        sections.append(f'<article class="episode" id="{_esc(eid)}"><h2>{_esc(eid)}</h2>{"".join(steps)}</article>')
    page = (f'<!doctype html><html><head><meta charset="utf-8"><title>Episodes</title><style>{STYLE}</style></head>'
            f'<body><h1>Episodes</h1><ul>{"".join(toc)}</ul>{"".join(sections)}</body></html>')
    index = out / "index.html"
    index.write_text(page, encoding="utf-8")
    return index
