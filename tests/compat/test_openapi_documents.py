"""Each daemon's OpenAPI document as a client generator sees it: valid by openapi-spec-validator
(PyPI), and a client generated from it by openapi-python-client (PyPI, in .venv-openapi-client,
which scripts/lib.sh makes) imports, every module of it."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openapi_spec_validator import validate

from desktopd.meta.openapi import build_openapi as desktopd_openapi
from desktopd.osworld.routes import osworld_openapi
from desktopd.routes import ROUTES as DESKTOPD_ROUTES
from httpapi.openapi import build_openapi, operation_id
from httpapi.routing import Route
from sidecar.server.routes import OPENAPI_BODY as SIDECAR_OPENAPI_BODY
from testbed.capability import require

ROOT = Path(__file__).resolve().parents[2]
GENERATOR_VENV = ROOT / ".venv-openapi-client" / "bin"

# What each daemon serves at /api/v1/openapi.json, /openapi.json and (DESKTOPD_OSWORLD=1) port
# 5000's /openapi.json: the same builders the apps call.
DOCUMENTS: dict[str, Callable[[], dict[str, Any]]] = {
    "desktopd": lambda: desktopd_openapi(DESKTOPD_ROUTES),
    "sidecar": lambda: json.loads(SIDECAR_OPENAPI_BODY),
    "osworld": osworld_openapi,
}


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_the_document_passes_openapi_spec_validator(name: str) -> None:
    validate(DOCUMENTS[name]())   # raises with the first violation (a repeated operation id, ...)


# The OSWorld document is left out: openapi-python-client 0.29.1 writes `| Unset` without its
# import for a required body with several media types (its issue #1451), which that API's JSON
# and form bodies are; the document itself is valid (above).
@pytest.mark.parametrize("name", ["desktopd", "sidecar"])
def test_a_client_generated_from_the_document_imports(name: str, tmp_path: Path) -> None:
    generator = GENERATOR_VENV / "openapi-python-client"
    require(generator.exists(), "openapi-python-client in .venv-openapi-client (scripts/lib.sh makes it)")
    document = tmp_path / f"{name}.json"
    document.write_text(json.dumps(DOCUMENTS[name]()))
    package = f"{name}_client"
    env = {"PATH": f"{GENERATOR_VENV}:/usr/bin:/bin"}   # its post-generation hook runs its ruff
    made = subprocess.run([str(generator), "generate", "--path", str(document), "--meta", "none",
                           "--output-path", str(tmp_path / package)],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert made.returncode == 0, f"{made.stdout[-4000:]}\n{made.stderr[-4000:]}"
    imported = subprocess.run(
        [str(GENERATOR_VENV / "python"), "-c",
         "import importlib, pkgutil, sys\n"
         f"package = importlib.import_module({package!r})\n"
         "names = [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + '.')]\n"
         "for name in names:\n"
         "    importlib.import_module(name)\n"
         "print('\\n'.join(names))\n"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr[-4000:]
    modules = set(imported.stdout.split())
    # One function module per operation, named by its id (a tag's folder holds it).
    spec = DOCUMENTS[name]()
    ids = {op["operationId"] for ops in spec["paths"].values() for op in ops.values()}
    generated = {module.rsplit(".", 1)[1] for module in modules if ".api." in module}
    assert ids <= generated, sorted(ids - generated)


async def _answer(request: Any) -> Any:
    raise AssertionError("never called")


def _route(method: str, path: str) -> Route:
    return Route(method, path, _answer, "a route", "test", uses_x=False)


def test_operation_ids_tell_apart_paths_that_differ_by_a_trailing_slash() -> None:
    assert operation_id("GET", "/cdp/json") == "get_cdp_json"
    assert operation_id("GET", "/cdp/json/") == "get_cdp_json_slash"
    assert operation_id("GET", "/") == "get_root"
    assert operation_id("DELETE", "/tabs/{tab_id}") == "delete_tabs_tab_id"
    document = build_openapi([_route("GET", "/json/version"), _route("GET", "/json/version/"),
                              _route("GET", "/cdp/json/version")],
                             title="t", version="1", description="d", texts={401: "", 500: ""})
    validate(document)


def test_a_table_whose_paths_would_share_an_operation_id_is_refused() -> None:
    with pytest.raises(ValueError, match=r"get_hooks_file_chooser.*GET /hooks/file_chooser.*GET /hooks/file-chooser"):
        build_openapi([_route("GET", "/hooks/file-chooser"), _route("GET", "/hooks/file_chooser")],
                      title="t", version="1", description="d", texts={401: "", 500: ""})


def enums(node: object) -> list[dict[str, Any]]:
    if isinstance(node, dict):
        return ([node] if "enum" in node else []) + [e for value in node.values() for e in enums(value)]
    if isinstance(node, list):
        return [e for value in node for e in enums(value)]
    return []


def test_an_enum_whose_values_differ_only_in_case_names_its_constants() -> None:
    found = [e for e in enums(json.loads(SIDECAR_OPENAPI_BODY)) if "Shift" in e["enum"] and "shift" in e["enum"]]
    assert found, "the act modifiers' enum (Shift and shift) is no longer in the document"
    for modifiers in found:
        assert modifiers["enum"] == ["Control", "Shift", "Alt", "Meta", "ctrl", "shift", "alt", "meta"]
        assert modifiers["x-enum-varnames"] == ["CONTROL", "SHIFT", "ALT", "META", "CTRL", "SHIFT_2", "ALT_2",
                                                "META_2"]
    # Enums whose values name their constants apart carry no names of their own.
    assert all("x-enum-varnames" not in e for e in enums(json.loads(SIDECAR_OPENAPI_BODY)) if "Shift" not in e["enum"])
