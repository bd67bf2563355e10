"""quick_aim on fake sessions: an element of a same-process iframe is aimed by its content quads
and the browser's hit test (no whole-tab read), from the middle of the view when something covers
it where it is; an out-of-process iframe's element by its own measure placed through its iframe
element, the part the page hides left out; deeper iframes are left to the whole read."""

from __future__ import annotations

from sidecar.agent.aim import quick_aim
from sidecar.cdp.targets import ChildTarget
from sidecar.agent.refs import ElementKey
from sidecar.agent.resolve import Element

MAIN, FRAME, BUTTON = "MAIN", "FRAME", 7
# A 640x350 DIP viewport at device scale factor 2, the window at (10, 20), scrolled 300 px down.
WINDOW = {"screenX": 10, "screenY": 20, "outerWidth": 640, "outerHeight": 400, "innerWidth": 640,
          "innerHeight": 350, "dpr": 2, "clientWidth": 640, "clientHeight": 350}
METRICS = {"layoutViewport": {"clientWidth": 1280, "clientHeight": 700},
           "cssLayoutViewport": {"pageX": 0, "pageY": 300},
           "cssVisualViewport": {"pageX": 0, "pageY": 300, "clientWidth": 640, "clientHeight": 350,
                                 "scale": 1, "zoom": 1}}


def box(left: float, top: float, right: float, bottom: float) -> list[float]:
    return [left, top, right, top, right, bottom, left, bottom]


class FakePage:
    """A page session answering the calls of the frame aim; ``hits``: getNodeForLocation's
    answer per attempt, ``quads``: getContentQuads' per attempt."""

    target_id = "T"

    def __init__(self, quads: list[list[list[float]]], hits: list[dict], contains: bool = False) -> None:
        self.quads, self.hits, self.contains = list(quads), list(hits), contains
        self.sent: list[tuple[str, dict]] = []

    async def send(self, method: str, params: dict | None = None, **_kw: object) -> dict:
        params = params or {}
        self.sent.append((method, params))
        if method == "DOM.getContentQuads":
            return {"quads": self.quads.pop(0)}
        if method == "Page.getLayoutMetrics":
            return METRICS
        if method == "Runtime.evaluate":
            return {"result": {"type": "object", "value": WINDOW}}
        if method == "DOM.getNodeForLocation":
            return self.hits.pop(0)
        if method == "DOM.resolveNode":
            return {"object": {"objectId": "hit"}}
        if method == "Runtime.callFunctionOn":
            return {"result": {"value": self.contains if params.get("arguments") else None}}
        raise AssertionError(f"unexpected call {method}")

    def count(self, method: str) -> int:
        return sum(1 for sent, _params in self.sent if sent == method)


def frame_element(page: FakePage, session: object | None = None) -> Element:
    return Element("f1e1", ElementKey("T", FRAME, BUTTON, "L"), page,  # type: ignore[arg-type]
                   session or page, "element")  # type: ignore[arg-type]


async def test_a_same_process_frame_element_is_aimed_by_its_quads() -> None:
    page = FakePage([[box(100, 200, 200, 220)]], [{"backendNodeId": BUTTON, "frameId": FRAME}])
    aim = await quick_aim(frame_element(page), MAIN, 1.0)
    assert aim is not None
    assert aim.viewport == (150.0, 210.0)
    # origin: 2 * (10, 20) plus the browser's UI above the content (800 - 700 device px).
    assert aim.screen == (20 + 150 * 2, 140 + 210 * 2)
    hit_test = next(params for method, params in page.sent if method == "DOM.getNodeForLocation")
    assert (hit_test["x"], hit_test["y"]) == (150, 510)        # document coordinates
    assert page.count("Runtime.callFunctionOn") == 0              # not scrolled


async def test_the_centre_of_the_largest_visible_part() -> None:
    # A link wrapped over two lines, its first line half out of the viewport on the left.
    page = FakePage([[box(-50, 100, 50, 120), box(10, 120, 70, 140)]],
                    [{"backendNodeId": 99, "frameId": FRAME}], contains=True)
    aim = await quick_aim(frame_element(page), MAIN, 1.0)
    assert aim is not None and aim.viewport == (40.0, 130.0)    # the whole second line wins
    assert page.count("DOM.resolveNode") == 1                       # a hit inside the element


async def test_a_covered_element_is_tried_from_the_middle_then_left_to_the_whole_read() -> None:
    header = {"backendNodeId": 3, "frameId": MAIN}
    page = FakePage([[box(100, 0, 200, 20)], [box(100, 160, 200, 180)]], [header, header])
    assert await quick_aim(frame_element(page), MAIN, 1.0) is None
    scrolls = [p for m, p in page.sent if m == "Runtime.callFunctionOn"]
    assert len(scrolls) == 1 and "scrollIntoView" in scrolls[0]["functionDeclaration"]
    assert page.count("DOM.getNodeForLocation") == 2


async def test_an_element_out_of_view_is_scrolled_to_the_middle() -> None:
    page = FakePage([[box(100, -90, 200, -70)], [box(100, 160, 200, 180)]],
                    [{"backendNodeId": BUTTON, "frameId": FRAME}])
    aim = await quick_aim(frame_element(page), MAIN, 1.0)
    assert aim is not None and aim.viewport == (150.0, 170.0)
    assert page.count("DOM.getNodeForLocation") == 1               # nothing to test where it was


class FakeOwnerPage:
    """The page holding an out-of-process iframe: its iframe element answers ``placed``."""

    target_id = "T"

    def __init__(self, placed: dict | None) -> None:
        self.placed = placed
        self.sent: list[tuple[str, dict]] = []

    async def send(self, method: str, params: dict | None = None, **_kw: object) -> dict:
        params = params or {}
        self.sent.append((method, params))
        replies = {"DOM.getFrameOwner": {"backendNodeId": 40, "nodeId": 0},
                   "DOM.resolveNode": {"object": {"objectId": "iframe"}},
                   "Runtime.callFunctionOn": {"result": {"value": self.placed}},
                   "Page.getLayoutMetrics": METRICS,
                   "Runtime.evaluate": {"result": {"value": True}}}
        return replies[method]


class FakeChildConn:
    """The iframe's session: its element measures ``local``; a hit test answers ``hit``."""

    def __init__(self, local: dict | None, hit: bool = True) -> None:
        self.local, self.hit = local, hit
        self.sent: list[tuple[str, dict]] = []

    async def send_raw(self, method: str, params: dict | None = None, **_kw: object) -> dict:
        params = params or {}
        self.sent.append((method, params))
        assert method == "Runtime.callFunctionOn", method
        if params.get("arguments"):
            return {"result": {"value": self.hit}}
        return {"result": {"value": self.local}}


def child_element(page: FakeOwnerPage, conn: FakeChildConn, parent: str = "T") -> Element:
    child = ChildTarget("C", "S", "http://localhost/", parent, "T", conn)  # type: ignore[arg-type]
    return Element("f2e1", ElementKey("C", "C", BUTTON, "L"), page, child, "element")  # type: ignore[arg-type]


LOCAL = {"x": 50.0, "y": 20.0, "parts": [[10, 10, 90, 30]], "window": WINDOW, "scrolled": False}


async def test_an_out_of_process_frame_element_is_placed_through_its_iframe() -> None:
    page = FakeOwnerPage({"x": 450.0, "y": 120.0, "local": {"x": 50.0, "y": 20.0}, "window": WINDOW})
    conn = FakeChildConn(LOCAL)
    aim = await quick_aim(child_element(page, conn), MAIN, 1.0)
    assert aim is not None and aim.viewport == (450.0, 120.0)
    assert aim.screen == (20 + 450 * 2, 140 + 120 * 2)
    placed = next(p for m, p in page.sent if m == "Runtime.callFunctionOn")
    assert placed["arguments"] == [{"value": [[10, 10, 90, 30]]}, {"value": 2}]  # boxes, ratio
    assert len(conn.sent) == 1                      # no second hit test: the same point


async def test_a_point_the_page_moves_is_hit_tested_in_the_iframe_again() -> None:
    moved = {"x": 430.0, "y": 120.0, "local": {"x": 30.0, "y": 20.0}, "window": WINDOW}
    conn = FakeChildConn(LOCAL, hit=False)
    assert await quick_aim(child_element(FakeOwnerPage(moved), conn), MAIN, 1.0) is None
    assert conn.sent[-1][1]["arguments"] == [{"value": 30.0}, {"value": 20.0}]
    hit = FakeChildConn(LOCAL, hit=True)
    aim = await quick_aim(child_element(FakeOwnerPage(moved), hit), MAIN, 1.0)
    assert aim is not None and aim.viewport == (430.0, 120.0)


async def test_an_iframe_the_page_cannot_place_exactly_is_left_to_the_whole_read() -> None:
    # The iframe element said no (transformed, zoomed, covered): null.
    assert await quick_aim(child_element(FakeOwnerPage(None), FakeChildConn(LOCAL)), MAIN, 1.0) is None


async def test_an_iframe_inside_an_out_of_process_iframe_is_left_to_the_whole_read() -> None:
    page, conn = FakeOwnerPage(None), FakeChildConn(LOCAL)
    assert await quick_aim(child_element(page, conn, parent="C0"), MAIN, 1.0) is None
    assert page.sent == [] and conn.sent == []
