"""Registries made of packages: each module of the package declares one object under a given
name, so adding a module registers it (the sidecar's /act kinds, desktopd's vendor formats)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")


def declarations(package: str, path: Iterable[str], name: str, kind: type[T]) -> list[T]:
    """The ``name`` of every module of ``package`` (its ``__name__`` and ``__path__``); a
    TypeError names a module whose declaration is not a ``kind``."""
    return [declared_in(f"{package}.{info.name}", name, kind) for info in pkgutil.iter_modules(path)]


def declared_in(module: str, name: str, kind: type[T]) -> T:
    """The ``name`` of ``module``, imported now (a declaration naming another module's part by
    its dotted name resolves it here); a TypeError when it is missing or not a ``kind``."""
    declared = getattr(importlib.import_module(module), name, None)
    if not isinstance(declared, kind):
        raise TypeError(f"{module}.{name} is not a {kind.__name__}")
    return declared
