#!/usr/bin/env python3
"""Generate sidecar/cdp/protocol/ from the Chrome DevTools Protocol's own JSON description (the
``devtools-protocol`` npm package): a TypedDict for the parameters and the result of every
command the sidecar sends, for every event it reads, and for the object types they reference.
Only methods named in the sidecar's code (string literals ``"Domain.method"``) are generated.

Usage: python3 tools/gen_cdp_types.py [--protocol DIR]   (default: npm pack into a temp dir)
The output is checked in; tests/sidecar_service/test_cdp_protocol.py says when it is stale.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "sidecar" / "cdp" / "protocol"
PACKAGE_VERSION = "0.0.1734725"     # devtools-protocol on npm; bump and regenerate to follow Chromium
METHOD = re.compile(r'"([A-Z][A-Za-z]+)\.([a-z][A-Za-z]+)"')


def used_methods() -> set[str]:
    """``Domain.method`` literals in the sidecar's code (the generated package left out), and the
    methods generated before (a call site that moved to the typed function has no literal)."""
    found: set[str] = set()
    if (OUT / "__init__.py").exists():
        found.update(METHOD.findall(f'"{m}"')[0][0] + "." + m.split(".")[1]
                     for m in re.findall(r'^    "([A-Za-z]+\.[A-Za-z]+)",$', (OUT / "__init__.py").read_text(), re.M))
    for path in (ROOT / "sidecar").rglob("*.py"):
        if OUT in path.parents:
            continue
        found.update(f"{d}.{m}" for d, m in METHOD.findall(path.read_text()))
    return found


def load_protocol(directory: Path) -> dict[str, dict]:
    domains: dict[str, dict] = {}
    for name in ("browser_protocol.json", "js_protocol.json"):
        for domain in json.loads((directory / "json" / name).read_text())["domains"]:
            domains[domain["domain"]] = domain
    return domains


class Generator:
    def __init__(self, domains: dict[str, dict]) -> None:
        self.domains = domains
        self.types: dict[str, str] = {}          # class name -> its source
        self.pending: list[tuple[str, dict]] = []

    def type_def(self, domain: str, ref: str) -> tuple[str, dict]:
        where, _, name = ref.rpartition(".")
        where = where or domain
        for item in self.domains[where].get("types", []):
            if item["id"] == name:
                return where, item
        raise KeyError(ref)

    def annotation(self, domain: str, spec: dict) -> str:
        if "$ref" in spec:
            where, item = self.type_def(domain, spec["$ref"])
            if item["type"] == "object" and item.get("properties"):
                name = where + item["id"]
                if name not in self.types:
                    self.types[name] = ""            # reserved: a type may refer to itself
                    self.pending.append((where, item))
                return name
            return self.annotation(where, item)
        kind = spec.get("type")
        if "enum" in spec:
            return "Literal[" + ", ".join(repr(v) for v in spec["enum"]) + "]"
        if kind == "string":
            return "str"
        if kind == "integer":
            return "int"
        if kind == "number":
            return "float"
        if kind == "boolean":
            return "bool"
        if kind == "array":
            return f"list[{self.annotation(domain, spec['items'])}]"
        # Free-form: an "object" without properties (e.g. Network.Headers) is a JSON object; "any"
        # (a RemoteObject's or an AXValue's value) stays Any: the layout reads AX values unnarrowed.
        return "JSONObject" if kind == "object" else "Any"

    def typed_dict(self, name: str, domain: str, fields: list[dict], doc: str) -> str:
        members = []
        for field in fields:
            annotation = self.annotation(domain, field)
            members.append((field["name"], annotation if field.get("optional") else f"Required[{annotation}]"))
        if any(keyword.iskeyword(key) or not key.isidentifier() for key, _ in members):
            # A key Python cannot spell as a class member: the functional form.
            body = ", ".join(f"{key!r}: {value!r}" for key, value in members)
            return f"# {doc}\n{name} = TypedDict({name!r}, {{{body}}}, total=False)"
        lines = [f"class {name}(TypedDict, total=False):", f'    """{doc}"""']
        lines += [f"    {key}: {value}" for key, value in members] or ["    pass"]
        return "\n".join(lines)

    def drain(self) -> None:
        while self.pending:
            where, item = self.pending.pop()
            name = where + item["id"]
            self.types[name] = self.typed_dict(name, where, item["properties"], f"{where}.{item['id']}")

    def methods(self, wanted: set[str]) -> tuple[list[str], list[str], list[str]]:
        commands, events, missing = [], [], []
        self.overloads: list[tuple[str, str, bool]] = []   # (method, its type prefix, params required)
        for method in sorted(wanted):
            domain, _, name = method.partition(".")
            spec = self.domains.get(domain, {})
            command = next((c for c in spec.get("commands", []) if c["name"] == name), None)
            event = next((e for e in spec.get("events", []) if e["name"] == name), None)
            title = domain + name[0].upper() + name[1:]
            if command is not None:
                commands.append(self.typed_dict(f"{title}Params", domain, command.get("parameters", []),
                                                f"{method} parameters"))
                commands.append(self.typed_dict(f"{title}Result", domain, command.get("returns", []),
                                                f"{method} result"))
                required = any(not p.get("optional") for p in command.get("parameters", []))
                self.overloads.append((method, title, required))
            elif event is not None:
                events.append(self.typed_dict(f"{title}Event", domain, event.get("parameters", []),
                                              f"{method} event parameters"))
            else:
                missing.append(method)
        self.drain()
        return commands, events, missing


HEADER = '''"""{what} Generated by tools/gen_cdp_types.py from devtools-protocol {version}: do not edit."""

from __future__ import annotations
'''


def used_names(text: str, names: tuple[str, ...]) -> list[str]:
    return [name for name in names if re.search(rf"\b{name}\b", text)]


def write(name: str, what: str, blocks: list[str], imports: str = "") -> None:
    body = "\n\n\n".join(blocks)
    typing_names = used_names(body, ("Any", "Literal", "Required", "TypedDict"))
    json_names = used_names(body, ("JSONObject", "JSONValue"))
    header = HEADER.format(what=what, version=PACKAGE_VERSION)
    header += f"\nfrom typing import {', '.join(typing_names)}\n" if typing_names else ""
    header += f"\nfrom httpapi.json_types import {', '.join(json_names)}\n" if json_names else ""
    (OUT / name).write_text(header + imports + "\n\n" + body + "\n")


SEND_DOC = '''"""send() typed per command: an overload for each CDP command the sidecar sends, from its method
name (a Literal) to its parameters' and its result's TypedDicts (cdp_commands.py), as Playwright
types ``send<T extends keyof Protocol.CommandParameters>``. A call whose method is not a literal,
or whose parameters do not fit, does not type-check: ``send_raw`` is the untyped way, for what
passes CDP through (the proxy). Generated by tools/gen_cdp_types.py from devtools-protocol {version}:
do not edit."""
'''


def send_class(name: str, doc: str, overloads: list[tuple[str, str, bool]], session: bool) -> str:
    """A Protocol whose send() has one overload per command and is implemented on send_raw: a
    class that implements send_raw inherits it; a Protocol of ours extends it to type its seams."""
    target = "session_id: str | None = None, " if session else ""
    passed = "session_id=session_id, " if session else ""
    lines = [f"class {name}(Protocol):", f'    """{doc}"""', "",
             f"    async def send_raw(self, method: str, params: Mapping[str, object] | None = None, *, {target}"
             "timeout: float | None = None) -> JSONObject:",
             '        """Sends ``method`` as it is, untyped; answers its result object."""',
             "        ...", ""]
    for method, title, required in overloads:
        params = f"params: {title}Params" if required else f"params: {title}Params | None = None"
        lines += ["    @overload",
                  f'    async def send(self, method: Literal["{method}"], {params}, *, {target}'
                  f"timeout: float | None = None) -> {title}Result: ..."]
    lines += ["",
              f"    async def send(self, method: str, params: Mapping[str, object] | None = None, *, {target}"
              "timeout: float | None = None) -> object:",
              f"        return await self.send_raw(method, params, {passed}timeout=timeout)"]
    return "\n".join(lines)


def send_module(overloads: list[tuple[str, str, bool]]) -> str:
    names = sorted({f"{title}{part}" for _method, title, _required in overloads for part in ("Params", "Result")})
    imports = ("from __future__ import annotations\n\nfrom collections.abc import Mapping\n"
               "from typing import Literal, Protocol, overload\n\n"
               "from httpapi.json_types import JSONObject\n\n"
               "from .cdp_commands import (  # noqa: F401\n" + "".join(f"    {n},\n" for n in names) + ")\n")
    browser = send_class("BrowserCommands", "The browser's connection: a command goes to the browser, or to the "
                         "session ``session_id`` names.", overloads, session=True)
    session = send_class("SessionCommands", "One target's session (a tab, an iframe): commands go to it.",
                         overloads, session=False)
    return SEND_DOC.format(version=PACKAGE_VERSION) + "\n" + imports + "\n\n" + browser + "\n\n\n" + session + "\n"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--protocol", type=Path, help="an unpacked devtools-protocol package")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        directory = args.protocol
        if directory is None:
            subprocess.run(["npm", "pack", f"devtools-protocol@{PACKAGE_VERSION}", "--silent"], cwd=temp,
                           check=True, stdout=subprocess.DEVNULL)
            subprocess.run(["tar", "xzf", f"devtools-protocol-{PACKAGE_VERSION}.tgz"], cwd=temp, check=True)
            directory = Path(temp) / "package"
        generator = Generator(load_protocol(directory))
        wanted = used_methods()
        commands, events, missing = generator.methods(wanted)
    if missing:
        sys.exit(f"not in the protocol: {', '.join(missing)}")
    OUT.mkdir(exist_ok=True)
    types = [generator.types[name] for name in sorted(generator.types)]
    names = ", ".join(sorted(generator.types))
    uses = f"\nfrom .cdp_types import {names}  # noqa: F401\n" if names else ""
    write("cdp_types.py", "The protocol's object types the sidecar's methods refer to.", types)
    write("cdp_commands.py", "Parameters and results of the CDP commands the sidecar sends.", commands,
          uses.replace("from .types", "from .types") if commands else "")
    write("cdp_events.py", "Parameters of the CDP events the sidecar reads.", events, uses if events else "")
    (OUT / "cdp_send.py").write_text(send_module(generator.overloads))
    methods = sorted(wanted)
    (OUT / "__init__.py").write_text(
        '"""Typed CDP: TypedDicts of the commands the sidecar sends and the events it reads\n'
        '(cdp_commands.py, cdp_events.py) and the object types they use (cdp_types.py), send() typed per\n'
        'command (cdp_send.py), generated by\n'
        f'tools/gen_cdp_types.py from devtools-protocol {PACKAGE_VERSION}."""\n\n'
        "METHODS = frozenset({\n" + "".join(f'    "{m}",\n' for m in methods) + "})\n")
    print(f"{len(methods)} methods, {len(types)} object types -> {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
