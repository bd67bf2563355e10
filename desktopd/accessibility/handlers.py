"""GET /api/v1/accessibility and POST /api/v1/accessibility/{id}/do.

The one place where the accessibility layer's errors become HTTP ones: no bus -> 503, unknown or
gone node -> 404, unknown action -> 422 naming it, an application that refuses -> 502.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import ParamSpec, TypeVar

from aiohttp import web

from desktopd import app_keys
from desktopd.app_keys import backend_service
from desktopd_contract.windows import WindowInfo
from httpapi.errors import ApiError, not_found, unavailable

from .bus import BusUnavailable
from .models import AccessibilityAction, AccessibilityQuery
from .service import AccessibilityService, ActionFailed, NodeNotFound, TreeQuery, UnknownAction
from .snapshot import TreeFilter

P = ParamSpec("P")
R = TypeVar("R")


def _service(request: web.Request) -> AccessibilityService:
    return request.app[app_keys.ACCESSIBILITY]


def _mapped(handler: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await handler(*args, **kwargs)
        except BusUnavailable as exc:
            raise unavailable(f"the accessibility bus is not available: {exc}", retry_after=1) from None
        except NodeNotFound as exc:
            raise not_found(str(exc)) from None
        except UnknownAction as exc:
            raise ApiError(422, "invalid_field", {"message": f"action: {exc}", "available": exc.available},
                           field="action") from None
        except ActionFailed as exc:
            raise ApiError(502, "application_error", str(exc)) from None

    run.__name__ = handler.__name__
    return run


async def _x_windows(request: web.Request) -> Sequence[WindowInfo]:
    xs = backend_service(request)
    try:
        return await xs.call(lambda desk: desk.windows())
    except ApiError:
        return []  # no X: the tree still comes, without window ids


@_mapped
async def accessibility_tree(request: web.Request, q: AccessibilityQuery) -> web.Response:
    roles = frozenset(r.strip().lower() for r in q["roles"].split(",") if r.strip()) if q["roles"] else None
    tree_query = TreeQuery(window=q["window"], pid=q["pid"], app=q["app"],
                           merge_browser=q["merge"] == "browser", seconds=q["timeout_ms"] / 1000,
                           filter=TreeFilter(interesting=q["interesting"], roles=roles,
                                             max_depth=q["max_depth"], max_nodes=q["max_nodes"]))
    body = await _service(request).tree(tree_query, lambda: _x_windows(request),
                                        backend_service(request).atspi_extents)
    width, height = backend_service(request).screen or (None, None)
    body["screen"] = {"width": width, "height": height}
    return web.json_response(body)


@_mapped
async def accessibility_do(request: web.Request, params: AccessibilityAction) -> web.Response:
    node_id = request.match_info["id"]
    return web.json_response(await _service(request).do(node_id, params["action"],
                                                        params["timeout_ms"] / 1000))
