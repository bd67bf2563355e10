"""confirm_pointer on fakes: where the compositor's window must be checked (Chromium on Wayland), a
visible press goes only where the page saw the pointer over the element. A window that is not
exact is a 409 naming the check's reason; a move the page saw elsewhere is aimed again after the
page's next frame; a pointer the page never sees over the element is a 409, nothing pressed."""

from __future__ import annotations

import asyncio

import pytest

from httpapi.errors import ApiError
from sidecar.agent import compositor_aim
from sidecar.agent.compositor_aim import PointerSeen, confirm_pointer
from sidecar.agent.refs import ElementKey
from sidecar.agent.resolve import Element
from sidecar.layout.runtime.seams import Page

INSIDE: PointerSeen = {"x": 60, "y": 45, "inside": True}
BESIDE: PointerSeen = {"x": 59, "y": 45, "inside": True}             # the step before it
ELSEWHERE: PointerSeen = {"x": 50, "y": 24, "inside": False}
BESIDE_ELSEWHERE: PointerSeen = {"x": 49, "y": 24, "inside": False}


class FakePage:
    """The element's session: each move the pointer makes is reported by the page as the next of
    ``seen`` (None: never reported); the frames the act waited for are counted."""

    target_id = "T"

    def __init__(self, seen: list[PointerSeen | None]) -> None:
        self.seen = list(seen)
        self.frames = 0
        self.armed = 0

    async def send(self, method: str, params: dict | None = None, **_kw: object) -> dict:
        if method == "Runtime.callFunctionOn":
            self.armed += 1
            return {"result": {"objectId": f"promise{self.armed}"}}
        if method == "Runtime.awaitPromise":
            return {"result": {"value": self.seen.pop(0)}}
        if method == "Runtime.evaluate":
            self.frames += 1
            return {"result": {"value": True}}
        raise AssertionError(f"unexpected call {method}")


class FakeCheck:
    def __init__(self, reasons: list[str | None]) -> None:
        self.reasons = list(reasons)

    async def unsettled(self, page: Page) -> str | None:
        return self.reasons.pop(0) if len(self.reasons) > 1 else self.reasons[0]


class FakePointer:
    def __init__(self) -> None:
        self.moves: list[tuple[float, float]] = []

    async def move(self, x: float, y: float) -> None:
        self.moves.append((x, y))


def run(page: FakePage, check: FakeCheck, pointer: FakePointer, points: list[tuple[float, float]]):
    element = Element("e1", ElementKey("T", "MAIN", 7, "L"), page, page, "element")  # type: ignore[arg-type]
    aims = list(points)

    async def aim() -> tuple[float, float]:
        return aims.pop(0) if len(aims) > 1 else aims[0]

    return asyncio.run(confirm_pointer(page, element, check, pointer, aim,  # type: ignore[arg-type]
                                       lambda point: point, 5.0))


def test_the_pointer_seen_over_the_element_at_once_is_pressed_where_aimed() -> None:
    page, pointer = FakePage([BESIDE, INSIDE]), FakePointer()
    aimed, report = run(page, FakeCheck([None]), pointer, [(60, 132)])
    assert aimed == (60, 132)
    assert report == {"seen": INSIDE, "misses": []}
    assert pointer.moves == [(59, 132), (60, 132)]    # a step beside first: the last move is a change
    assert page.frames == 0


def test_a_move_the_page_saw_elsewhere_is_aimed_again_after_a_frame_and_reported() -> None:
    page, pointer = FakePage([BESIDE_ELSEWHERE, ELSEWHERE, BESIDE, INSIDE]), FakePointer()
    aimed, report = run(page, FakeCheck([None]), pointer, [(60, 132), (60, 45)])
    assert aimed == (60, 45)
    assert report == {"seen": INSIDE, "misses": [ELSEWHERE]}
    assert pointer.moves == [(59, 132), (60, 132), (59, 45), (60, 45)]
    assert page.frames == 1


def test_bounds_that_are_not_exact_are_a_409_with_the_reason_and_no_move() -> None:
    pointer = FakePointer()
    with pytest.raises(ApiError) as raised:
        run(FakePage([]), FakeCheck(["Sway shows the window at (16, 21)"]), pointer, [(60, 132)])
    assert (raised.value.status, raised.value.error) == (409, "screen_bounds_not_exact")
    assert raised.value.extra == {"reason": "Sway shows the window at (16, 21)"}
    assert pointer.moves == []


def test_a_pointer_never_seen_over_the_element_is_a_409_once_the_budget_is_spent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compositor_aim, "CONFIRM_BUDGET_S", 0.0)
    page, pointer = FakePage([BESIDE_ELSEWHERE, ELSEWHERE]), FakePointer()
    with pytest.raises(ApiError) as raised:
        run(page, FakeCheck([None]), pointer, [(60, 132)])
    assert (raised.value.status, raised.value.error) == (409, "pointer_not_confirmed")
    assert raised.value.extra == {"misses": [ELSEWHERE]}


def test_a_report_not_told_apart_from_the_step_before_is_a_miss() -> None:
    """The step's report arriving late (the same place twice), or no report of the step at all:
    the page's answer for the point is not known to be the point's."""
    page, pointer = FakePage([BESIDE, BESIDE, None, INSIDE, BESIDE, INSIDE]), FakePointer()
    aimed, report = run(page, FakeCheck([None]), pointer, [(60, 132)])
    assert report == {"seen": INSIDE, "misses": [None, None]}
    assert pointer.moves == [(59, 132), (60, 132)] * 3
    assert page.frames == 2
