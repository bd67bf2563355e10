"""One cheap in-page call per request: the window's metrics and a change signal for the cache.

The change signal is per frame ``token:changes:scrolls``. ``changes`` counts DOM mutations (a
MutationObserver) and the events that can change the accessibility tree or layout without one
(input, focus, loads, transitions, animations, fonts, resize, a content-visibility: auto element
rendered or skipped again, a media element's state); ``scrolls`` counts scrolling inside
the page (inner scrollers, iframes), which moves boxes but never changes the accessibility tree,
so only the DOM snapshot is taken again. The token is new for every document, so a navigation
changes it too. A frame seen for the first time gets its tracker then and reports
``?`` (not cacheable this time); a running animation reports ``a``; a frame the walk cannot enter
(cross-origin) reports ``x`` and must be covered by its own out-of-process session's probe.
Scrolling the top-level document is deliberately not a change: only viewport bounds depend on it,
and those are recomputed from fresh metrics on every request.

Each frame's tracker also remembers which nodes changed, and at which count (``dirty``), so
that patch.py can re-read only those parts of the accessibility tree. A change that can restyle
the whole page (at <html> or <body>, in <head>, a resize, fonts) is remembered as page-wide
(``wide``: the patch then checks the page's rendering, see restyle.py); too many changed nodes
leave the record incomplete (``floor``), and the next capture is a full one.

Every change (and inner scroll) also schedules a call of the ``Runtime.addBinding`` function
``BINDING`` shortly after (debounced), so the sidecar can rebuild the layout in the
background; freshness never depends on that call, only on the counters.

Scroll events come with the next frame, so script scrolling (scrollTop/scrollLeft, scrollTo,
scrollBy, scrollIntoView...) is counted as it is called. Shadow roots are observed too (open
ones present at install, and every one attached later). Style sheets changed through the CSSOM
(insertRule and the like, adoptedStyleSheets) and a new URL fragment (:target) count as page-wide
changes, and so do a rule's declarations, selector or media edited in place. Form controls in
content Chromium skips (content-visibility) are styled by the tracker as they come (Chromium
would style them later by itself, with no event). The pointer entering
or leaving an element counts too (:hover). A closed shadow root that script attached before the
install is observed when ``EARLY_SCRIPT`` ran first in its document. Known limits: other closed
shadow roots attached before the install (and closed roots declared in HTML), and a rule's
property set by name (``sheet.cssRules[0].style.color = ...``), are not seen.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..geometry.spaces import WindowMetrics
from ...page_js import load_js
from ...cdp.protocol.cdp_commands import RuntimeEvaluateParams

# Whether an element is a <select> with its popup open (for the probe and patch.py's take).
OPEN_SELECT = load_js("sidecar.layout.probing", "open_select.js")

_PROBE = load_js("sidecar.layout.probing", "probe.js")

TRACKER_KEY = "__desktopdLayoutTracker"    # the window property holding a frame's tracker
SHADOW_KEY = "__desktopdShadowRoots"       # shadow roots attached before the tracker's install
BINDING = "__desktopdLayoutChanged"        # the Runtime.addBinding function (refresh.py)
NOTIFY_DELAY_MS = 15         # the page's debounce before it reports a burst of changes
MAX_DIRTY = 512              # changed nodes remembered per frame; beyond: a full capture
PROBE_PARAMS: RuntimeEvaluateParams = {"expression": _PROBE.replace("__KEY__", TRACKER_KEY)
                                .replace("__OPEN_SELECT__", OPEN_SELECT)
                                .replace("__SHADOW_KEY__", SHADOW_KEY)
                                .replace("__BINDING__", BINDING)
                                .replace("__DELAY__", str(NOTIFY_DELAY_MS))
                                .replace("__MAX_DIRTY__", str(MAX_DIRTY)), "returnByValue": True,
                                "awaitPromise": False, "silent": True}


# Until every frame's due recount (the tracker's "settle") has counted, or SETTLE_LIMIT_MS: a read
# taken before the recount would be taken again after it. The page's own limit frees the waiter
# even when nobody waits any more (the sidecar's call has a shorter timeout of its own).
_SETTLE_WAIT = load_js("sidecar.layout.probing", "settle_wait.js")
SETTLE_LIMIT_MS = 200
SETTLE_PARAMS: RuntimeEvaluateParams = {"expression": _SETTLE_WAIT.replace("__KEY__", TRACKER_KEY)
                                 .replace("__LIMIT__", str(SETTLE_LIMIT_MS)),
                                 "returnByValue": True, "awaitPromise": True, "silent": True}


# Run in every new document before its own scripts (Page.addScriptToEvaluateOnNewDocument, once
# per session: it survives navigations): a closed shadow root is reachable only from what
# attachShadow returns, so it is kept (weakly) until the tracker installs and observes it.
# A closed root declared in HTML (<template shadowrootmode="closed">) makes no call: unseen.
EARLY_SCRIPT = load_js("sidecar.layout.probing", "early_script.js").replace("__SHADOW_KEY__", SHADOW_KEY)


@dataclass(frozen=True)
class ProbeResult:
    frames: tuple[str, ...]
    device_pixel_ratio: float
    screen_x: float
    screen_y: float
    outer_width: float
    outer_height: float
    inner_width: float
    inner_height: float
    client_width: float        # documentElement.clientWidth/Height: inner size minus scrollbars
    client_height: float
    visible: bool | None = None  # document.visibilityState == "visible"; None if not reported
    # A <select>'s popup opened or closed since the last probe: Chromium's tree shows that in a
    # whole read (getFullAXTree) only, not yet in subtree reads (patches).
    popup_changed: bool = False
    # A focused <select>'s popup is open: while it is, the keys change the select's value and
    # the popup's highlighted option in Chromium's tree with no event or mutation in the page.
    popup_open: bool = False
    # A frame's tracker counts its changed nodes again within two animation frames: a read
    # taken now would be taken again (change_signal.settled waits for it instead).
    settling: bool = False

    @property
    def unreachable_frames(self) -> int:
        return sum(1 for f in self.frames if f == "x")

    @property
    def structure(self) -> tuple[str, ...]:
        """The frames' signal without scroll counts: what the accessibility tree depends on."""
        return tuple(f.rsplit(":", 1)[0] if f.count(":") == 2 else f for f in self.frames)

    @property
    def trackable(self) -> bool:
        """True when every frame script reached reported a stable change count."""
        return all(f not in ("?", "a") for f in self.frames)

    def window(self, layout_device_width: float, layout_device_height: float) -> WindowMetrics:
        """The window geometry with the content area measured in device pixels.

        ``layout_device_*``: the layout viewport without scrollbars from Page.getLayoutMetrics (its
        non-css fields are device pixels). Scrollbars are added back from innerWidth-clientWidth,
        so the content size is measured from the exact device figure, not a rounded CSS one.
        """
        dpr = self.device_pixel_ratio
        vbar = max(0.0, self.inner_width - self.client_width) * dpr
        hbar = max(0.0, self.inner_height - self.client_height) * dpr
        return WindowMetrics(screen_x=self.screen_x, screen_y=self.screen_y,
                             outer_width=self.outer_width, outer_height=self.outer_height,
                             content_width=layout_device_width + vbar,
                             content_height=layout_device_height + hbar)


def document_token(frame_signal: str) -> str:
    """The document part of a frame's ``token:changes:scrolls`` (new for every document)."""
    return frame_signal.split(":", 1)[0]


def parse_probe(result: dict) -> ProbeResult:
    """The value of a Runtime.evaluate of PROBE_PARAMS; ValueError if the page threw."""
    if "exceptionDetails" in result:
        text = result["exceptionDetails"].get("text", "exception")
        raise ValueError(f"layout probe failed in the page: {text}")
    value = result.get("result", {}).get("value")
    if not isinstance(value, dict):
        raise ValueError("layout probe returned no value")
    return ProbeResult(
        frames=tuple(str(f) for f in value.get("frames", ())),
        device_pixel_ratio=float(value.get("dpr") or 1.0),
        screen_x=float(value.get("screenX", 0)), screen_y=float(value.get("screenY", 0)),
        outer_width=float(value.get("outerWidth", 0)), outer_height=float(value.get("outerHeight", 0)),
        inner_width=float(value.get("innerWidth", 0)), inner_height=float(value.get("innerHeight", 0)),
        client_width=float(value.get("clientWidth", 0)), client_height=float(value.get("clientHeight", 0)),
        visible=None if "visibility" not in value else value["visibility"] == "visible",
        popup_changed=bool(value.get("popup")),
        popup_open=bool(value.get("popupOpen")),
        settling=bool(value.get("settling")),
    )
