"""The client's sidecar calls and the recorder's element hits, on a real Chromium with the
sidecar and desktopd on a fresh Xvfb."""

from __future__ import annotations

import asyncio

import jsonschema
import pytest

from desktopd_kit import Desktop, DesktopError
from desktopd_kit.observe import ObserveOptions
from desktopd_kit.records import EpisodeReader, Recorder, schema
from testbed.pages import PageServer
from testbed.x11_fixtures import pages  # noqa: F401 (fixture)
from tests.sidecar_layout.harness import sidecar_and_desktopd

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


def _button(layout: dict, name: str) -> dict:
    tab = next(t for t in layout["tabs"] if t["visible"])
    return next(n for n in tab["layout"]["nodes"] if n["role"]["value"] == "button" and n["name"]["value"] == name)


def browse_and_record(desktop: Desktop, pages: PageServer, root) -> None:
    desktop.wait_until_healthy(timeout=30)
    assert desktop.sidecar_health()["status"] == "ok"
    first = desktop.tabs()
    opened = desktop.open_tab(pages.url("gen/12"))
    assert opened["url"].endswith("/gen/12") and len(desktop.tabs()) == len(first) + 1
    desktop.activate_tab(opened["id"])
    assert desktop.navigate(opened["id"], pages.url("gen/20"))["url"].endswith("/gen/20")
    assert desktop.tab(opened["id"])["id"] == opened["id"]
    assert any(t["id"] == opened["id"] for t in desktop.targets())
    with pytest.raises(DesktopError) as caught:
        desktop.navigate(opened["id"], "chrome://settings")
    assert (caught.value.status, caught.value.field) == (403, "url")
    button = _button(desktop.layout(roles=["button"]), "Button 8")
    center = button["screen"]["center"]

    with Recorder(desktop, root, options=ObserveOptions(observe_layout=True, screenshot_format="jpeg",
                                                        settle_s=0.2)) as rec:
        _acted, line = rec.step({"type": "click", "x": center["x"], "y": center["y"]})
        _acted, outside = rec.step({"action": "mouse_move", "coordinate": [2, 2]})   # the toolbar
    hit = line["action"]["element"]
    assert (hit["role"], hit["name"]) == ("StaticText", "Button 8")    # the smallest node: its text
    assert (hit["target"]["role"], hit["target"]["name"]) == ("button", "Button 8")
    assert outside["action"]["element"] is None
    reader = EpisodeReader(rec.directory)
    for step in reader:
        jsonschema.validate(step.record, schema("step"))
        assert step.image_path.suffix == ".jpg"
        assert step.layout()["tabs"], "the layout file holds /layout's body"
    desktop.close_tab(opened["id"])
    assert all(t["id"] != opened["id"] for t in desktop.tabs())


async def test_sidecar_calls_and_element_hits(tmp_path, pages):
    async with sidecar_and_desktopd(tmp_path, pages.url("gen/12")) as (sidecar, desktopd, _session):
        with Desktop(desktopd.url, sidecar_url=sidecar.url) as desktop:
            await asyncio.to_thread(browse_and_record, desktop, pages, tmp_path / "episodes")
