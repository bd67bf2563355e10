"""The examples of README.md and docs/*.md that talk to the services, read from the Markdown as a
reader sees them (tests/containers/test_doc_examples.py runs them against a container).

An example is a fenced ``sh``/``bash``/``shell`` block that calls ``curl`` (or ``wget``), or any
block marked to run. A marker is an HTML comment on the line just before the fence (invisible
in the rendered page), directives separated by ``;``:

    <!-- doc-test: skip (why it cannot run here) -->
    <!-- doc-test: given search-page; expect "result": "Search" -->

``skip (why)``: not run (the reason is required); ``given NAME``: the test puts the stack in
that state first (a page in front, say) and checks what it says after; ``expect TEXT``: the
output contains TEXT; ``image NAME``: on that image (default ``chromium``; ``chromium-full`` for
what only it has); ``run``: a block of another language (Python) runs too."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHELLS = frozenset({"sh", "bash", "shell"})
FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[\w-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*doc-test:(?P<directives>.*?)-->\s*$")
CALLS_A_SERVICE = re.compile(r"(?<![\w-])(curl|wget)(?![\w-])")
# NAME=value lines a page sets once for its later blocks (D=http://127.0.0.1:8080).
PAGE_VARIABLE = re.compile(r"^[A-Z][A-Z0-9_]*=\S+(\s+#.*)?$")
LOOPBACK_PORT = re.compile(r"(?P<host>127\.0\.0\.1|localhost):(?P<port>\d{2,5})\b")


class BadMarker(ValueError):
    pass


@dataclass
class Example:
    path: str                 # relative to the repository, e.g. docs/desktopd-api.md
    line: int                 # the fence's line, 1-based
    lang: str
    code: str
    page_variables: list[str] = field(default_factory=list)   # earlier blocks' NAME=value lines
    skip: str | None = None
    given: str | None = None
    expect: list[str] = field(default_factory=list)
    image: str = "chromium"

    @property
    def id(self) -> str:
        return f"{self.path}:{self.line}"

    def calls(self) -> int:
        """How many times the code calls curl (comments left out)."""
        return sum(len(re.findall(r"(?<![\w-])curl(?![\w-])", strip_comment(line)))
                   for line in self.code.splitlines())


def strip_comment(line: str) -> str:
    """A shell line without its trailing comment (a # after whitespace, outside quotes)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


@dataclass
class Marker:
    skip: str | None = None
    given: str | None = None
    expect: list[str] = field(default_factory=list)
    image: str = "chromium"
    run: bool = False


def parse_marker(text: str, where: str) -> Marker:
    marker = Marker()
    for directive in (d.strip() for d in text.split(";")):
        if directive.startswith("skip"):
            reason = re.fullmatch(r"skip\s*\((.+)\)", directive)
            if not reason:
                raise BadMarker(f"{where}: 'skip' needs its reason in parentheses: {directive!r}")
            marker.skip = reason.group(1).strip()
        elif directive.startswith("given "):
            marker.given = directive[len("given "):].strip()
        elif directive.startswith("expect "):
            marker.expect.append(directive[len("expect "):].strip())
        elif directive.startswith("image "):
            marker.image = directive[len("image "):].strip()
        elif directive == "run":
            marker.run = True
        elif directive:
            raise BadMarker(f"{where}: unknown doc-test directive {directive!r}")
    return marker


def examples_in(path: Path) -> list[Example]:
    relative = str(path.relative_to(ROOT))
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Example] = []
    variables: list[str] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        start, indent, lang = i, fence.group("indent"), fence.group("lang").lower()
        i += 1
        body: list[str] = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        i += 1
        code = "\n".join(body) + "\n"
        before = next((lines[j] for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        marker = MARKER.match(before)
        said = parse_marker(marker.group("directives"), f"{relative}:{start}") if marker else Marker()
        is_shell = lang in SHELLS
        if (is_shell and CALLS_A_SERVICE.search("\n".join(strip_comment(line) for line in body))) or said.run:
            found.append(Example(relative, start + 1, lang, code, list(variables), said.skip, said.given,
                                 said.expect, said.image))
        if is_shell:
            variables += [line.strip() for line in body if PAGE_VARIABLE.match(line.strip())]
    return found


def all_examples() -> list[Example]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    return [example for page in pages for example in examples_in(page)]


def on_ports(text: str, published: dict[int, int]) -> str:
    """The text with each loopback service port (8080, 8122, ...) replaced by the port the test's
    container publishes it on; other ports are left as written."""
    def swap(match: re.Match[str]) -> str:
        port = int(match.group("port"))
        return f"{match.group('host')}:{published[port]}" if port in published else match.group(0)
    return LOOPBACK_PORT.sub(swap, text)
