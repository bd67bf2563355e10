"""Typed application keys on aiohttp 3.9+ (web.AppKey), plain string keys on bookworm's 3.8."""

from __future__ import annotations

from typing import Any

from aiohttp import web


def app_key(name: str, kind: type | Any = object) -> Any:
    factory = getattr(web, "AppKey", None)
    return factory(name, kind) if factory is not None else name
