"""The product's import graph: every module imports on its own (no order-dependent circle), no
module-level import circle anywhere, and the sidecar's layers (browser, cdp, layout, agent, mcp,
server and the top modules) import each other in one direction only."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("desktopd", "desktopd_kit", "desktopd_fleet", "sidecar", "httpapi")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _runtime_imports(name: str, path: Path, known: set[str]) -> set[str]:
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


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
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
def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _runtime_imports(name, path, set(modules)) for name, path in modules.items()}


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_level_import_circle() -> None:
    assert _cycles(_graph()) == []


def test_the_sidecar_layers_import_in_one_direction() -> None:
    def layer(module: str) -> str:
        # sidecar.agent.kinds.click -> sidecar.agent; a top module (sidecar.settings) is its own node.
        return ".".join(module.split(".")[:2])

    layers: dict[str, set[str]] = {}
    for module, targets in _graph().items():
        if module.startswith("sidecar"):
            edges = layers.setdefault(layer(module), set())
            edges.update(layer(t) for t in targets if t.startswith("sidecar") and layer(t) != layer(module))
    for targets in list(layers.values()):
        for target in targets:
            layers.setdefault(target, set())
    assert _cycles(layers) == []
    # The layering this keeps: the browser owner builds the layout and agent parts; neither
    # knows the HTTP shell or the browser owner.
    for lower in ("sidecar.cdp", "sidecar.layout", "sidecar.agent"):
        assert not layers[lower] & {"sidecar.server", "sidecar.browser", "sidecar.mcp"}, (lower, layers[lower])


def test_each_sidecar_module_imports_on_its_own() -> None:
    """Imported first, each module must not hit a circle that another import order hides."""
    names = sorted(name for name in _modules() if name.startswith("sidecar") and not name.endswith("__main__"))
    script = (
        "import importlib, sys\n"
        "failed = []\n"
        "roots = ('sidecar', 'httpapi')\n"
        "for name in sys.argv[1:]:\n"
        "    for loaded in [m for m in sys.modules if m.split('.')[0] in roots]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError as exc:\n"
        "        failed.append(f'{name}: {exc!r}')\n"
        "print('\\n'.join(failed))\n")
    result = subprocess.run([sys.executable, "-c", script, *names], cwd=ROOT, capture_output=True,
                            text=True, timeout=110)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == ""
