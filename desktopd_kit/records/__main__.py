"""python -m desktopd_kit.records demonstrate --desktop URL [--sidecar URL] --out DIR [--seconds S]
    (a person's demonstration, recorded until Ctrl-C or S seconds)
python -m desktopd_kit.records export --format mind2web|datasets EPISODE_OR_ROOT... --out DIR
python -m desktopd_kit.records replay EPISODE --desktop URL [--sidecar URL]   (exit 1 on a divergence)
python -m desktopd_kit.records view EPISODE_OR_ROOT... --out DIR   (a static page, from file://)
python -m desktopd_kit.records validate EPISODE_OR_ROOT...   (needs jsonschema; checks the files
the records name too: images, layouts, the video with its checksum and the steps' times in it)"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from .checks import problems
from .export import export_mind2web
from .format import schema
from .reader import EpisodeReader


def _episodes(paths: list[str]) -> list[EpisodeReader]:
    out = []
    for path in map(Path, paths):
        out.extend([EpisodeReader(path)] if (path / "episode.json").is_file() else EpisodeReader.all(path))
    return out


def validate(paths: list[str]) -> int:
    import jsonschema
    episode_schema, step_schema = schema("episode"), schema("step")
    count = 0
    for episode in _episodes(paths):
        jsonschema.validate(episode.episode, episode_schema)
        for step in episode:
            jsonschema.validate(step.record, step_schema)
            count += 1
        for problem in problems(episode):
            raise SystemExit(f"{episode.directory}: {problem}")
    print(json.dumps({"episodes": len(_episodes(paths)), "steps": count, "valid": True}))
    return 0


def demonstrate(args: argparse.Namespace) -> int:
    from ..client import Desktop
    from .demonstration import Demonstration
    token = args.token or os.environ.get("DESKTOPD_TOKEN")
    desktop = Desktop(args.desktop, token=token, sidecar_url=args.sidecar)
    metadata = {"task": args.task} if args.task else {}
    demo = Demonstration(desktop, args.out, episode_id=args.episode_id, metadata=metadata, video=args.video)
    demo.start()
    print(json.dumps({"recording": str(demo.directory)}), flush=True)
    try:
        demo.wait(args.seconds)
    except KeyboardInterrupt:
        pass
    finally:
        demo.close()
    print(json.dumps({"directory": str(demo.directory), "steps": demo.steps, "by_source": demo.by_source,
                      "error": demo.error}))
    return 0 if demo.error is None else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m desktopd_kit.records")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="write episodes in a public dataset layout")
    export.add_argument("paths", nargs="+", help="episode directories, or directories holding them")
    export.add_argument("--format", choices=["mind2web", "datasets"], default="mind2web",
                        help="mind2web: data.jsonl with images/ and trees/; datasets: Hugging Face "
                             "Parquet (data/*.parquet, images as Image features; needs pyarrow)")
    export.add_argument("--out", required=True, help="output directory")
    export.add_argument("--skip-other", action="store_true",
                        help="leave out steps with no Mind2Web operation (scroll, drag, keys, ...)")
    demo = commands.add_parser("demonstrate", help="record a person's demonstration on a desktop")
    demo.add_argument("--desktop", required=True, help="desktopd's URL")
    demo.add_argument("--sidecar", help="the sidecar's URL (the /layout element and snapshot of each step)")
    demo.add_argument("--token", help="the API token (default: $DESKTOPD_TOKEN)")
    demo.add_argument("--out", required=True, help="directory the episode directory is written in")
    demo.add_argument("--seconds", type=float, help="stop after this long (default: at Ctrl-C)")
    demo.add_argument("--episode-id", help="the episode's directory name (default: time and a random suffix)")
    demo.add_argument("--task", help="what the person does (metadata.task)")
    demo.add_argument("--video", action="store_true", help="record the screen too (video.mp4 in the episode)")
    again = commands.add_parser("replay", help="drive a desktop through a record (non-zero exit on a divergence)")
    again.add_argument("episode", help="the episode directory")
    again.add_argument("--desktop", required=True)
    again.add_argument("--sidecar", help="the sidecar's URL: elements are found again by role, name and path")
    again.add_argument("--token", help="the API token (default: $DESKTOPD_TOKEN)")
    view = commands.add_parser("view", help="write a static page (file://) to review episodes and their steps")
    view.add_argument("paths", nargs="+", help="episode directories, or directories holding them")
    view.add_argument("--out", required=True, help="directory of index.html and the media it shows")
    check = commands.add_parser("validate", help="check episodes against the JSON Schemas")
    check.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)
    if args.command == "validate":
        return validate(args.paths)
    if args.command == "demonstrate":
        return demonstrate(args)
    if args.command == "replay":
        from .replay import replay_main
        return replay_main(args.episode, args.desktop, args.sidecar, args.token or os.environ.get("DESKTOPD_TOKEN"))
    if args.command == "view":
        from .view import write_view
        print(json.dumps({"page": str(write_view([Path(p) for p in args.paths], args.out))}))
        return 0
    if args.format == "datasets":
        from .export_datasets import export_datasets
        count, target = export_datasets([Path(p) for p in args.paths], args.out)
        print(json.dumps({"format": "datasets", "rows": count, "out": str(target)}))
        return 0
    rows = export_mind2web([Path(p) for p in args.paths], args.out, skip_other=args.skip_other)
    print(json.dumps({"format": args.format, "rows": rows, "out": str(Path(args.out) / "data.jsonl")}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
