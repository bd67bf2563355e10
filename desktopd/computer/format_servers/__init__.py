"""The vendor formats' server sides, one module each declaring ``SERVER`` (a
vendor_format.FormatServer: the executor and the endpoints), named by the format's declaration in
``formats/`` and imported when desktopd builds its routes, never by the harness kit."""

from __future__ import annotations

from httpapi.routing import Route

from ..formats import FORMATS


def format_routes() -> list[Route]:
    """Every format's endpoints on /api/v1/computer/<name>, in the formats' order."""
    return [Route(e.method, fmt.path, e.handler, e.summary, "computer", query=e.query, body=e.body,
                  success={"application/json": {"schema": e.result}}, description=e.description)
            for fmt in FORMATS.values() for e in fmt.server_side().endpoints]
