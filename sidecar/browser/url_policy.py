"""Which URLs the sidecar's API opens (POST /tabs, navigate): the web, and local files only below
the allowed directories. The desktop's own files (the secrets under /run, the home directory)
and Chromium's internal pages (chrome://crash, chrome://settings, devtools:) stay out of reach of
whoever drives the API, a web page included.

Pages themselves are not restricted here: a page's own links follow Chromium's rules (a web page
cannot navigate to file: or chrome: URLs)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

# Schemes whose documents cannot reach local files or the browser's internals.
WEB_SCHEMES = frozenset({"http", "https", "data"})
# about: pages that are just empty documents (about:blank#fragment too).
ABOUT_PAGES = frozenset({"blank", "srcdoc"})


class UrlRefused(ValueError):
    """The URL is outside what the API opens; the message says why and what is allowed."""


@dataclass(frozen=True)
class UrlPolicy:
    """file_roots: directories whose files (and subdirectories) may be opened as file: URLs."""
    file_roots: tuple[str, ...] = ()

    def check(self, url: str) -> None:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme in WEB_SCHEMES:
            return
        if scheme == "about":
            if parts.path.lower() in ABOUT_PAGES:
                return
            raise UrlRefused(f"about:{parts.path} is not opened through the API (only about:blank)")
        if scheme == "file":
            self._check_file(parts.netloc, unquote(parts.path))
            return
        raise UrlRefused(f"{scheme}: URLs are not opened through the API (allowed: http, https, data, "
                         "about:blank, and file: below the allowed directories)")

    def _check_file(self, host: str, path: str) -> None:
        if host not in ("", "localhost"):
            raise UrlRefused(f"file: URLs of another host ({host!r}) are not opened")
        real = os.path.realpath(path)
        for root in self.file_roots:
            root_real = os.path.realpath(root)
            if real == root_real or real.startswith(root_real.rstrip("/") + "/"):
                return
        allowed = ", ".join(self.file_roots) or "none configured"
        raise UrlRefused(f"file: URLs outside the allowed directories are not opened ({real}; allowed: "
                         f"{allowed}; set SIDECAR_FILE_ROOTS)")


def default_file_roots(start_urls: Iterable[str]) -> tuple[str, ...]:
    """The directories of the file: start URLs: a local start page may link to its neighbours."""
    roots = []
    for url in start_urls:
        parts = urlsplit(url)
        if parts.scheme.lower() == "file":
            directory = os.path.dirname(unquote(parts.path))
            # A start page at the top of the file system does not open all of it.
            if directory not in ("", "/") and directory not in roots:
                roots.append(directory)
    return tuple(roots)
