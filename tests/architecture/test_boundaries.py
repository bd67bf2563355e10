"""Which of our top-level packages may import which: every import statement anywhere in a file
counts (a lazy import inside a function is a dependency too)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Each top-level package and the ones it may import. The server (desktopd) and its clients
# (the kit, the sidecar) meet only in desktopd_contract and in HTTP; Sway's IPC is a library
# both backends use; the tests' and benchmarks' helpers live in testbed, which imports no test.
ALLOWED: dict[str, frozenset[str]] = {
    "httpapi": frozenset(),
    "swayipc": frozenset(),
    "desktopd_contract": frozenset({"httpapi"}),
    "desktopd": frozenset({"httpapi", "desktopd_contract", "swayipc"}),
    "desktopd_kit": frozenset({"desktopd_contract"}),
    "desktopd_fleet": frozenset({"desktopd_kit"}),
    "desktopd_osworld": frozenset({"desktopd_kit", "desktopd_fleet"}),
    "sidecar": frozenset({"httpapi", "swayipc", "desktopd_kit"}),
    "testbed": frozenset({"desktopd", "desktopd_contract", "desktopd_kit", "sidecar", "httpapi", "swayipc"}),
    "scripts": frozenset({"desktopd", "desktopd_contract", "desktopd_kit", "desktopd_fleet", "desktopd_osworld",
                          "sidecar", "httpapi", "swayipc", "testbed"}),
}
OURS = frozenset(ALLOWED) | {"tests"}


def imported_packages(path: Path) -> dict[str, int]:
    """Our top-level packages ``path`` imports, each with the line of its first import."""
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top in OURS:
                found.setdefault(top, node.lineno)
    return found


def crossings(package: str) -> list[str]:
    wrong = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for target, line in imported_packages(path).items():
            if target != package and target not in ALLOWED[package]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    return wrong


def test_the_scanner_sees_lazy_and_dotted_imports(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("import os\nimport desktopd.x as y\ndef f():\n    from sidecar.cdp import c\n"
                      "from . import tests\n")
    assert imported_packages(module) == {"desktopd": 2, "sidecar": 4}


def test_each_package_imports_only_what_it_may() -> None:
    assert {package: crossings(package) for package in ALLOWED} == {package: [] for package in ALLOWED}


def test_every_package_of_ours_is_ruled() -> None:
    packages = {path.parent.name for path in ROOT.glob("*/__init__.py")}
    assert packages - {"tests"} <= set(ALLOWED), packages - set(ALLOWED)
