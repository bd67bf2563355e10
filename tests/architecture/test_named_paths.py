"""Every repository path a doc, a docstring, a comment or an OpenAPI description names exists
(the OpenAPI descriptions are written in the route declarations, so scanning the source covers
them): a moved or deleted file leaves no reader at a dead end."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
TEXT_FILES = (".md", ".jsonc", ".py", ".sh", ".yaml", ".toml", ".js", ".cfg")
# What a path names: a file with one of these extensions, or a directory (a trailing slash).
NAMED = r"\.(?:py|md|sh|js|json|jsonc|yaml|yml|toml|txt|html|cfg|conf|css)|/"


def tracked() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    return [name for name in listed if (ROOT / name).exists()]


def path_pattern(top_level: set[str]) -> re.Pattern[str]:
    tops = "|".join(re.escape(name) for name in sorted(top_level))
    return re.compile(rf"(?<![\w/.-])((?:{tops})/[\w./-]*?(?:{NAMED}))(?![\w])")


def ignored(path: str) -> bool:
    """A file the user makes and git keeps out (a token beside a kustomization)."""
    return subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0


def dangling(files: list[str]) -> list[str]:
    known = set(files) | {str(parent) for name in files for parent in PurePosixPath(name).parents}
    pattern = path_pattern({name.split("/")[0] for name in files if "/" in name and not name.startswith(".")})
    found = []
    for name in files:
        if not name.endswith(TEXT_FILES):
            continue
        for match in pattern.finditer((ROOT / name).read_text(errors="replace")):
            named = match.group(1)
            if named.rstrip("/") not in known and not ignored(named):
                found.append(f"{name}: {named}")
    return found


def test_the_pattern_finds_files_and_directories_but_not_image_names() -> None:
    pattern = path_pattern({"sidecar", "desktopd"})
    text = "see sidecar/server/app.py, sidecar/cdp/ and desktopd/chromium:latest; not xsidecar/a.py"
    assert [m.group(1) for m in pattern.finditer(text)] == ["sidecar/server/app.py", "sidecar/cdp/"]


def test_every_named_path_exists() -> None:
    assert dangling(tracked()) == []
