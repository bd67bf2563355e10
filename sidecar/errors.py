"""The sidecar's one error vocabulary.

The browser and layout code raise domain exceptions (these, the CDP client's and
``ChromiumUnavailable``); ``HTTP_FORMS`` is the ONE table that gives each its HTTP status and
error code. The app's middleware applies it to every route, and /layout applies it to a tab whose
layout failed (that tab's entry carries the same code as a route would answer). docs/sidecar.md
lists the table; tests/sidecar_service/test_app_errors.py checks each row.
"""

from __future__ import annotations

from dataclasses import dataclass

from httpapi.errors import ApiError

from .cdp.connection import CDPDisconnected, CDPError, CDPSessionClosed, CDPTimeout
from .state.har import HarStateError
from .state.profiles import ProfileError, ProfileInUse, ProfileMissing
from .state.storage_state import StateRefused


class ChromiumUnavailable(Exception):
    """There is no connected Chromium right now (starting, restarting or failing to start)."""


class TabNotFound(LookupError):
    """No tab has that id (or unique id prefix). ``field``: the request field that named it."""

    def __init__(self, tab_id: str, field: str | None = None) -> None:
        super().__init__(f"no tab with id (or unique id prefix) {tab_id!r}; see GET /tabs")
        self.field = field


class RendererCrashed(Exception):
    """The tab's renderer crashed (it is being reloaded, or POST /tabs/{id}/reload revives it)."""


class TabUnresponsive(Exception):
    """The tab did not answer within its budget (a script that does not yield); it is read again
    once it answers."""


class NavigationPending(Exception):
    """The tab is loading a new document, and its previous one was never read: nothing can be
    read from it until the navigation commits or fails (Chromium holds the calls till then)."""


class PageChanging(Exception):
    """The document kept changing (navigating) while it was read; asking again usually works."""


class LayoutUnavailable(Exception):
    """Chromium refused a read of the page, as happens while it navigates (e.g. "Frame not
    found"); asking again usually works."""


@dataclass(frozen=True)
class HttpForm:
    status: int
    code: str
    retry_after: int | None = None       # seconds, for errors that pass by themselves


# Most specific first (CDPTimeout, CDPDisconnected and CDPSessionClosed are CDPErrors).
HTTP_FORMS: tuple[tuple[type[BaseException], HttpForm], ...] = (
    (TabNotFound, HttpForm(404, "tab_not_found")),
    (ProfileMissing, HttpForm(404, "profile_not_found")),
    (ProfileInUse, HttpForm(409, "profile_in_use")),
    (ProfileError, HttpForm(422, "invalid_field")),
    (StateRefused, HttpForm(422, "invalid_field")),
    (HarStateError, HttpForm(409, "har_state")),
    (CDPSessionClosed, HttpForm(409, "tab_closed")),
    (PageChanging, HttpForm(409, "tab_changing")),
    (ChromiumUnavailable, HttpForm(503, "chromium_unavailable", retry_after=1)),
    (CDPDisconnected, HttpForm(503, "chromium_unavailable", retry_after=1)),
    (RendererCrashed, HttpForm(503, "renderer_crashed", retry_after=1)),
    (TabUnresponsive, HttpForm(503, "tab_unresponsive", retry_after=1)),
    (NavigationPending, HttpForm(503, "navigation_pending", retry_after=1)),
    (LayoutUnavailable, HttpForm(503, "layout_unavailable", retry_after=1)),
    (CDPTimeout, HttpForm(504, "cdp_timeout")),
    (CDPError, HttpForm(502, "cdp_error")),
)
DOMAIN_ERRORS = tuple(kind for kind, _form in HTTP_FORMS)


def http_form(exc: BaseException) -> HttpForm | None:
    for kind, form in HTTP_FORMS:
        if isinstance(exc, kind):
            return form
    return None


def as_api_error(exc: BaseException, *, extra: dict[str, object] | None = None) -> ApiError:
    """``exc`` in its HTTP form (HTTP_FORMS); an exception outside the table is a bug: 500."""
    form = http_form(exc)
    if form is None:
        return ApiError(500, "internal_error", f"{type(exc).__name__}: {exc}")
    detail: object = str(exc)
    if isinstance(exc, CDPError) and form.code == "cdp_error":
        detail = {"method": exc.method, "code": exc.code, "message": exc.message}
    headers = {"Retry-After": str(form.retry_after)} if form.retry_after is not None else None
    return ApiError(form.status, form.code, detail, field=getattr(exc, "field", None), headers=headers,
                    extra=extra)
