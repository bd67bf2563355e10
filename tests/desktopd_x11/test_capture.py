"""Screenshots of a real Xvfb with real windows at known places and colours."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from desktopd.x11.desktop import X11Desktop
from desktopd.x11.encode import FrameEncoder, encode

pytestmark = pytest.mark.x11


@pytest.fixture
def two_windows(start_recorder):
    red = start_recorder("200x100+40+30", "#ff0000", "red")
    green = start_recorder("120x80+400+300", "#00ff00", "green")
    return red, green


def test_known_colours_at_known_pixels(desktop: X11Desktop, two_windows) -> None:
    image = desktop.capture()
    assert image.mode == "RGB" and image.size == (1280, 800)
    assert image.getpixel((40, 30)) == (255, 0, 0)
    assert image.getpixel((239, 129)) == (255, 0, 0)
    assert image.getpixel((460, 340)) == (0, 255, 0)
    assert image.getpixel((39, 30)) == (0, 0, 0)  # -br: black root, just left of the window
    assert image.getpixel((1000, 700)) == (0, 0, 0)


def test_region_capture_is_the_crop_of_the_screen(desktop: X11Desktop, two_windows) -> None:
    full = desktop.capture()
    region = desktop.capture(region=(30, 20, 400, 300))
    assert region.size == (400, 300)
    assert region.tobytes() == full.crop((30, 20, 430, 320)).tobytes()
    assert region.getpixel((10, 10)) == (255, 0, 0)  # screen (40, 30)


def test_raw_capture_is_bgrx(desktop: X11Desktop, two_windows) -> None:
    data, width, height = desktop.capture_raw(region=(40, 30, 10, 5))
    assert (width, height) == (10, 5) and len(data) == 10 * 5 * 4
    assert data[:3] == bytes([0, 0, 255])  # B, G, R of pure red


@pytest.mark.parametrize("region", [(-1, 0, 10, 10), (0, 0, 0, 10), (1200, 700, 100, 10)])
def test_bad_region_is_a_value_error_naming_it(desktop: X11Desktop, region) -> None:
    with pytest.raises(ValueError, match="region"):
        desktop.capture(region=region)


def test_shm_and_xgetimage_give_the_same_pixels(xserver, desktop: X11Desktop, two_windows) -> None:
    fallback = X11Desktop(xserver.display, use_shm=False)
    try:
        shm_image = desktop.capture()
        assert desktop.info()["capture_backend"] == "mit-shm"
        plain_image = fallback.capture()
        assert fallback.info()["capture_backend"] == "xgetimage"
        assert shm_image.tobytes() == plain_image.tobytes()
        assert (desktop.capture(region=(35, 25, 50, 50)).tobytes()
                == fallback.capture(region=(35, 25, 50, 50)).tobytes())
    finally:
        fallback.close()


def test_cursor_is_composited_where_the_pointer_is(desktop: X11Desktop, start_recorder) -> None:
    start_recorder("400x300+100+100", "#0000ff", "blue")  # Tk sets a crosshair cursor on it
    desktop.pointer_move(300, 250)
    region = (250, 200, 100, 100)
    plain = desktop.capture(region=region)
    with_cursor = desktop.capture(region=region, cursor=True)
    assert plain.getcolors() == [(100 * 100, (0, 0, 255))]
    changed = [(x, y) for y in range(100) for x in range(100)
               if with_cursor.getpixel((x, y)) != (0, 0, 255)]
    assert changed, "no cursor pixels drawn"
    xs, ys = [p[0] for p in changed], [p[1] for p in changed]
    # The crosshair's hotspot is its centre: drawn pixels surround (50, 50) of the region.
    assert min(xs) < 50 < max(xs) and min(ys) < 50 < max(ys)
    assert max(xs) - min(xs) < 40 and max(ys) - min(ys) < 40


def test_encoders_round_trip(desktop: X11Desktop, two_windows) -> None:
    image = desktop.capture()
    png = encode(image, "png")
    assert png.media_type == "image/png" and png.scale == 1.0
    decoded = Image.open(io.BytesIO(png.data))
    decoded.load()
    assert decoded.tobytes() == image.tobytes()
    jpeg = Image.open(io.BytesIO(encode(image, "jpeg", quality=90).data))
    red = jpeg.convert("RGB").getpixel((140, 80))
    assert red[0] > 230 and red[1] < 30 and red[2] < 30
    webp = Image.open(io.BytesIO(encode(image, "webp").data))
    assert webp.size == (1280, 800)
    raw = encode(image, "raw")
    assert raw.data == image.tobytes()
    half = encode(image, "png", max_width=640)
    assert (half.width, half.height, half.scale) == (640, 400, 0.5)
    assert Image.open(io.BytesIO(half.data)).getpixel((70, 40)) == (255, 0, 0)


def test_unchanged_frame_is_not_encoded_twice(desktop: X11Desktop, two_windows) -> None:
    encoder = FrameEncoder()
    first = encoder.encode(desktop.capture(), "png")
    second = encoder.encode(desktop.capture(), "png")
    assert second is first and encoder.hits == 1
    desktop.pointer_move(5, 5)
    third = encoder.encode(desktop.capture(region=(0, 0, 640, 400)), "png")
    assert third is not first
