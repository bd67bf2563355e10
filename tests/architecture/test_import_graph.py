"""The product's import graph: every module imports on its own (no order-dependent circle), no
module-level import circle anywhere, and the sidecar's layers (browser, cdp, layout, agent, mcp,
server and the top modules) import each other in one direction only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from testbed.import_graph import cycles, graph, modules

ROOT = Path(__file__).resolve().parents[2]


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_level_import_circle() -> None:
    assert cycles(graph()) == []


def test_the_sidecar_layers_import_in_one_direction() -> None:
    def layer(module: str) -> str:
        # sidecar.agent.kinds.click -> sidecar.agent; a top module (sidecar.settings) is its own node.
        return ".".join(module.split(".")[:2])

    layers: dict[str, set[str]] = {}
    for module, targets in graph().items():
        if module.startswith("sidecar"):
            edges = layers.setdefault(layer(module), set())
            edges.update(layer(t) for t in targets if t.startswith("sidecar") and layer(t) != layer(module))
    for targets in list(layers.values()):
        for target in targets:
            layers.setdefault(target, set())
    assert cycles(layers) == []
    # The layering this keeps: the browser owner builds the layout and agent parts; neither
    # knows the HTTP shell or the browser owner.
    for lower in ("sidecar.cdp", "sidecar.layout", "sidecar.agent"):
        assert not layers[lower] & {"sidecar.server", "sidecar.browser", "sidecar.mcp"}, (lower, layers[lower])


def test_each_sidecar_module_imports_on_its_own() -> None:
    """Imported first, each module must not hit a circle that another import order hides."""
    names = sorted(name for name in modules() if name.startswith("sidecar") and not name.endswith("__main__"))
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
