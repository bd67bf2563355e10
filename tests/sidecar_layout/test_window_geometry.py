"""The default window in DIP: the display's pixels divided by the device scale factor."""

from sidecar.browser.window_geometry import default_window_size, device_scale_factor


def test_the_scale_flag_is_read_and_the_last_one_wins():
    assert device_scale_factor(()) == 1.0
    assert device_scale_factor(("--force-device-scale-factor=2",)) == 2.0
    assert device_scale_factor(("--force-device-scale-factor=2", "--force-device-scale-factor=1.5")) == 1.5
    assert device_scale_factor(("--force-device-scale-factor=zero", "--foo")) == 1.0


def test_the_default_window_fits_the_screen_at_any_scale():
    assert default_window_size((1600, 1000), ()) == (1600, 1000)
    assert default_window_size((1600, 1000), ("--force-device-scale-factor=2",)) == (800, 500)
    width, height = default_window_size((1600, 1000), ("--force-device-scale-factor=1.25",))
    assert width * 1.25 <= 1600 and height * 1.25 <= 1000
