"""Unit tests of geometry: the viewport's place on the screen, the document/viewport/screen chain,
visibility inside frame clips, content boxes."""

from __future__ import annotations


from sidecar.layout.geometry.spaces import Placement, Rect, WindowMetrics, chromium_on_wayland, viewport_origin

from .unit_inputs import _view


def test_viewport_origin_measures_the_browser_ui():
    # 1000x700 DIP window at (30, 20); content 985+15 x 557 device px: toolbar = 700 - 557.
    window = WindowMetrics(screen_x=30, screen_y=20, outer_width=1000, outer_height=700,
                           content_width=1000, content_height=557)
    assert viewport_origin(window, 1.0) == (30, 20 + 143)


def test_viewport_origin_at_device_scale_2_with_a_window_frame():
    # A WM frame of 4 DIP on the left, right and bottom; DIP * 2 = screen pixels.
    window = WindowMetrics(screen_x=10, screen_y=5, outer_width=608, outer_height=404,
                           content_width=1200, content_height=514)
    left, top = viewport_origin(window, 2.0)
    assert left == 10 * 2 + 8
    assert top == 5 * 2 + 404 * 2 - 8 - 514

def test_document_viewport_screen_chain_with_scroll_zoom_and_fixed():
    view = _view(layout_x=0, layout_y=300, visual_x=0, visual_y=300, device_pixel_ratio=1.5,
                 zoom=1.5, origin_x=30, origin_y=163)
    box = Placement(Rect(100, 400, 50, 20))
    viewport = view.document_to_viewport(view.to_document(box))
    assert viewport == Rect(100, 100, 50, 20)
    assert view.viewport_to_screen(viewport) == Rect(180, 313, 75, 30)
    fixed = Placement(Rect(10, 20, 30, 30), fixed=True)        # stays put in the viewport
    assert view.document_to_viewport(view.to_document(fixed)) == Rect(10, 20, 30, 30)
    assert view.to_document(fixed) == Rect(10, 320, 30, 30)


def test_visibility_takes_the_frame_clip_into_account():
    view = _view()
    inside = Placement(Rect(10, 10, 20, 20), clip=Rect(0, 0, 100, 100))
    clipped = Placement(Rect(10, 150, 20, 20), clip=Rect(0, 0, 100, 100))
    assert view.visible_part(inside) == Rect(10, 10, 20, 20)
    assert view.visible_part(clipped) is None
    assert view.visible_part(Placement(Rect(10, 700, 20, 20))) is None


# -- AX records and filters -------------------------------------------------------------------

def test_content_box_insets_and_never_negative():
    from sidecar.layout.geometry.spaces import content_box
    assert content_box(20, 20, 100, 40, (5, 7, 5, 7)) == (27, 25, 86, 30)
    assert content_box(0, 0, 10, 10, (8, 8, 8, 8)) == (8, 8, 0.0, 0.0)
    assert content_box(1, 2, 3, 4, None) == (1, 2, 3, 4)


def test_viewport_origin_on_wayland_leaves_out_chromiums_shadow_frame():
    # Measured in the Sway image: a 1280x800 tiled window reports outer 1300x820 (a 10 px shadow
    # on every side, outside the window) around a 1280x713 content area drawn at (0, 87).
    window = WindowMetrics(screen_x=0, screen_y=0, outer_width=1300, outer_height=820,
                           content_width=1280, content_height=713)
    assert viewport_origin(window, 1.0, shadow_frame=True) == (0, 87)
    assert viewport_origin(window, 1.0) == (10, 97)   # the X11 reading of the same numbers


def test_chromium_on_wayland_is_read_from_its_flags():
    assert chromium_on_wayland("--ozone-platform=wayland --foo")
    assert not chromium_on_wayland(None) and not chromium_on_wayland("--ozone-platform=x11")
