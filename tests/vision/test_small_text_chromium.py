"""Small text in a real Chromium read letter for letter: the desktopd start page's paragraph,
whose small monospace ports (":8080" read as ":sese") and a 12 px path ("start.html" read as
"start.htm!") the model engine misread before weak words were read again alone, and more small
code spans and paths. (Not asked: the address bar's grey "...text.html", whose last "l" the
model reads as "!" however it is cut; docs/vision.md, known limits.)"""

from __future__ import annotations

import asyncio

import pytest
import requests

from desktopd_kit import Desktop
from tests.sidecar_layout.harness import sidecar_and_desktopd

pytestmark = [pytest.mark.x11, pytest.mark.chromium]

EXPECTED = [":8080", ":8122", ":6080", ":5900", "/var/lib/desktopd/profiles", "/usr/share/desktopd/start.html"]


def read_words(desktop: Desktop, desktopd_url: str) -> list[str]:
    desktop.wait_until_healthy(timeout=60)
    assert desktop.step(screenshot=None, settle=5.0, settle_quiet=0.5)["settled"]["reason"] == "quiet"
    answer = requests.get(desktopd_url + "/api/v1/vision/text", timeout=60)
    assert answer.status_code == 200, answer.text
    return [word["text"] for line in answer.json()["lines"] for word in line["words"]]


async def test_small_code_spans_and_paths_are_read_letter_for_letter(tmp_path, pages):
    async with sidecar_and_desktopd(tmp_path, pages.url("vision-small-text.html")) as (sidecar, desktopd, _):
        with Desktop(desktopd.url, sidecar_url=sidecar.url) as desktop:
            words = await asyncio.to_thread(read_words, desktop, desktopd.url)
    assert [text for text in EXPECTED if text not in words] == [], " ".join(words)
