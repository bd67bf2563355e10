"""The one JSON error type of the HTTP APIs: ``{"error": ..., "detail": ...}``. No aiohttp here:
request models (fields.py) raise it, and the harness kit imports format declarations made of them."""

from __future__ import annotations


class ApiError(Exception):
    """An error a handler wants the client to see, with its HTTP status.

    ``error`` is a short machine-readable code; ``detail`` is a human sentence or a structure
    (for validation errors, ``field`` names the offending request field).
    """

    def __init__(self, status: int, error: str, detail: object = None, *, field: str | None = None,
                 headers: dict[str, str] | None = None, extra: dict[str, object] | None = None) -> None:
        super().__init__(f"{status} {error}: {detail}")
        self.status = status
        self.error = error
        self.detail = detail
        self.field = field
        self.headers = headers or {}
        # Members a route's own contract adds to its error bodies (e.g. /layout's "tabs": []).
        self.extra = extra or {}

    def body(self) -> dict[str, object]:
        body = error_body(self.error, self.detail)
        if self.field is not None:
            body["field"] = self.field
        body.update(self.extra)
        return body


def bad_request(detail: object) -> ApiError:
    return ApiError(400, "bad_request", detail)


def invalid(field: str, detail: str) -> ApiError:
    """422 for a request that parsed but whose ``field`` is wrong."""
    return ApiError(422, "invalid_field", f"{field}: {detail}", field=field)


def not_found(detail: object) -> ApiError:
    return ApiError(404, "not_found", detail)


def unavailable(detail: object, *, retry_after: int | None = None) -> ApiError:
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return ApiError(503, "unavailable", detail, headers=headers)


def error_body(error: str, detail: object = None) -> dict[str, object]:
    return {"error": error, "detail": detail}
