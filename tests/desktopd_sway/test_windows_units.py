"""Sway's get_tree read as desktopd's window list (the tree's shape as Sway 1.7 answers it)."""

from __future__ import annotations

from desktopd.sway.windows import window_list


def con(con_id: int, kind: str = "con", **fields: object) -> dict:
    base = {"id": con_id, "type": kind, "name": f"w{con_id}", "nodes": [], "floating_nodes": [],
            "rect": {"x": 0, "y": 0, "width": 640, "height": 800},
            "window_rect": {"x": 0, "y": 0, "width": 640, "height": 800},
            "app_id": "app", "pid": 100 + con_id, "focused": False, "visible": True,
            "fullscreen_mode": 0, "shell": "xdg_shell"}
    base.update(fields)
    return base


def tree() -> dict:
    split = con(9, app_id=None, pid=None, nodes=[
        con(10, focused=True, app_id="chromium"),
        con(11, rect={"x": 640, "y": 0, "width": 640, "height": 800},
            window_rect={"x": 2, "y": 20, "width": 636, "height": 778}, app_id=None,
            window=4194307, shell="xwayland", window_properties={"class": "XTerm", "instance": "xterm"})])
    workspace = {"id": 4, "type": "workspace", "name": "1", "nodes": [split],
                 "floating_nodes": [con(12, "floating_con", fullscreen_mode=1)]}
    scratch = {"id": 3, "type": "workspace", "name": "__i3_scratch", "nodes": [],
               "floating_nodes": [con(13, "floating_con", visible=False)]}
    return {"id": 1, "type": "root", "nodes": [
        {"id": 2, "type": "output", "name": "__i3", "nodes": [scratch]},
        {"id": 5, "type": "output", "name": "HEADLESS-1", "nodes": [workspace]}]}


def test_windows_are_the_leaves_bottom_to_top_with_x11s_fields() -> None:
    windows = window_list(tree())
    assert [w["id"] for w in windows] == [13, 10, 11, 12]   # hidden, tiled, floating
    assert [w["stacking"] for w in windows] == [0, 1, 2, 3]
    hidden, first, xterm, full = windows
    assert first["focused"] and first["wm_class"] == ["chromium", "chromium"] and first["desktop"] == 0
    assert xterm["wm_class"] == ["xterm", "XTerm"] and xterm["shell"] == "xwayland"
    assert xterm["client"] == {"x": 642, "y": 20, "width": 636, "height": 778, "space": "screen"}
    assert full["maximized"] and not full["minimized"]
    assert hidden["minimized"] and hidden["desktop"] is None and not hidden["visible"]
