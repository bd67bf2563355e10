"""placement.py on hand-built trees: window-relative extents moved by their window's position,
and null bounds with a reason where the window is not known (the live proof by clicking is
tests/desktopd_sway/test_live_accessibility.py)."""

from __future__ import annotations

from typing import Any

from desktopd.accessibility.placement import WINDOW_SOURCE, place_in_windows
from desktopd.accessibility.snapshot import TreeFilter, rect, shape

Node = dict[str, Any]


def node(role: str, name: str, box: tuple[int, int, int, int] | None, *children: Node) -> Node:
    bounds, center = rect(*box) if box else (None, None)
    return {"id": f"atspi:1.2:/{name}", "source": "atspi", "role": role, "name": name, "description": "",
            "value": None, "states": ["showing"], "actions": None, "bounds": bounds, "center": center,
            "children": list(children)}


def app(pid: int, *tops: Node) -> Node:
    return {**node("application", "editor", None, *tops), "pid": pid, "bus_name": ":1.2"}


def window(wid: int, pid: int, title: str, x: int, y: int, w: int, h: int) -> dict[str, Any]:
    box = {"x": x, "y": y, "width": w, "height": h, "space": "screen"}
    return {"id": wid, "frame_id": wid, "title": title, "wm_class": [], "pid": pid, "visible": True,
            "frame": box, "client": box}


def test_each_top_level_is_moved_by_its_own_window_matched_by_title() -> None:
    first = node("frame", "One", (0, 0, 400, 300), node("push button", "OK", (10, 20, 30, 40)))
    second = node("frame", "Two", (0, 0, 200, 100), node("push button", "Go", (5, 5, 10, 10)))
    apps = [app(7, first, second)]
    summary = place_in_windows(apps, [window(2, 7, "Two", 500, 400, 200, 100),
                                      window(1, 7, "One", 100, 50, 400, 300), window(3, 8, "One", 0, 0, 400, 300)])
    assert summary == {"source": WINDOW_SOURCE, "placed_top_levels": 2, "unplaced_top_levels": 0}
    assert first["bounds"] == {"x": 100, "y": 50, "width": 400, "height": 300} and first["window"]["id"] == 1
    assert first["children"][0]["bounds"] == {"x": 110, "y": 70, "width": 30, "height": 40}
    assert first["children"][0]["center"] == {"x": 125, "y": 90}
    assert second["children"][0]["bounds"]["x"] == 505 and second["placement"]["offset"] == {"x": 500, "y": 400}


def test_a_top_level_whose_size_is_not_its_windows_is_not_guessed() -> None:
    # GTK's client-side shadow is deeper below than above: the window's place in it is unknown.
    top = node("frame", "One", (0, 0, 452, 362), node("push button", "OK", (36, 46, 30, 40)))
    summary = place_in_windows([app(7, top)], [window(1, 7, "One", 100, 50, 400, 300)])
    assert summary["unplaced_top_levels"] == 1
    button = top["children"][0]
    assert button["bounds"] is None and button["center"] is None and "offset is unknown" in button["bounds_unavailable"]
    assert top["placement"]["source"] is None and top["window"]["id"] == 1


def test_a_border_of_one_width_around_the_window_is_taken_off() -> None:
    # Chromium's surface on Wayland: its window's area inside a 10 px shadow on every side.
    top = node("frame", "Web", (0, 0, 1300, 820), node("push button", "Go", (110, 253, 80, 40)))
    place_in_windows([app(7, top)], [window(1, 7, "Web", 0, 0, 1280, 800)])
    assert top["placement"] == {"source": WINDOW_SOURCE, "window": 1, "offset": {"x": -10, "y": -10}, "inset": 10}
    assert top["children"][0]["bounds"] == {"x": 100, "y": 243, "width": 80, "height": 40}


def test_without_its_window_every_box_is_null_with_the_reason_and_stays_in_the_tree() -> None:
    top = node("frame", "Gone", (0, 0, 400, 300), node("push button", "OK", (10, 20, 30, 40)))
    apps = [app(7, top)]
    place_in_windows(apps, [window(1, 9, "Gone", 0, 0, 400, 300)])   # another process's window
    assert top["window"] is None and top["bounds"] is None and "Wayland" in top["bounds_unavailable"]
    shaped, _, _ = shape(apps, TreeFilter(interesting=True))
    assert [child["name"] for child in shaped[0]["children"][0]["children"]] == ["OK"]
