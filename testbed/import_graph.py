"""The product's import graph, read from the source (ast): module names, each module's runtime
imports of product modules, and the circles in a graph (tests/architecture/test_import_graph.py
and tools/arch_metrics.py)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("desktopd", "desktopd_contract", "desktopd_kit", "desktopd_fleet", "desktopd_osworld", "sidecar",
            "httpapi", "swayipc")


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def runtime_imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Product modules imported when ``name`` is (its module-level statements; type-only
    imports under ``if TYPE_CHECKING`` and imports inside functions run later or never)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                found.add(target)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node."""
    order: list[str] = []
    seen: set[str] = set()
    for start in sorted(graph):            # first pass: finishing order (iterative DFS)
        if start in seen:
            continue
        seen.add(start)
        stack = [(start, iter(sorted(graph[start])))]
        while stack:
            node, edges = stack[-1]
            for nxt in edges:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, iter(sorted(graph[nxt]))))
                    break
            else:
                stack.pop()
                order.append(node)
    reverse: dict[str, set[str]] = {node: set() for node in graph}
    for node, targets in graph.items():
        for target in targets:
            reverse[target].add(node)
    assigned: set[str] = set()
    components = []
    for start in reversed(order):          # second pass on the reversed graph
        if start in assigned:
            continue
        component, todo = [], [start]
        assigned.add(start)
        while todo:
            node = todo.pop()
            component.append(node)
            for nxt in reverse[node] - assigned:
                assigned.add(nxt)
                todo.append(nxt)
        if len(component) > 1:
            components.append(sorted(component))
    return components


@functools.cache
def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: runtime_imports(name, path, set(found)) for name, path in found.items()}
