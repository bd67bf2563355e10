"""What the recogniser read from a line image, kept by the image's exact pixels: an agent reads a
mostly unchanged screen again and again, and only the lines whose pixels changed need reading.
A key is a digest of every pixel and the size, so a changed line can never be answered from here."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

from PIL import Image

from .text import Line

# Lines of several screens' worth (a full screen has a few hundred).
CAPACITY = 4096


def line_key(image: Image.Image, mode: int) -> bytes:
    digest = hashlib.blake2b(image.tobytes(), digest_size=20)
    digest.update(f"{image.mode}:{image.width}x{image.height}:{mode}".encode())
    return digest.digest()


class LineCache:
    """Least recently used first out; safe to share between threads."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self._capacity = capacity
        self._lines: OrderedDict[bytes, list[Line]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: bytes) -> list[Line] | None:
        with self._lock:
            found = self._lines.get(key)
            if found is not None:
                self._lines.move_to_end(key)
            return found

    def put(self, key: bytes, lines: list[Line]) -> None:
        with self._lock:
            self._lines[key] = lines
            self._lines.move_to_end(key)
            while len(self._lines) > self._capacity:
                self._lines.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._lines.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._lines)
