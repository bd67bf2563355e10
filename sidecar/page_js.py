"""JavaScript the sidecar runs in pages lives in .js files beside the modules that send it
(``<package>/js/<name>.js``), read once when that module is imported."""

from __future__ import annotations

from importlib import resources


def load_js(package: str, name: str) -> str:
    """The text of ``<package>/js/<name>`` (a template when its module fills placeholders in)."""
    return resources.files(package).joinpath("js", name).read_text(encoding="utf-8")
