"""Unit tests of the X layer's pure parts (no X server): key names, encoders, error mapping."""

from __future__ import annotations

import errno
import io
import random
import zlib

import pytest
from PIL import Image, ImageDraw
from Xlib import error as xerror

from desktopd.x11 import encode as enc
from desktopd.x11.desktop import X11Desktop
from desktopd.x11.errors import is_connection_loss
from desktopd.x11.keynames import char_to_keysym, parse_key_name


@pytest.mark.parametrize("name, keysym", [
    ("ctrl", 0xFFE3), ("control", 0xFFE3), ("Control_L", 0xFFE3), ("alt", 0xFFE9),
    ("shift", 0xFFE1), ("super", 0xFFEB), ("win", 0xFFEB), ("meta", 0xFFE7),
    ("enter", 0xFF0D), ("Return", 0xFF0D), ("esc", 0xFF1B), ("tab", 0xFF09),
    ("backspace", 0xFF08), ("delete", 0xFFFF), ("Up", 0xFF52), ("left", 0xFF51),
    ("F1", 0xFFBE), ("F24", 0xFFD5), ("KP_Enter", 0xFF8D), ("KP_5", 0xFFB5),
    ("pageup", 0xFF55), ("XF86AudioMute", 0x1008FF12), ("a", 0x61), ("A", 0x41),
    ("space", 0x20), ("é", 0xE9), ("€", 0x10020AC), ("0xff0d", 0xFF0D), ("U+263A", 0x100263A),
    ("return", 0xFF0D), ("kp_enter", 0xFF8D),
])
def test_key_names(name: str, keysym: int) -> None:
    assert parse_key_name(name) == keysym


@pytest.mark.parametrize("name", ["", "nosuchkey", "ctrl+c", "F99"])
def test_unknown_key_names_say_which(name: str) -> None:
    with pytest.raises(ValueError, match="^key:"):
        parse_key_name(name)


def test_characters_to_keysyms() -> None:
    assert char_to_keysym("\n") == 0xFF0D and char_to_keysym("\t") == 0xFF09
    assert char_to_keysym("😀") == 0x1000000 + 0x1F600
    with pytest.raises(ValueError, match="U\\+0007"):
        char_to_keysym("\x07")


def screen_like() -> Image.Image:
    image = Image.new("RGB", (640, 360), (30, 60, 90))
    draw = ImageDraw.Draw(image)
    for row in range(20):
        draw.text((10, 10 + row * 17), f"line {row}: the quick brown fox 0123456789", fill="white")
    draw.rectangle((400, 50, 600, 300), fill=(250, 200, 0))
    return image


@pytest.mark.parametrize("threads", [1, 3])
def test_fast_png_decodes_to_the_same_pixels(threads: int, monkeypatch) -> None:
    monkeypatch.setattr(enc, "MIN_BAND_BYTES", 1024)  # force several bands on a small image
    monkeypatch.setattr(enc, "_pool", None)
    monkeypatch.setenv("DESKTOPD_PNG_THREADS", str(threads))
    image = screen_like()
    for mode in ("RGB", "RGBA", "L"):
        source = image.convert(mode)
        data = enc.fast_png(source, threads=threads)
        decoded = Image.open(io.BytesIO(data))
        decoded.load()
        assert decoded.mode == mode and decoded.tobytes() == source.tobytes()
    if enc._pool is not None:
        enc._pool.shutdown()
        monkeypatch.setattr(enc, "_pool", None)


def test_a_gradient_screen_makes_a_small_png() -> None:
    # The Up filter turns smooth gradients (wallpapers, shaded UI) into runs of zeros; without a
    # filter this screen deflates to over 600 KB.
    gradient = Image.linear_gradient("L").resize((1920, 1080))
    screen = Image.merge("RGB", (gradient, gradient.transpose(Image.Transpose.FLIP_LEFT_RIGHT),
                                 gradient.rotate(90).resize((1920, 1080))))
    data = enc.fast_png(screen)
    assert len(data) < 150_000
    assert Image.open(io.BytesIO(data)).tobytes() == screen.tobytes()


def test_the_adler32_of_two_strings_combines_from_each_ones() -> None:
    # What joins the bands' checksums into the one a PNG's zlib stream ends with.
    random.seed(3)
    for first, second in ((b"", b""), (b"a", b""), (b"", b"b"), (bytes(range(256)) * 400, b"\xff" * 70_000)):
        assert enc.adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second)) == zlib.adler32(first + second)
    for _ in range(50):
        first, second = random.randbytes(random.randint(0, 9000)), random.randbytes(random.randint(0, 300_000))
        assert enc.adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second)) == zlib.adler32(first + second)


def test_scale_and_limits() -> None:
    image = screen_like()
    assert enc.target_size(640, 360, scale=0.5) == enc.Size(320, 180, 0.5, 0.5)
    size = enc.target_size(640, 360, max_width=320, max_height=1000)
    assert (size.width, size.height) == (320, 180)
    assert enc.target_size(640, 360, max_width=10_000) == enc.Size(640, 360, 1.0, 1.0)
    # An exact size changes the aspect: each axis its own factor.
    assert enc.target_size(640, 360, exact=(320, 200)) == enc.Size(320, 200, 0.5, 200 / 360)
    scaled = enc.encode(image, "jpeg", max_height=90)
    assert (scaled.width, scaled.height, scaled.scale) == (160, 90, 0.25)
    assert scaled.headers["X-Scale"] == "0.25" and scaled.headers["X-Screen-Width"] == "640"
    odd = enc.encode(image, "png", scale=0.3)
    assert Image.open(io.BytesIO(odd.data)).size == (odd.width, odd.height) == (192, 108)


@pytest.mark.parametrize("source, size", [
    ((1920, 1080), (1280, 800)), ((1920, 1080), (1280, 720)), ((1920, 1080), (1024, 768)),
    ((1920, 1080), (1366, 768)), ((2560, 1440), (1280, 800)), ((1280, 800), (640, 600))])
def test_a_downscale_in_two_halves_gives_the_pixels_of_one_pass(source, size) -> None:
    random.seed(11)
    image = Image.frombytes("RGB", source, random.randbytes(source[0] * source[1] * 3))
    halves = enc.resized(image, *size)
    assert halves.size == size and halves.tobytes() == image.resize(size, Image.Resampling.BOX).tobytes()


@pytest.mark.parametrize("kwargs, field", [
    ({"fmt": "gif"}, "format"), ({"fmt": "jpeg", "quality": 0}, "quality"),
    ({"fmt": "png", "quality": 50}, "quality"), ({"fmt": "png", "scale": 2}, "scale"),
    ({"fmt": "png", "scale": 0}, "scale"), ({"fmt": "png", "max_width": -3}, "max_width"),
])
def test_encoder_validation_names_the_field(kwargs: dict, field: str) -> None:
    with pytest.raises(ValueError, match=f"^{field}:"):
        enc.encode(screen_like(), **kwargs)


def test_connection_loss_classification() -> None:
    assert is_connection_loss(xerror.ConnectionClosedError("server"))
    assert is_connection_loss(BrokenPipeError())
    assert is_connection_loss(OSError(errno.ECONNRESET, "reset"))
    assert not is_connection_loss(ValueError("x: off screen"))
    assert not is_connection_loss(OSError(errno.ENOSPC, "disk"))


def test_desktop_does_not_touch_x_until_used() -> None:
    desk = X11Desktop(":4078")  # nothing there: constructing must not try to connect
    try:
        assert not desk.connected and desk.connects == 0
        assert desk.parse_key_name("ctrl") == 0xFFE3  # pure: works with no display
        with pytest.raises(ValueError, match="^text:"):
            desk.type_text(42)
    finally:
        desk.executor.shutdown(wait=True)
