"""The kinds of POST /act, one module each, each declaring ``KIND`` (an act_kind.ActKind). A
module added here is a new kind: validation, dispatch, the OpenAPI document, the MCP tool and the
docs table pick it up (tests/sidecar_agent/test_act_kinds.py checks they agree)."""

from __future__ import annotations

from httpapi.declared import declarations

from ..act_kind import ActKind


def _declared() -> dict[str, ActKind]:
    kinds = declarations(__name__, __path__, "KIND", ActKind)
    return {kind.name: kind for kind in sorted(kinds, key=lambda kind: kind.name)}


KINDS = _declared()


def _extra_fields(kind: ActKind) -> list[str]:
    return [field.name for field in kind.fields if field.name != "ref"]


def mcp_summary() -> str:
    """The kinds for an agent choosing a tool: each with the fields it takes besides ref."""
    return ", ".join(f"{name} ({', '.join(_extra_fields(kind))})" if _extra_fields(kind) else name
                     for name, kind in KINDS.items())


def docs_table() -> str:
    """docs/agent.md's table of the kinds (Markdown)."""
    rows = ["| kind | fields |", "| --- | --- |"]
    rows += [f"| `{name}` | {kind.doc} |" for name, kind in KINDS.items()]
    return "\n".join(rows) + "\n"
