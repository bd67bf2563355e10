"""The vendor action formats desktopd serves, one declaration module each, each declaring
``FORMAT`` (a vendor_format.VendorFormat) and naming its server side in
``desktopd/computer/format_servers/``. A module added here is a new format: its routes and their
OpenAPI description, POST /api/v1/step's act field, /vision/act's executor and the kit pick it up
(tests/computer_use/test_formats.py checks they agree). Importing this loads declarations only:
the harness kit does."""

from __future__ import annotations

from httpapi.declared import declarations

from ..vendor_format import VendorFormat


def _declared() -> dict[str, VendorFormat]:
    found = declarations(__name__, __path__, "FORMAT", VendorFormat)
    return {fmt.name: fmt for fmt in sorted(found, key=lambda fmt: fmt.name)}


FORMATS = _declared()
