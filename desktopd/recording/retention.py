"""Which finished recordings to delete: those older than the age limit, then the oldest until the
rest fit the size limit. The newest finished one is kept by the size limit (its client may be
about to download it); only its age ends it. The recording running now is never a candidate.

Works on what is on disk (``recording-<id>.*`` files), so recordings left by an earlier desktopd
process are swept too."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

FILE_NAME = re.compile(r"^recording-([0-9a-f]{32})\.[a-z0-9]+$")
AGE = "age"
SIZE = "size"


@dataclass(frozen=True)
class Retention:
    max_age_s: float     # after it stopped (its files' last change)
    max_bytes: int       # all finished recordings' files together

    @property
    def sweep_interval_s(self) -> float:
        """How often the age limit is checked: a quarter of it, between half a second and a minute."""
        return min(60.0, max(0.5, self.max_age_s / 4))


@dataclass(frozen=True)
class StoredRecording:
    id: str
    paths: tuple[str, ...]
    bytes: int
    changed: float       # the newest mtime of its files (Unix time)


def stored_recordings(directory: str) -> list[StoredRecording]:
    """The recordings in ``directory``, oldest first."""
    groups: dict[str, list[tuple[str, os.stat_result]]] = {}
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    for name in names:
        match = FILE_NAME.match(name)
        if not match:
            continue
        path = os.path.join(directory, name)
        try:
            groups.setdefault(match.group(1), []).append((path, os.stat(path)))
        except FileNotFoundError:   # deleted meanwhile
            continue
    stored = [StoredRecording(rec_id, tuple(p for p, _ in files), sum(s.st_size for _, s in files),
                              max(s.st_mtime for _, s in files)) for rec_id, files in groups.items()]
    return sorted(stored, key=lambda r: (r.changed, r.id))


def expired(finished: list[StoredRecording], retention: Retention, now: float) -> list[tuple[StoredRecording, str]]:
    """(recording, AGE or SIZE) for each finished recording to delete; ``finished`` oldest first."""
    out = [(r, AGE) for r in finished if now - r.changed > retention.max_age_s]
    kept = [r for r in finished if now - r.changed <= retention.max_age_s]
    total = sum(r.bytes for r in kept)
    for recording in kept[:-1]:            # the newest stays for its download
        if total <= retention.max_bytes:
            break
        out.append((recording, SIZE))
        total -= recording.bytes
    return out
