"""Every example of README.md and docs/*.md that talks to the services runs as written against a
container of the Chromium image (testbed/doc_examples.py finds them): each curl answers 2xx.
What the test changes: the loopback ports (8080, 8122) become the container's published ones, and
a page an example needs (named by its marker's ``given``) is put in front first. Examples run on
the Chromium image, those marked ``image chromium-full`` on that one (a container of each, started
when first needed). The containers run as compose.yaml does (DESKTOPD_INSECURE=1, no token); the
names the examples use for the web (example.com, example.org) resolve to the container itself,
so no example leaves this machine (its pages then load Chromium's error page: a load all the
same)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from testcontainers.core.container import DockerContainer

from testbed.capability import have_program, require
from testbed.doc_examples import Example, all_examples, on_ports
from testbed.polling import poll_until

from .support import Desktop, remove, start_desktop

EXAMPLES = all_examples()
SERVICE_PORTS = (8080, 8122)
# curl as the examples call it, made to fail on a non-2xx (--fail-with-body keeps the error's
# JSON for the message) and to report each answer on stderr for the check below.
REPORT = "%{stderr}doc-test: %{http_code} %{method} %{url_effective}\\n"
PRELUDE = f"""set -eo pipefail
curl() {{ command curl --fail-with-body --show-error -w '{REPORT}' "$@"; }}
"""


IMAGES = ("chromium", "chromium-full")


@pytest.fixture(scope="module")
def stacks(images: dict[str, str]) -> Iterator[Callable[[str], Desktop]]:
    """A container of the image an example names, started on its first example."""
    started: dict[str, tuple[DockerContainer, Desktop]] = {}

    def stack(image: str) -> Desktop:
        if image not in started:
            started[image] = start_desktop(images[image], token=False, ports=SERVICE_PORTS,
                                           env={"WIDTH": "1280", "HEIGHT": "800"},
                                           extra_hosts={"example.com": "127.0.0.1", "example.org": "127.0.0.1",
                                                        "en.wikipedia.org": "127.0.0.1"})
        return started[image][1]

    try:
        yield stack
    finally:
        for tc, _ in started.values():
            remove(tc)


def front_tab(desktop: Desktop) -> dict:
    tabs = desktop.get(8122, "/tabs").json()
    return next(tab for tab in tabs if tab["visible"])


def show(desktop: Desktop, html: str) -> None:
    tab = front_tab(desktop)
    answer = desktop.post(8122, f"/tabs/{tab['id']}/navigate", {"url": "data:text/html," + quote(html)})
    assert answer.status_code == 200, answer.text


def search_page(desktop: Desktop) -> Callable[[], None] | None:
    show(desktop, "<title>Search</title><input id=q aria-label=Search>")
    return None


TYPED = "héllo, 世界 ✓"


def submit_page(desktop: Desktop) -> Callable[[], None] | None:
    """README's agent loop: it clicks the button named Submit and types; the page shows both."""
    show(desktop, "<title>form</title><input id=q aria-label=Answer oninput=\"document.title='typed:'+this.value\">"
                  "<button style='margin:80px;font-size:24px' onclick=\"q.focus()\">Submit</button>")

    def check() -> None:
        poll_until(lambda: front_tab(desktop)["title"] == f"typed:{TYPED}", timeout=10,
                   what="the page's title to show the click and the typed text")
    return check


GIVEN: dict[str, Callable[[Desktop], Callable[[], None] | None]] = {
    "search-page": search_page,
    "submit-page": submit_page,
}


def run_shell(example: Example, desktop: Desktop, workdir: Path) -> tuple[str, list[tuple[int, str]]]:
    script = PRELUDE + "".join(f"{line}\n" for line in example.page_variables) + example.code
    result = subprocess.run(["bash", "-c", on_ports(script, desktop.ports)], capture_output=True, text=True,
                            timeout=120, cwd=workdir, env={"PATH": os.environ["PATH"], "HOME": str(workdir)})
    answers = [(int(parts[1]), " ".join(parts[2:])) for parts in
               (line.split() for line in result.stderr.splitlines() if line.startswith("doc-test: "))]
    assert result.returncode == 0, (f"{example.id} failed (exit {result.returncode}):\n{example.code}\n"
                                    f"stdout: {result.stdout[-2000:]}\nstderr: {result.stderr[-3000:]}")
    assert len(answers) == example.calls(), (example.id, answers, result.stderr[-2000:])
    assert all(200 <= status < 300 for status, _ in answers), (example.id, answers, result.stdout[-2000:])
    return result.stdout, answers


def run_python(example: Example, desktop: Desktop, workdir: Path) -> str:
    result = subprocess.run([sys.executable, "-c", on_ports(example.code, desktop.ports)], capture_output=True,
                            text=True, timeout=120, cwd=workdir)
    assert result.returncode == 0, \
        f"{example.id} failed:\n{example.code}\n{result.stdout[-2000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.mark.timeout(600)
@pytest.mark.parametrize("example", [e for e in EXAMPLES if e.skip is None], ids=lambda e: e.id)
def test_the_example_runs_as_written(example: Example, stacks: Callable[[str], Desktop], tmp_path: Path) -> None:
    require(have_program("curl") and have_program("jq"), "curl and jq (Debian packages): the examples run them")
    stack = stacks(example.image)
    check = GIVEN[example.given](stack) if example.given else None
    if example.lang == "python":
        output = run_python(example, stack, tmp_path)
    else:
        output, _ = run_shell(example, stack, tmp_path)
    for text in example.expect:
        assert text in output, (example.id, text, output[-2000:])
    if check is not None:
        check()


def test_each_given_state_and_image_is_one_the_test_provides() -> None:
    unknown = {e.id: e.given for e in EXAMPLES if e.given and e.given not in GIVEN}
    assert not unknown, json.dumps(unknown)
    assert {e.image for e in EXAMPLES} <= set(IMAGES), {e.id: e.image for e in EXAMPLES}
