"""With a window manager in the desktop (DESKTOPD_WINDOW_MANAGER), /health says starting until
it runs and a window holds the keyboard; then ok for good. Without the setting, the display
answering is enough."""

from __future__ import annotations


async def test_health_waits_for_the_window_manager_and_a_focused_window(make_client, fake_desktop) -> None:
    client = await make_client(window_manager=True, sidecar_configured=True)
    fake_desktop.window_manager = {"managed": False, "name": None, "windows": 1, "active": None}
    response = await client.get("/health")
    assert response.status == 503 and (await response.json())["status"] == "starting"
    # Running, but no window has the keyboard yet (it took over the browser's unfocused).
    fake_desktop.window_manager = {"managed": True, "name": "Xfwm4", "windows": 1, "active": None}
    response = await client.get("/health")
    assert response.status == 503 and (await response.json())["status"] == "starting"
    # No window yet but a sidecar's browser is coming: still starting, not latched on nothing.
    fake_desktop.window_manager = {"managed": True, "name": "Xfwm4", "windows": 0, "active": None}
    assert (await client.get("/health")).status == 503
    fake_desktop.window_manager = {"managed": True, "name": "Xfwm4", "windows": 1, "active": 0x400001}
    response = await client.get("/health")
    assert response.status == 200 and (await response.json())["status"] == "ok"
    # Later a person may leave no window focused: health stays ok.
    fake_desktop.window_manager = {"managed": True, "name": "Xfwm4", "windows": 1, "active": None}
    assert (await client.get("/health")).status == 200


async def test_without_the_setting_the_display_is_enough(make_client, fake_desktop) -> None:
    client = await make_client()
    fake_desktop.window_manager = {"managed": False, "name": None, "windows": 1, "active": None}
    response = await client.get("/health")
    assert response.status == 200 and (await response.json())["status"] == "ok"
