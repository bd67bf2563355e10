"""The vision models /api/v1/vision/act may use, from a JSON file named by a setting
(DESKTOPD_VISION_MODELS): nothing is hard-coded and nothing runs without one.

    {"default": "claude",
     "models": {"claude": {"api": "anthropic", "base_url": "https://...", "model": "...",
                           "key_file": "/run/secrets/anthropic", "display_width_px": 1280,
                           "display_height_px": 800}, ...}}

api: anthropic (Messages API, computer tool), openai (Responses API, computer_use_preview) or
chat (an OpenAI-compatible /v1/chat/completions serving a grounding model that answers one
JSON action with screen coordinates)."""

from __future__ import annotations

import json
from dataclasses import dataclass

APIS = ("anthropic", "openai", "chat")


class ModelConfigError(ValueError):
    """A models file that cannot work: settings refuse to start with it."""


@dataclass(frozen=True)
class VisionModel:
    name: str
    api: str
    base_url: str
    model: str
    key_file: str | None = None
    display_width_px: int | None = None   # the screenshot size the model sees (None: the screen's)
    display_height_px: int | None = None

    def key(self) -> str | None:
        """Read when used, so a rotated key file needs no restart."""
        if self.key_file is None:
            return None
        with open(self.key_file, encoding="utf-8") as handle:
            return handle.read().strip()


@dataclass(frozen=True)
class VisionModels:
    models: dict[str, VisionModel]
    default: str | None

    def pick(self, name: str | None) -> VisionModel | None:
        return self.models.get(name or self.default or "")


NO_MODELS = VisionModels({}, None)


def _text(entry: dict[str, object], key: str, where: str, required: bool = True) -> str | None:
    value = entry.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value:
        raise ModelConfigError(f"{where}.{key} must be a non-empty string")
    return value


def _size(entry: dict[str, object], key: str, where: str) -> int | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= 16384:
        raise ModelConfigError(f"{where}.{key} must be an integer 1..16384")
    return value


def parse_models(text: str) -> VisionModels:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ModelConfigError(f"not JSON: {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("models"), dict) or not raw["models"]:
        raise ModelConfigError('expected {"models": {"name": {...}, ...}, "default": "name"}')
    models = {}
    for name, entry in raw["models"].items():
        where = f"models.{name}"
        if not isinstance(entry, dict):
            raise ModelConfigError(f"{where} must be an object")
        api = _text(entry, "api", where)
        if api not in APIS:
            raise ModelConfigError(f"{where}.api must be one of {', '.join(APIS)}, got {api!r}")
        models[name] = VisionModel(name, api, str(_text(entry, "base_url", where)).rstrip("/"),
                                   str(_text(entry, "model", where)), _text(entry, "key_file", where, False),
                                   _size(entry, "display_width_px", where), _size(entry, "display_height_px", where))
    default = raw.get("default")
    if default is not None and default not in models:
        raise ModelConfigError(f"default names no model: {default!r}")
    return VisionModels(models, default if default is not None else (next(iter(models)) if len(models) == 1 else None))


def load_models(path: str | None) -> VisionModels:
    if not path:
        return NO_MODELS
    try:
        with open(path, encoding="utf-8") as handle:
            return parse_models(handle.read())
    except OSError as exc:
        raise ModelConfigError(f"cannot read it: {exc}") from None
