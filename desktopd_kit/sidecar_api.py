"""The sidecar's endpoints (the browser: tabs, layout, the agent layer, lasting state) as methods
of both clients; see api.py for how an endpoint is written."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from .calls import JSON, Call, body, json_reply, path_segment, query, text_reply
from .endpoint import endpoint

History = Literal["back", "forward", "reload"]
PLAYWRIGHT_DEFAULT_S = 60.0     # the sidecar's own default and bound of one /playwright run
PLAYWRIGHT_MAX_S = 300.0


class SidecarApi:
    # -- sidecar: the browser ---------------------------------------------------------------
    @endpoint
    def sidecar_health(self) -> Call[dict]:
        return Call("sidecar", "GET", "/health", json_reply, ok_statuses=(200, 503))

    @endpoint
    def layout(self, *, tab: str | None = None, interesting: bool | None = None,
               roles: str | Sequence[str] | None = None, max_nodes: int | None = None,
               fresh: bool | None = None) -> Call[dict]:
        """Every tab's accessibility tree with document, viewport and screen bounds."""
        return Call("sidecar", "GET", "/layout", json_reply, params=query(
 tab=tab, interesting=interesting, max_nodes=max_nodes, fresh=fresh,
 roles=roles if roles is None or isinstance(roles, str) else ",".join(roles)))

    @endpoint
    def tabs(self) -> Call[list[dict]]:
        return Call("sidecar", "GET", "/tabs", json_reply)

    @endpoint
    def tab(self, tab_id: str) -> Call[dict]:
        return Call("sidecar", "GET", f"/tabs/{path_segment(tab_id)}", json_reply)

    @endpoint
    def targets(self) -> Call[list[dict]]:
        return Call("sidecar", "GET", "/targets", json_reply)

    @endpoint
    def open_tab(self, url: str = "about:blank", *, background: bool = False) -> Call[dict]:
        return Call("sidecar", "POST", "/tabs", json_reply, json={"url": url, "background": background})

    @endpoint
    def close_tab(self, tab_id: str) -> Call[dict]:
        return Call("sidecar", "DELETE", f"/tabs/{path_segment(tab_id)}", json_reply)

    @endpoint
    def activate_tab(self, tab_id: str) -> Call[dict]:
        return Call("sidecar", "POST", f"/tabs/{path_segment(tab_id)}/activate", json_reply)

    @endpoint
    def navigate(self, tab_id: str, url: str, *, wait: Literal["load", "none"] = "load",
                 timeout: float | None = None) -> Call[dict]:
        """Loads ``url`` in the tab; with wait="load" answers after its load event."""
        return Call("sidecar", "POST", f"/tabs/{path_segment(tab_id)}/navigate", json_reply,
                    json=body(url=url, wait=wait, timeout=timeout),
                    extra_timeout=float(timeout or 30.0))

    @endpoint
    def reload_tab(self, tab_id: str, *, wait: Literal["load", "none"] = "load",
                   timeout: float | None = None) -> Call[dict]:
        return Call("sidecar", "POST", f"/tabs/{path_segment(tab_id)}/reload", json_reply,
                    json=body(wait=wait, timeout=timeout), extra_timeout=float(timeout or 30.0))

    @endpoint
    def sidecar_openapi(self) -> Call[dict]:
        return Call("sidecar", "GET", "/openapi.json", json_reply)

    # -- sidecar: lasting browser state -----------------------------------------------------
    @endpoint
    def profiles(self) -> Call[dict]:
        """{"profiles": [{"name", "in_use", "bytes", "modified"}], "current": name or None}"""
        return Call("sidecar", "GET", "/profiles", json_reply)

    @endpoint
    def delete_profile(self, name: str) -> Call[dict]:
        return Call("sidecar", "DELETE", f"/profiles/{path_segment(name)}", json_reply)

    @endpoint
    def storage_state(self, origins: Sequence[str] = ()) -> Call[dict]:
        """Cookies and localStorage in Playwright's storageState format (secrets: keep private)."""
        return Call("sidecar", "GET", "/storage-state", json_reply,
                    params=query(origins=",".join(origins) or None), extra_timeout=30.0)

    @endpoint
    def load_storage_state(self, state: Mapping[str, JSON]) -> Call[dict]:
        """Loads a storageState (from storage_state(), a file, or Playwright) into the browser."""
        return Call("sidecar", "POST", "/storage-state", json_reply, json=dict(state),
                    extra_timeout=30.0)

    @endpoint
    def har_start(self, *, tab: str | None = None, content: bool | None = None,
                  max_body_bytes: int | None = None) -> Call[dict]:
        """Starts capturing every tab's requests (or one more ``tab``'s) as HAR."""
        return Call("sidecar", "POST", "/har/start", json_reply,
                    json=body(tab=tab, content=content, max_body_bytes=max_body_bytes))

    @endpoint
    def har_stop(self, *, tab: str | None = None) -> Call[dict]:
        """Stops the capture (or only ``tab``'s) and returns it as HAR 1.2."""
        return Call("sidecar", "POST", "/har/stop", json_reply, json=body(tab=tab),
                    extra_timeout=10.0)

    @endpoint
    def har(self, *, since: int = 0) -> Call[dict]:
        """The running capture's entries from ``since`` (an entry's _seq) on, and ``next``."""
        return Call("sidecar", "GET", "/har", json_reply, params=query(since=since))

    # -- sidecar: the agent layer (docs/agent.md) ----------------------------------------------
    @endpoint
    def snapshot(self, *, tab: str | None = None, interactive: bool | None = None,
                 max_chars: int | None = None, ref: str | None = None, depth: int | None = None,
                 diff: bool | None = None) -> Call[str]:
        """The tab as an agent reads it: an indented text tree whose elements carry refs."""
        return Call("sidecar", "GET", "/snapshot", text_reply, params=query(
            tab=tab, interactive=interactive, max_chars=max_chars, ref=ref, depth=depth, diff=diff))

    @endpoint
    def act(self, fields: Mapping[str, JSON]) -> Call[dict]:
        """POST /act: ``{"kind": ..., "ref": ..., ...}`` as docs/agent.md lists the kinds."""
        return Call("sidecar", "POST", "/act", json_reply, json=dict(fields))

    @endpoint
    def history(self, go: History, *, tab: str | None = None) -> Call[dict]:
        """Back, forward or reload the tab (default: the tab in front)."""
        return Call("sidecar", "POST", f"/{go}", json_reply, json=body(tab=tab))

    @endpoint
    def playwright(self, code: str, *, timeout_s: float | None = None, tab: str | None = None) -> Call[dict]:
        """Runs Python Playwright code against the live browser; the call waits as long as the run may."""
        return Call("sidecar", "POST", "/playwright", json_reply,
                    json=body(code=code, timeout_s=timeout_s, tab=tab),
                    extra_timeout=min(timeout_s or PLAYWRIGHT_DEFAULT_S, PLAYWRIGHT_MAX_S))
