"""A harness imports the kit without desktopd's server: naming a vendor format loads its
declaration (desktopd_contract/formats/), never its executor, the input layer, the X bindings,
aiohttp or Pillow."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SERVER_SIDE = ("desktopd.computer.format_servers", "desktopd.computer.steps", "desktopd.computer.display",
               "desktopd.app_keys", "desktopd.screen", "desktopd.input", "desktopd.step", "desktopd.x11",
               "desktopd.settle", "desktopd.backend", "Xlib", "aiohttp", "PIL")


@pytest.mark.parametrize("module", ["desktopd_kit", "desktopd_kit.actions", "desktopd_kit.env"])
def test_importing_the_kit_loads_no_server_side_module(module: str) -> None:
    code = (f"import json, sys, {module}\n"
            f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({SERVER_SIDE!r}))))")
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(found.stdout) == []
