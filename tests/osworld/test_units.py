"""Units of the OSWorld adapter: its opt-in rule, OSWorld's argv semantics, the XML of the
accessibility tree, and the OpenAPI document against the route table."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import pytest
from aiohttp import ClientSession, web
from aiohttp.test_utils import TestServer, make_mocked_request

from desktopd.osworld.atspi_xml import NAMESPACES, osworld_xml
from desktopd.osworld.commands import osworld_argv
from desktopd.osworld.routes import FORM_BODY_ROUTES, ROUTES, osworld_openapi, setup_osworld_routes
from desktopd.settings import SettingsError, parse_settings


def test_osworld_api_is_off_by_default_and_opt_in() -> None:
    assert parse_settings([], {}).osworld is False
    on = parse_settings([], {"DESKTOPD_OSWORLD": "1", "DESKTOPD_OSWORLD_PORT": "5055"})
    assert (on.osworld, on.osworld_port) == (True, 5055)


def test_tokenless_osworld_api_needs_loopback_or_a_declared_trusted_network() -> None:
    exposed = {"DESKTOPD_OSWORLD": "1", "DESKTOPD_HOST": "0.0.0.0", "DESKTOPD_TOKEN": "t"}
    with pytest.raises(SettingsError, match="DESKTOPD_OSWORLD=1 on non-loopback"):
        parse_settings([], exposed)   # desktopd's token does not cover OSWorld's tokenless API
    assert parse_settings([], {**exposed, "DESKTOPD_INSECURE": "1"}).osworld
    assert parse_settings([], {"DESKTOPD_OSWORLD": "1", "DESKTOPD_HOST": "127.0.0.1"}).osworld
    with pytest.raises(SettingsError, match="DESKTOPD_OSWORLD_PORT"):
        parse_settings([], {"DESKTOPD_OSWORLD": "1", "DESKTOPD_OSWORLD_PORT": "0"})


def test_argv_as_osworlds_server_runs_it() -> None:
    home = os.path.expanduser("~")
    assert osworld_argv(["ls", "~/Desktop", "a~/b"], False) == ["ls", f"{home}/Desktop", "a~/b"]
    assert osworld_argv(["echo $0 $1", "zero", "one"], True) == ["/bin/sh", "-c", "echo $0 $1", "zero", "one"]
    assert osworld_argv("python -c 'print(1)'", False) == ["python", "-c", "print(1)"]
    assert osworld_argv("echo hi | wc", True) == ["/bin/sh", "-c", "echo hi | wc"]


def node(role: str, name: str = "", **extra: object) -> dict:
    return {"role": role, "name": name, "states": [], "children": [], "bounds": None, "value": None,
            "description": "", "actions": None, **extra}


def test_xml_carries_osworlds_namespaces_and_escapes_names() -> None:
    button = node("push button", 'Save "as" <x> & y', states=["enabled", "showing", "visible"],
                  bounds={"x": 10.0, "y": 20.0, "width": 30.0, "height": 40.0}, actions=["click", "do it"])
    entry = node("entry", "URL", value="a < b", states=["focused"])
    slider = node("slider", "Volume", value="7")
    app = node("application", "chromium", children=[node("frame", "win", children=[button, entry, slider])])
    root = ET.fromstring(osworld_xml([app]))
    assert root.tag == "desktop-frame" and root.get("name") == "main"
    found = root.find("application/frame/push-button")
    assert found is not None and found.get("name") == 'Save "as" <x> & y'
    assert found.get(f"{{{NAMESPACES['st']}}}showing") == "true"
    assert found.get(f"{{{NAMESPACES['cp']}}}screencoord") == "(10, 20)"
    assert found.get(f"{{{NAMESPACES['cp']}}}size") == "(30, 40)"
    assert found.get(f"{{{NAMESPACES['act']}}}do-it_desc") == ""
    assert root.find("application/frame/entry").text == "a < b"          # text roles: element text
    assert root.find("application/frame/slider").get(f"{{{NAMESPACES['val']}}}value") == "7"


def test_xml_names_stay_valid_for_any_role() -> None:
    root = ET.fromstring(osworld_xml([node("application", "x", children=[node("3d thing"), node("")])]))
    assert [child.tag for child in root.find("application")] == ["unknown-3d-thing", "unknown"]


def test_openapi_documents_every_route_and_the_forms_they_take() -> None:
    doc = osworld_openapi()
    for route in ROUTES:
        op = doc["paths"][route.path][route.method.lower()]
        assert "401" not in op["responses"], route.path   # no token on this API
        if ("POST", route.path) in FORM_BODY_ROUTES:
            media = set(op["requestBody"]["content"])
            assert media & {"multipart/form-data"}, route.path
    assert set(doc["paths"]["/file"]["post"]["requestBody"]["content"]) == {
        "application/json", "application/x-www-form-urlencoded", "multipart/form-data"}
    assert set(doc["paths"]["/setup/upload"]["post"]["requestBody"]["content"]) == {"multipart/form-data"}
    assert doc["security"] == []


def test_web_nodes_merged_from_the_sidecar_carry_their_values_as_text() -> None:
    """The sidecar's /layout gives CDP AXValue objects: they are text in the XML, not a crash."""
    web = node("combobox", "Search engine", value={"type": "string", "value": "DuckDuckGo"}, visible=True,
               bounds={"x": 5.0, "y": 6.0, "width": 7.0, "height": 8.0},
               description={"type": "computedString", "value": "Used by the address bar"})
    box = node("textbox", "Query", value={"type": "string", "value": "x < y"})
    root = ET.fromstring(osworld_xml([node("application", "Chromium", children=[web, box])]))
    assert root.find("application/combobox").get(f"{{{NAMESPACES['val']}}}value") == "DuckDuckGo"
    assert root.find("application/combobox").get(f"{{{NAMESPACES['attr']}}}description") == "Used by the address bar"
    assert root.find("application/textbox").text == "x < y"
    shown = root.find("application/combobox")
    assert shown.get(f"{{{NAMESPACES['st']}}}showing") == "true"
    assert shown.get(f"{{{NAMESPACES['cp']}}}screencoord") == "(5, 6)"


# The image's aiohttp (Debian's 3.8) has no AppKey: the app's keys are strings.
@pytest.mark.filterwarnings("ignore::aiohttp.web_exceptions.NotAppKeyWarning")
async def test_every_get_route_answers_head_as_flask_does() -> None:
    """OSWorld's remote provider waits for the VM with HEAD /screenshot; Flask answers HEAD on every
    GET route. The routes needing no display answer here; the others must at least be routed."""
    app = web.Application()
    setup_osworld_routes(app)
    server = TestServer(app, host="127.0.0.1")
    await server.start_server()
    try:
        async with ClientSession() as session:
            for path in ("/platform", "/openapi.json"):
                async with session.head(server.make_url(path)) as head, \
                        session.get(server.make_url(path)) as get:
                    assert head.status == 200, path
                    assert head.headers["Content-Type"] == get.headers["Content-Type"]
                    assert await head.read() == b""
    finally:
        await server.close()
    for route in ROUTES:
        if route.method == "GET":
            match = await app.router.resolve(make_mocked_request("HEAD", route.path, app=app))
            assert match.http_exception is None, route.path
