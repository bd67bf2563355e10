"""A response body streamed into a file (never held in memory whole), hashed as it arrives.

The file appears under its name only once complete (written beside it as ``<name>.part``, then
renamed), so a reader never opens half a video."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class Saved:
    path: Path
    bytes: int
    sha256: str


class FileSink:
    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self.partial = self.path.with_name(self.path.name + ".part")
        self._file = open(self.partial, "wb")
        self._digest = hashlib.sha256()
        self._bytes = 0

    def write(self, chunk: bytes) -> None:
        self._file.write(chunk)
        self._digest.update(chunk)
        self._bytes += len(chunk)

    def finish(self) -> Saved:
        self._file.close()
        os.replace(self.partial, self.path)
        return Saved(self.path, self._bytes, self._digest.hexdigest())

    def abandon(self) -> None:
        """After a failed transfer: nothing is left behind."""
        self._file.close()
        self.partial.unlink(missing_ok=True)
