"""The vendor action formats desktopd serves, one module each, each declaring ``FORMAT`` (a
vendor_format.VendorFormat). A module added here is a new format: its routes and their OpenAPI
description, POST /api/v1/step's act field, /vision/act's executor and the harness kit's format
pick it up (tests/computer_use/test_formats.py checks they agree)."""

from __future__ import annotations

from httpapi.declared import declarations
from httpapi.routing import Route

from ..vendor_format import VendorFormat


def _declared() -> dict[str, VendorFormat]:
    found = declarations(__name__, __path__, "FORMAT", VendorFormat)
    return {fmt.name: fmt for fmt in sorted(found, key=lambda fmt: fmt.name)}


FORMATS = _declared()


def format_routes() -> list[Route]:
    """Every format's endpoints, in the formats' order."""
    return [route for fmt in FORMATS.values() for route in fmt.routes()]
