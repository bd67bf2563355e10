#!/usr/bin/env python3
"""Architecture figures of the product code (issue 31's "before/after"): `Any` and `type: ignore`
counts, the largest modules, module-level import cycles and the package picture.

Usage: python3 tools/arch_metrics.py [--top N]
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from testbed.import_graph import PACKAGES, cycles, graph, modules  # noqa: E402  (after the path)

ANY = re.compile(r"\bAny\b")
IGNORE = re.compile(r"type:\s*ignore")


def product_files() -> list[Path]:
    return sorted(modules().values())


def deferred_imports(path: Path) -> int:
    """Imports inside functions: often a cycle hidden from module-level import order."""
    tree = ast.parse(path.read_text(), str(path))
    count = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom) and (inner.level or (inner.module or "").split(".")[0] in PACKAGES):
                    count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--top", type=int, default=12)
    args = parser.parse_args()
    files = product_files()
    texts = {p: p.read_text() for p in files}
    print(f"modules: {len(files)}, lines: {sum(t.count(chr(10)) for t in texts.values())}")
    print(f"`Any`: {sum(len(ANY.findall(t)) for t in texts.values())}")
    print(f"`type: ignore`: {sum(len(IGNORE.findall(t)) for t in texts.values())}")
    sizes = sorted(((t.count("\n"), p) for p, t in texts.items()), reverse=True)
    print(f"modules over 400 lines: {sum(1 for n, _ in sizes if n > 400)}")
    print("largest modules:")
    for n, p in sizes[: args.top]:
        print(f"  {n:5d} {p.relative_to(ROOT)}")
    names = modules()
    imports = graph()
    found = cycles(imports)
    print(f"import cycles (module level): {len(found)}")
    for comp in found:
        print("  " + " <-> ".join(comp))
    def package_of_module(n: str) -> str:
        # A module of a top package (sidecar.settings) is its own node: the top package is the
        # root every layer may use, not a layer.
        parent = n if names[n].name == "__init__.py" else n.rpartition(".")[0]
        return n if parent in PACKAGES else parent

    package_of = {n: package_of_module(n) for n in names}
    package_graph: dict[str, set[str]] = {}
    for n, targets in imports.items():
        edges = package_graph.setdefault(package_of[n], set())
        edges.update(package_of[t] for t in targets if package_of[t] != package_of[n])
    for n in set(package_of.values()):
        package_graph.setdefault(n, set())
    found = cycles(package_graph)
    print(f"package import cycles: {len(found)}")
    for comp in found:
        print("  " + " <-> ".join(comp))
    print(f"imports inside functions (product modules): {sum(deferred_imports(p) for p in files)}")
    print("package picture (package: modules, lines):")
    packages: dict[str, list[int]] = {}
    for p, t in texts.items():
        pkg = ".".join(p.relative_to(ROOT).parent.parts)
        entry = packages.setdefault(pkg, [0, 0])
        entry[0] += 1
        entry[1] += t.count("\n")
    for pkg in sorted(packages):
        print(f"  {pkg}: {packages[pkg][0]}, {packages[pkg][1]}")
    stems: dict[str, list[str]] = {}
    for p in files:
        if p.name not in ("__init__.py", "__main__.py"):
            stems.setdefault(p.name, []).append(str(p.relative_to(ROOT)))
    repeated = {k: v for k, v in stems.items() if len(v) > 1}
    print(f"repeated module names: {len(repeated)}")
    for k in sorted(repeated):
        print(f"  {k}: {', '.join(repeated[k])}")


if __name__ == "__main__":
    main()
