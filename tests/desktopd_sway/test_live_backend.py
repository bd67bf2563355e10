"""desktopd's Sway backend on a real headless Sway: screencopy, the virtual devices, the
clipboard through data-control, windows through IPC."""

from __future__ import annotations

import pytest

from desktopd.sway.desktop import SwayDesktop

from .conftest import HEIGHT, WIDTH, Sway


def on(desk: SwayDesktop, fn, *args):
    """Every backend call runs on its executor, as desktopd's BackendService does."""
    return desk.executor.submit(fn, *args).result(30)


def test_info_names_the_backend_and_the_protocols(sway_desktop: SwayDesktop) -> None:
    info = on(sway_desktop, sway_desktop.info)
    assert info["backend"] == "sway" and info["connected"] is True
    assert (info["width"], info["height"]) == (WIDTH, HEIGHT)
    assert all(info["protocols"].values()), info["protocols"]


def test_screenshot_is_the_output_size_and_a_region_is_cut_exactly(sway_desktop: SwayDesktop) -> None:
    image = on(sway_desktop, sway_desktop.capture)
    assert image.size == (WIDTH, HEIGHT) and image.mode == "RGB"
    data, width, height = on(sway_desktop, sway_desktop.capture_raw, (10, 20, 30, 40))
    assert (width, height) == (30, 40) and len(data) == 30 * 40 * 4


def test_a_region_outside_the_screen_is_refused_naming_it(sway_desktop: SwayDesktop) -> None:
    with pytest.raises(ValueError, match="region"):
        on(sway_desktop, sway_desktop.capture, (WIDTH - 5, 0, 10, 10))


def test_pointer_moves_are_where_the_pointer_is(sway_desktop: SwayDesktop) -> None:
    on(sway_desktop, sway_desktop.pointer_move, 123, 456)
    assert on(sway_desktop, sway_desktop.pointer_position) == (123, 456)
    with pytest.raises(ValueError):
        on(sway_desktop, sway_desktop.pointer_move, WIDTH, 0)


def test_keys_and_unicode_text_reach_the_compositor_without_a_protocol_error(sway_desktop: SwayDesktop) -> None:
    # A keymap Sway cannot compile, or a key outside it, ends the connection with an error.
    on(sway_desktop, sway_desktop.type_text, "Hello, wörld ☺ " + "".join(chr(0x3B1 + i) for i in range(30)))
    on(sway_desktop, sway_desktop.key, "ctrl", True)
    on(sway_desktop, sway_desktop.key, "a", True)
    on(sway_desktop, sway_desktop.release_all_input)
    assert on(sway_desktop, sway_desktop.info)["connects"] == 1


def test_clipboard_set_by_one_client_is_read_by_another(sway: Sway, sway_desktop: SwayDesktop) -> None:
    other = SwayDesktop(sway.wayland_display)
    try:
        on(sway_desktop, sway_desktop.clipboard_set, "from one ☺ to another\n")
        assert on(other, other.clipboard_get) == "from one ☺ to another\n"
        on(other, other.clipboard_clear)
        assert on(sway_desktop, sway_desktop.clipboard_get) is None
    finally:
        other.executor.submit(other.close).result(10)
        other.executor.shutdown()


def test_the_tree_is_swaysown_and_lists_no_window_on_an_empty_desktop(sway_desktop: SwayDesktop) -> None:
    tree = on(sway_desktop, sway_desktop.native_tree)
    assert tree["type"] == "root"
    assert any(node["type"] == "output" and node["rect"]["width"] == WIDTH for node in tree["nodes"])
    assert on(sway_desktop, sway_desktop.windows) == []


def test_clearing_an_empty_clipboard_returns_at_once(sway_desktop: SwayDesktop) -> None:
    # /api/v1/reset clears the clipboard on a fresh desktop: no selection event comes for that.
    on(sway_desktop, sway_desktop.clipboard_clear)
    on(sway_desktop, sway_desktop.clipboard_clear)
    assert on(sway_desktop, sway_desktop.clipboard_get) is None
