"""A person's demonstration through a real VNC client (vncdotool, the container's VNC port and
password) on a form page in the Chromium image: the record, its replay on a fresh desktop, the
view page and the datasets export."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest

from desktopd_kit import Desktop
from desktopd_kit.records import Demonstration, EpisodeReader
from desktopd_kit.records.elements import center, find_again
from testbed.capability import require_chromium

from .support import remove, start_desktop

# vncdotool's VNC authentication uses cryptography's TripleDES, which warns that it moves.
pytestmark = pytest.mark.filterwarnings("ignore:TripleDES has been moved")

FORM = """<title>Form</title>
<style>body{font:20px sans-serif;margin:30px} input{font-size:22px} #spacer{height:300px}</style>
<h1>Sign up</h1>
<form onsubmit="event.preventDefault();document.getElementById('result').textContent='submitted: '
  +this.elements.name.value+' / '+this.elements.level.value;document.title='submitted'">
<p><input name="name" aria-label="Name" style="width:500px"></p>
<div id="spacer"></div>
<p><input type="range" name="level" aria-label="Level" min="0" max="100" value="0" style="width:400px"></p>
<p><button type="submit">Submit</button></p>
<p id="result">not submitted</p>
<div style="height:1200px"></div>
</form>"""
PAGE = "data:text/html," + quote(FORM)
STEP_TIMEOUT_S = 30


def form_container(images: dict[str, str]):
    return start_desktop(images["chromium"], ports=(8080, 8122, 5900),
                         env={"SIDECAR_URLS": PAGE, "WIDTH": "1280", "HEIGHT": "800"})


def client_of(running) -> Desktop:
    return Desktop(running.url(8080), token=running.token, sidecar_url=running.url(8122))


def element(desktop: Desktop, role: str, name: str) -> dict:
    node, count = find_again(desktop.layout(interesting=True), role, name, [])
    assert node is not None and count == 1, (role, name, count)
    return node


def submitted(desktop: Desktop) -> str:
    """The form's result line as the page shows it."""
    found = re.search(r"submitted: [^\n\"]*", desktop.snapshot())
    return found.group(0) if found else ""


@pytest.fixture(scope="module")
def recorded(images, tmp_path_factory) -> Iterator[tuple[Path, str]]:
    """The person's demonstration, recorded once (its container is gone once it is recorded)."""
    from vncdotool import api
    tc, running = form_container(images)
    out = tmp_path_factory.mktemp("demonstrations")
    try:
        desktop = client_of(running)
        vnc = api.connect(f"127.0.0.1::{running.ports[5900]}", password=running.vnc_password, timeout=60)
        try:
            with Demonstration(desktop, out, episode_id="form", typing_idle_ms=800) as demo:
                def then(count: int) -> None:   # the next action once the last one is recorded
                    assert demo.wait_for_steps(count, STEP_TIMEOUT_S), (count, demo.steps, demo.error)
                vnc.mouseMove(*center(element(desktop, "textbox", "Name")))
                vnc.mousePress(1)
                then(1)
                for char in "Ada Lovelace":
                    vnc.keyPress(char)
                then(2)
                vnc.keyDown("ctrl")
                vnc.keyPress("a")
                vnc.keyUp("ctrl")
                then(3)
                for char in "Grace Hopper":
                    vnc.keyPress(char)
                then(4)
                vnc.mouseMove(640, 500)
                vnc.mousePress(5)
                vnc.mousePress(5)
                then(5)
                slider = element(desktop, "slider", "Level")["screen"]["borderBox"]
                y = round(slider["y"] + slider["height"] / 2)
                vnc.mouseMove(round(slider["x"]) + 8, y)       # the thumb, at 0
                vnc.mouseDown(1)
                for x in range(round(slider["x"]) + 40, round(slider["x"] + slider["width"] * 0.75), 40):
                    vnc.mouseMove(x, y)
                vnc.mouseMove(round(slider["x"] + slider["width"] * 0.75), y)
                vnc.mouseUp(1)
                then(6)
                vnc.mouseMove(*center(element(desktop, "button", "Submit")))
                vnc.mousePress(1)
                then(7)
            result = submitted(desktop)
            assert result.startswith("submitted: Grace Hopper / ") and not result.endswith("/ 0"), result
        finally:
            vnc.disconnect()
    finally:
        remove(tc)
    yield demo.directory, result


def steps_of(directory: Path) -> list[dict]:
    return [step.record for step in EpisodeReader(directory)]


def test_the_record_holds_the_persons_actions_in_order(recorded: tuple[Path, str]) -> None:
    directory = recorded[0]
    steps = steps_of(directory)
    actions = [s["action"]["issued"] for s in steps]
    assert [a["type"] for a in actions] == ["click", "type", "keys", "type", "scroll", "drag", "click"]
    assert actions[1]["text"] == "Ada Lovelace" and actions[3]["text"] == "Grace Hopper"
    assert actions[2]["keys"] == "ctrl+a" and (actions[4]["dx"], actions[4]["dy"]) == (0, 2)
    assert {s["source"] for s in steps} == {"person"}
    elements = [(s["demonstration"]["element"]["role"], s["demonstration"]["element"]["name"]) for s in steps]
    assert elements[:4] == [("textbox", "Name")] * 4
    assert elements[5:] == [("slider", "Level"), ("button", "Submit")]
    for step in steps:
        assert (directory / step["observation"]["image"]).is_file() and (directory / step["after"]["image"]).is_file()
        assert step["demonstration"]["window"]["class"] == "Chromium"
        assert step["demonstration"]["snapshot"] and step["action"]["vendor"]["pyautogui"]
    assert steps[0]["demonstration"]["element"]["ref"] is not None
    assert steps[0]["demonstration"]["element"]["path"][-1] == {"role": "textbox", "name": "Name"}
    check = subprocess.run([sys.executable, "-m", "desktopd_kit.records", "validate", str(directory)],
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr


def replay_on(running, directory: Path) -> tuple[int, list[dict]]:
    done = subprocess.run([sys.executable, "-m", "desktopd_kit.records", "replay", str(directory),
                           "--desktop", running.url(8080), "--sidecar", running.url(8122), "--token", running.token],
                          capture_output=True, text=True, timeout=300)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_replay_on_a_fresh_desktop_submits_the_same_values(recorded: tuple[Path, str], images, tmp_path) -> None:
    directory, result = recorded
    tc, running = form_container(images)
    try:
        code, lines = replay_on(running, directory)
        assert code == 0, lines
        assert all(line["found"] is not False for line in lines[:-1]), lines
        assert [line["by"] for line in lines[:-1]][:4] == ["element"] * 4
        assert [line["target"] for line in lines[5:7]] == [{"role": "slider", "name": "Level"},
                                                           {"role": "button", "name": "Submit"}]
        desktop = client_of(running)
        assert submitted(desktop) == result
        # The same record whose Submit button is gone from the page: the divergence is reported.
        edited = tmp_path / "edited"
        shutil.copytree(directory, edited)
        lines_out = []
        for line in (edited / "steps.jsonl").read_text().splitlines():
            step = json.loads(line)
            if step["index"] == 7:
                step["demonstration"]["element"]["name"] = "Send"
            lines_out.append(json.dumps(step))
        (edited / "steps.jsonl").write_text("\n".join(lines_out) + "\n")
        desktop.reset([PAGE])
        code, lines = replay_on(running, edited)
        assert code == 1, lines
        assert lines[-1]["divergent_steps"] == [7] and lines[6]["found"] is False
    finally:
        remove(tc)


def test_the_view_page_shows_every_step_with_its_mark_at_the_point(recorded: tuple[Path, str], tmp_path) -> None:
    from playwright.sync_api import sync_playwright
    chromium = require_chromium()
    directory = recorded[0]
    made = subprocess.run([sys.executable, "-m", "desktopd_kit.records", "view", str(directory), "--out",
                           str(tmp_path / "view")], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    page_file = Path(json.loads(made.stdout)["page"])
    steps = steps_of(directory)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page.goto(page_file.as_uri())
            page.wait_for_function("[...document.images].every(i => i.complete && i.naturalWidth > 0)")
            shown = page.evaluate("""() => [...document.querySelectorAll('section.step')].map(s => {
                const img = s.querySelector('img.before'), r = img.getBoundingClientRect();
                const mark = s.querySelector('.action-mark');
                const m = mark && mark.getBoundingClientRect();
                return {index: +s.dataset.index, kind: s.querySelector('.kind').textContent,
                        typed: (s.querySelector('.typed') || {}).textContent || null,
                        after: !!(s.querySelector('img.after') || {}).naturalWidth,
                        scale: r.width / img.naturalWidth,
                        mark: m && {x: (m.left + m.width / 2 - r.left) / (r.width / img.naturalWidth),
                                    y: (m.top + m.height / 2 - r.top) / (r.height / img.naturalHeight)},
                        line: !!s.querySelector('.drag-line'), box: !!s.querySelector('.element-box')};
            })""")
        finally:
            browser.close()
    assert [s["index"] for s in shown] == [s["index"] for s in steps]
    assert [s["kind"] for s in shown] == [s["action"]["kind"] for s in steps]
    assert [s["typed"] for s in shown] == [None, "Ada Lovelace", "ctrl+a", "Grace Hopper", None, None, None]
    assert all(s["after"] and s["box"] for s in shown)
    assert [s["line"] for s in shown] == [k == "drag" for k in (st["action"]["kind"] for st in steps)]
    for view, step in zip(shown, steps):
        point = step["action"]["point"]
        if point is None:
            assert view["mark"] is None
            continue
        # the mark's centre in the image's own pixels, where the action was (the image is the screen)
        assert abs(view["mark"]["x"] - point["x"]) <= 2 and abs(view["mark"]["y"] - point["y"]) <= 2, (view, point)


def test_the_datasets_export_loads_one_row_per_step_with_images(recorded: tuple[Path, str], tmp_path) -> None:
    import datasets
    directory = recorded[0]
    made = subprocess.run([sys.executable, "-m", "desktopd_kit.records", "export", "--format", "datasets",
                           str(directory), "--out", str(tmp_path / "hf")], capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    loaded = datasets.load_dataset("parquet", data_files=str(tmp_path / "hf" / "data" / "*.parquet"),
                                   split="train", cache_dir=str(tmp_path / "cache"))
    steps = steps_of(directory)
    assert len(loaded) == len(steps) == 7
    assert isinstance(loaded.features["image"], datasets.Image) and isinstance(loaded.features["after_image"], datasets.Image)
    assert loaded["kind"] == [s["action"]["kind"] for s in steps]
    assert loaded["source"] == ["person"] * 7 and loaded["text"][1] == "Ada Lovelace"
    first = loaded[0]
    assert first["image"].size == (steps[0]["observation"]["image_size"]["width"],
                                   steps[0]["observation"]["image_size"]["height"])
    assert (first["element_role"], first["element_name"]) == ("textbox", "Name")
    assert json.loads(first["openai"]) == steps[0]["action"]["vendor"]["openai"]


def test_an_agents_steps_amid_a_demonstration_are_recorded_as_agent_in_order(images, tmp_path) -> None:
    from vncdotool import api
    tc, running = form_container(images)
    try:
        desktop = client_of(running)
        vnc = api.connect(f"127.0.0.1::{running.ports[5900]}", password=running.vnc_password, timeout=60)
        try:
            with Demonstration(desktop, tmp_path, episode_id="mixed", typing_idle_ms=800) as demo:
                vnc.mouseMove(*center(element(desktop, "textbox", "Name")))
                vnc.mousePress(1)
                assert demo.wait_for_steps(1, STEP_TIMEOUT_S)
                for char in "Ada":
                    vnc.keyPress(char)
                assert demo.wait_for_steps(2, STEP_TIMEOUT_S)
                desktop.step({"keyboard": {"text": " and Bob"}}, settle=0.3)    # the agent takes over
                assert demo.wait_for_steps(3, STEP_TIMEOUT_S)
                for char in " end":                                            # and hands back
                    vnc.keyPress(char)
                assert demo.wait_for_steps(4, STEP_TIMEOUT_S)
        finally:
            vnc.disconnect()
    finally:
        remove(tc)
    steps = steps_of(demo.directory)
    assert [(s["source"], s["action"]["issued"]) for s in steps] == [
        ("person", {"type": "click", **steps[0]["action"]["point"], "button": "left", "clicks": 1}),
        ("person", {"type": "type", "text": "Ada"}),
        ("agent", {"type": "type", "text": " and Bob"}),
        ("person", {"type": "type", "text": " end"})]
    values = []
    for step in steps[1:]:
        after_layout = json.loads((demo.directory / step["after"]["layout"]).read_text())
        node, _ = find_again(after_layout, "textbox", "Name", [])
        values.append((node or {}).get("value", {}).get("value"))
    assert values == ["Ada", "Ada and Bob", "Ada and Bob end"]     # the order the page saw them
    assert EpisodeReader(demo.directory).episode["demonstration"]["by_source"] == {"person": 3, "agent": 1}


LOADING = "data:text/html," + quote("""<title>Loading</title><style>body{font:22px sans-serif;margin:30px}</style>
<button onclick="load()">Load</button> <button>Next</button>
<div id="bar" style="height:30px;background:#36c;width:0"></div><p id="state">idle</p>
<script>
function load() {
  const start = performance.now();
  document.getElementById('state').textContent = 'loading';
  (function frame(now) {                     // drawing every frame for 2.5 s: a page still loading
    if (now - start < 2500) {
      document.getElementById('bar').style.width = ((now - start) / 5 % 600) + 'px';
      requestAnimationFrame(frame);
    } else {
      document.getElementById('state').textContent = 'loaded';
    }
  })(start);
}
</script>""")


LOADED = '- text: "loaded"'    # the state line of the snapshot (the page's URL holds its source too)


def test_the_before_of_an_action_is_the_screen_settled_after_a_slow_page(images, tmp_path) -> None:
    from vncdotool import api
    tc, running = start_desktop(images["chromium"], ports=(8080, 8122, 5900),
                                env={"SIDECAR_URLS": LOADING, "WIDTH": "1280", "HEIGHT": "800"})
    try:
        desktop = client_of(running)
        vnc = api.connect(f"127.0.0.1::{running.ports[5900]}", password=running.vnc_password, timeout=60)
        try:
            with Demonstration(desktop, tmp_path, episode_id="slow") as demo:
                vnc.mouseMove(*center(element(desktop, "button", "Load")))
                vnc.mousePress(1)
                assert demo.wait_for_steps(1, STEP_TIMEOUT_S)
                deadline = time.monotonic() + STEP_TIMEOUT_S     # the page went on drawing: taken again
                while LOADED not in (demo.before_snapshot or "") and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert demo.refreshes >= 1 and LOADED in (demo.before_snapshot or ""), demo.refreshes
                vnc.mouseMove(*center(element(desktop, "button", "Next")))
                vnc.mousePress(1)
                assert demo.wait_for_steps(2, STEP_TIMEOUT_S)
        finally:
            vnc.disconnect()
    finally:
        remove(tc)
    first, second = steps_of(demo.directory)
    assert LOADED not in (demo.directory / first["demonstration"]["snapshot"]).read_text()
    assert LOADED in (demo.directory / second["demonstration"]["snapshot"]).read_text()
