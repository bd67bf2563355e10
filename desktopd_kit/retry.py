"""Bounded retries with exponential backoff, for idempotent calls only."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .errors import DesktopError


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 3           # tries in all, the first included
    backoff_s: float = 0.2      # wait before the second try; doubled each time
    max_backoff_s: float = 2.0

    def delays(self) -> Iterator[float]:
        """The pause before each repeat (attempts - 1 of them)."""
        delay = self.backoff_s
        for _ in range(max(0, self.attempts - 1)):
            yield min(delay, self.max_backoff_s)
            delay *= 2

    @staticmethod
    def should_retry(idempotent: bool, error: DesktopError) -> bool:
        return idempotent and error.retryable


NO_RETRY = RetryPolicy(attempts=1)
