"""The vendor formats' server sides, one module each declaring ``SERVER`` (a
vendor_format.FormatServer: the executor and the endpoints), named by the format's declaration in
``formats/`` and imported when desktopd builds its routes, never by the harness kit."""

from __future__ import annotations

from desktopd_contract.formats import FORMATS
from httpapi.routing import Route

from ..vendor_format import server_side


def format_routes() -> list[Route]:
    """Every format's endpoints on /api/v1/computer/<name>, in the formats' order."""
    return [Route(e.method, fmt.path, e.handler, e.summary, "computer", body=e.body,
                  returns=e.result, description=e.description)
            for fmt in FORMATS.values() for e in server_side(fmt).endpoints]
