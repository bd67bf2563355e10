"""Each vendor action format is declared once (desktopd_contract/formats/): desktopd's routes, its
OpenAPI document, POST /api/v1/step's acts and the harness kit's formats are made from the
declarations and must say the same. Every check runs over whatever formats are registered, so a
new format module is checked without a line here."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from desktopd.computer.vendor_format import FormatServer, server_side
from desktopd.meta.openapi import build_openapi
from desktopd.step.models import ACTS, STEP_BODY
from desktopd.routes import ROUTES
from desktopd_contract.formats import FORMATS
from desktopd_contract.vendor_format import COMPUTER_PATH
from desktopd_kit import Desktop, actions
from desktopd_kit.actions import Scaling, canonical_kind, detect_format, plan_action, run_action
from desktopd_kit.env import DesktopEnv
from desktopd_kit.records import schema
from testbed.desktopd import DesktopdProcess

ROOT = Path(__file__).resolve().parents[2]
KIT_KINDS = {"click", "type", "keys", "move", "scroll", "drag", "mouse_down", "mouse_up", "wait", "noop"}
DOCUMENT = build_openapi(ROUTES)
NAMES = sorted(FORMATS)


def _resolve(schema: dict) -> dict:
    if "$ref" in schema:
        return DOCUMENT["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def test_each_format_module_declares_the_format_it_is_named_for() -> None:
    modules = {path.stem for path in (ROOT / "desktopd_contract/formats").glob("*.py") if path.stem != "__init__"}
    assert modules == set(FORMATS) and len(FORMATS) >= 2


def test_each_format_names_its_server_side_and_every_server_module_belongs_to_one() -> None:
    servers = {f"desktopd.computer.format_servers.{path.stem}"
               for path in (ROOT / "desktopd/computer/format_servers").glob("*.py") if path.stem != "__init__"}
    assert {fmt.server for fmt in FORMATS.values()} == servers
    for fmt in FORMATS.values():
        assert isinstance(server_side(fmt), FormatServer) and server_side(fmt).endpoints
    misnamed = replace(FORMATS["openai"], server="desktopd_contract.formats.anthropic")
    with pytest.raises(TypeError, match=r"desktopd_contract\.formats\.anthropic\.SERVER is not a FormatServer"):
        server_side(misnamed)


def test_the_routes_under_computer_are_exactly_the_formats_endpoints() -> None:
    served = {(route.method, route.path) for route in ROUTES if route.path.startswith(COMPUTER_PATH + "/")}
    declared = {(endpoint.method, fmt.path) for fmt in FORMATS.values() for endpoint in server_side(fmt).endpoints}
    assert served == declared
    assert all(fmt.path == f"/api/v1/computer/{name}" for name, fmt in FORMATS.items())


@pytest.mark.parametrize("name", NAMES)
def test_the_openapi_document_describes_each_endpoint_as_declared(name: str) -> None:
    fmt = FORMATS[name]
    for endpoint in server_side(fmt).endpoints:
        operation = DOCUMENT["paths"][fmt.path][endpoint.method.lower()]
        params = {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}
        assert params == {f.name for f in endpoint.query.fields}
        assert operation["responses"]["200"]["content"]["application/json"]["schema"] == endpoint.result.schema()
        if endpoint.body is not None:
            body = operation["requestBody"]["content"]["application/json"]["schema"]
            assert _resolve(body) == _resolve(endpoint.body.schema())
    # The kit scales coordinates with the display query and runs actions without a settle.
    post = next(e for e in server_side(fmt).endpoints if e.method == "POST")
    assert {"display_width_px", "display_height_px", "settle"} <= {f.name for f in post.query.fields}


def test_step_takes_one_act_field_per_format() -> None:
    assert ACTS[:len(FORMATS)] == tuple(FORMATS)
    fields = {field.name: field for field in STEP_BODY.fields}
    step = _resolve(DOCUMENT["paths"]["/api/v1/step"]["post"]["requestBody"]["content"]["application/json"]["schema"])
    for name, fmt in FORMATS.items():
        assert fields[name].spec is fmt.action
        documented = step["properties"][name]
        assert documented["description"] == fmt.step_description
        assert fmt.action.schema() in [_resolve(option) for option in documented["anyOf"]]


@pytest.mark.parametrize("name", NAMES)
def test_the_kit_knows_every_action_of_the_format(name: str) -> None:
    fmt = FORMATS[name]
    assert set(fmt.kit.kinds) == set(fmt.action.variants)
    assert set(fmt.kit.kinds.values()) <= KIT_KINDS
    assert fmt.looks <= set(fmt.action.variants)
    for action in fmt.action.variants:
        assert canonical_kind(name, {fmt.action.tag: action}) == fmt.kit.kinds[action]


@pytest.mark.parametrize("name", NAMES)
def test_the_kit_tells_the_format_apart_and_sends_what_the_endpoint_takes(name: str) -> None:
    fmt = FORMATS[name]
    assert detect_format(fmt.kit.example) == name
    assert [other for other, o in FORMATS.items() if o.kit.recognises(fmt.kit.example)] == [name]
    planned = plan_action(fmt.kit.example, Scaling((100, 100), (50, 50)))
    assert planned.act == name and planned.step_act() == {
        name: planned.body, "display_width_px": 50, "display_height_px": 50}
    fmt.action.validate(planned.body, name)          # what /step takes
    post = next(e for e in server_side(fmt).endpoints if e.method == "POST")
    assert post.body is not None
    post.body.validate(fmt.kit.body(planned.body), "")   # what the endpoint takes


def test_the_kit_the_environment_and_the_records_offer_every_format() -> None:
    assert actions.FORMATS == (*FORMATS, actions.OWN)
    assert schema("step")["properties"]["action"]["properties"]["format"]["enum"] == list(actions.FORMATS)
    with pytest.raises(ValueError) as refused:
        DesktopEnv("http://127.0.0.1:9", action_format="no_such_format")
    assert all(name in str(refused.value) for name in actions.FORMATS)


@pytest.fixture
def desktop(desktopd: DesktopdProcess) -> Iterator[Desktop]:
    with Desktop(desktopd.url) as client:
        yield client


@pytest.mark.parametrize("name", NAMES)
def test_each_format_runs_through_the_kit_on_a_real_desktopd(desktop: Desktop, name: str) -> None:
    fmt = FORMATS[name]
    screen = desktop.health()["screen"]
    scaling = Scaling((screen["width"], screen["height"]), (screen["width"] // 2, screen["height"] // 2))
    desktop.move(100, 100)
    done = run_action(desktop, fmt.kit.example, scaling)
    assert done.format == name and done.point == (20, 20)   # display (10, 10) at half size
    assert desktop.pointer_position() == {"x": 20, "y": 20}
    desktop.move(100, 100)
    answer = desktop.step(plan_action(fmt.kit.example, scaling).step_act(), settle=0)
    assert answer["act"] == name and (answer["executed"]["x"], answer["executed"]["y"]) == (20, 20)
