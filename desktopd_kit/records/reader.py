"""EpisodeReader: an episode directory's metadata and steps, images and layouts read lazily."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .format import EPISODE_FILE, STEPS_FILE


@dataclass(frozen=True)
class StepView:
    directory: Path
    record: dict

    @property
    def index(self) -> int:
        return self.record["index"]

    @property
    def action(self) -> dict:
        return self.record["action"]

    @property
    def image_path(self) -> Path:
        return self.directory / self.record["observation"]["image"]

    def image(self):  # noqa: ANN201 - a PIL image; Pillow is imported only when asked
        from PIL import Image
        with Image.open(self.image_path) as image:
            return image.convert("RGB")

    @property
    def layout_path(self) -> Path | None:
        name = self.record["observation"]["layout"]
        return self.directory / name if name else None

    def layout(self) -> dict | None:
        path = self.layout_path
        return json.loads(path.read_text()) if path else None


class EpisodeReader:
    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = Path(directory)
        self.episode = json.loads((self.directory / EPISODE_FILE).read_text())

    @property
    def video_path(self) -> Path | None:
        """The episode's screen video in its directory; None when it has none (or it was lost)."""
        video = (self.episode.get("recording") or {}).get("video")
        return self.directory / video["file"] if video and video["file"] else None

    def __iter__(self) -> Iterator[StepView]:
        with open(self.directory / STEPS_FILE, encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    yield StepView(self.directory, json.loads(line))

    def __len__(self) -> int:
        return sum(1 for _ in self)

    @classmethod
    def all(cls, root: str | os.PathLike) -> Iterator[EpisodeReader]:
        """Every episode directory below ``root`` (sorted by name)."""
        for path in sorted(Path(root).iterdir()):
            if (path / EPISODE_FILE).is_file():
                yield cls(path)
