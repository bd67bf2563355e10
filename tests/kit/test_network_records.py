"""The recorder's network capture on real parts (Chromium with the sidecar and desktopd on a fresh
Xvfb): network.har beside the steps (HAR 1.2, only its owner may read it), and each step record
names the requests its action set off."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import time
from pathlib import Path

import jsonschema
import pytest

from desktopd_kit import Desktop
from desktopd_kit.observe import ObserveOptions
from desktopd_kit.records import EpisodeReader, Recorder, schema
from tests.sidecar_layout.harness import sidecar_and_desktopd
from tests.sidecar_service.har_site import HAR_SCHEMA, HarSite

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


def wait_for_title(desktop: Desktop, title: str, timeout: float = 20) -> dict:
    """The tab in front once its title is ``title`` (the page sets it on evidence of its requests)."""
    for _attempt in range(int(timeout / 0.05)):
        front = next((tab for tab in desktop.tabs() if tab["visible"]), None)
        if front is not None and front["title"] == title:
            return front
        time.sleep(0.05)
    raise AssertionError(f"no tab titled {title!r}: {desktop.tabs()}")


def record_a_click(desktop: Desktop, site: HarSite, root: Path) -> tuple[Recorder, list[dict]]:
    desktop.wait_until_healthy(timeout=30)
    with Recorder(desktop, root, network=True, options=ObserveOptions(settle_s=0.2)) as rec:
        desktop.navigate(desktop.tabs()[0]["id"], site.base + "/page")
        wait_for_title(desktop, "done")
        button = next(node for tab in desktop.layout(roles=["button"])["tabs"] if tab["visible"]
                      for node in tab["layout"]["nodes"] if node["name"]["value"] == "Ping")
        center = button["screen"]["center"]
        lines = [rec.step({"type": "click", "x": center["x"], "y": center["y"]})[1]]
        wait_for_title(desktop, "pinged")
        lines.append(rec.step({"type": "move", "x": 5, "y": 5})[1])
    return rec, lines


async def test_the_episode_has_network_har_and_steps_name_their_requests(tmp_path: Path) -> None:
    site = HarSite()
    await site.start()
    try:
        async with sidecar_and_desktopd(tmp_path, "about:blank") as (sidecar, desktopd, _session):
            with Desktop(desktopd.url, sidecar_url=sidecar.url) as desktop:
                rec, lines = await asyncio.to_thread(record_a_click, desktop, site, tmp_path / "episodes")
    finally:
        await site.stop()
    reader = EpisodeReader(rec.directory)
    jsonschema.validate(reader.episode, schema("episode"))
    for step in reader:
        jsonschema.validate(step.record, schema("step"))
    har_path = rec.directory / "network.har"
    assert stat.S_IMODE(os.stat(har_path).st_mode) == 0o600
    har = json.loads(har_path.read_text())
    jsonschema.validate(har, HAR_SCHEMA)
    assert reader.episode["network"] == {"file": "network.har", "entries": len(har["log"]["entries"]),
                                         "reason": None}
    # The page's own load came before the first step: in the HAR, named by no step.
    urls = [entry["request"]["url"] for entry in har["log"]["entries"]]
    assert site.base + "/page" in urls and site.base + "/api/data?x=1&y=two" in urls
    # The click's step names its one request, which the HAR holds under that id.
    [ping] = lines[0]["requests"]
    assert (ping["method"], ping["url"]) == ("POST", site.base + "/api/ping")
    [entry] = [e for e in har["log"]["entries"] if e["_requestId"] == ping["id"]]
    assert entry["_seq"] == ping["seq"] and entry["response"]["status"] == 200
    assert entry["request"]["postData"]["text"] == "clicked"
    assert lines[1]["requests"] == []      # moving the pointer made no request
