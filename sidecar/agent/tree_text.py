"""The agent tree as bounded text (``- role "name" [ref=e1] [checked]: value``) or the same tree
as JSON, with the options of GET /snapshot: a character budget with a marker saying how to see
more, interactive-only, depth, one subtree by ref, and a diff against the client's last one."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field

from .layout_node import LayoutNode, SnapshotNode
from .tree import STATE_FLAGS, AgentNode, walk

_json_string = json.encoder.encode_basestring

DEFAULT_MAX_CHARS = 40_000
MAX_MAX_CHARS = 2_000_000
MAX_NAME_CHARS = 300
MARKER_RESERVE = 280      # room kept for the truncation marker, so the whole stays in budget


@dataclass(frozen=True)
class RenderOptions:
    max_chars: int = DEFAULT_MAX_CHARS
    interactive: bool = False
    depth: int | None = None
    diff: bool = False


@dataclass
class Rendered:
    text: str
    tree: list[SnapshotNode]
    nodes: int                 # nodes shown
    refs: int                  # refs shown
    total_nodes: int           # nodes in the (scoped, filtered) tree
    truncated: bool
    unchanged: int             # subtrees shown as [unchanged]
    hashes: dict[str, str] = field(default_factory=dict)   # ref -> subtree digest, for next diff


def _quoted(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > MAX_NAME_CHARS:
        text = text[:MAX_NAME_CHARS] + "…"
    return _json_string(text)          # json.dumps(text, ensure_ascii=False), without its overhead


def _attributes(node: AgentNode) -> list[str]:
    states = node.node.get("states") or {}
    values = node.node.get("propertyValues") or {}
    out = []
    if node.ref:
        out.append(f"ref={node.ref}")
    if "level" in values and node.role == "heading":
        out.append(f"level={values['level']}")
    if not states.keys().isdisjoint(STATE_FLAGS):     # most nodes have none of them
        for flag in STATE_FLAGS:
            state = states.get(flag)
            if state is True:
                out.append(flag)
            elif isinstance(state, str) and state not in ("false", ""):
                out.append(f"{flag}={state}")
    if node.role == "link" and values.get("url"):
        out.append(f"url={values['url']}")
    return out


def line_of(node: AgentNode) -> str:
    """One node's line without indentation."""
    if node.role == "text":
        return f"- text: {_quoted(node.name)}"
    parts = [f"- {node.role}"]
    if node.name:
        parts.append(_quoted(node.name))
    parts.extend(f"[{a}]" for a in _attributes(node))
    line = " ".join(parts)
    if node.value not in (None, "") and node.role != "text":
        line += f": {_quoted(str(node.value))}"
    return line


class LineCache:
    """One tab's lines of its last snapshot, by /layout node: a node unchanged since keeps the
    very same node dict (sidecar.layout.output.encoding.DecodedNodes) and, its ref being the same, its
    line; so a snapshot after a change formats only the nodes that changed. Holds only the
    last snapshot's."""

    def __init__(self) -> None:
        self._last: dict[int, tuple[LayoutNode, str | None, str]] = {}
        self._now: dict[int, tuple[LayoutNode, str | None, str]] = {}

    def line(self, node: AgentNode) -> str:
        key = id(node.node)
        known = self._now.get(key) or self._last.get(key)
        # The dict itself kept alongside: its id cannot name another dict meanwhile.
        if known is not None and known[0] is node.node and known[1] == node.ref:
            line = known[2]
        else:
            line = line_of(node)
        self._now[key] = (node.node, node.ref, line)
        return line

    def done(self) -> None:
        """The snapshot is rendered: its lines are those the next one starts from."""
        self._last, self._now = self._now, {}


def interactive_only(nodes: list[AgentNode]) -> list[AgentNode]:
    """Actionable nodes and their named (or iframe) ancestors; everything else dissolved."""
    def keep(node: AgentNode) -> list[AgentNode]:
        kept_children = [kept for child in node.children for kept in keep(child)]
        if node.actionable and node.ref:
            return [AgentNode(node.role, node.name, node.node, node.value, node.ref, node.key,
                              True, kept_children)]
        if kept_children and (node.name and node.role != "text" or node.role == "iframe"):
            return [AgentNode(node.role, node.name, node.node, node.value, node.ref, node.key,
                              node.actionable, kept_children)]
        return kept_children
    return [kept for node in nodes for kept in keep(node)]


def digests(nodes: list[AgentNode], line: Callable[[AgentNode], str] = line_of) -> dict[int, str]:
    """id(node) -> a digest of the node's line and everything below it (bottom-up)."""
    out: dict[int, str] = {}
    for node in reversed(walk(nodes)):
        h = hashlib.blake2b(line(node).encode(), digest_size=12)
        for child in node.children:
            h.update(out[id(child)].encode())
        out[id(node)] = h.hexdigest()
    return out


def _json_node(node: AgentNode) -> SnapshotNode:
    item: SnapshotNode = {"role": node.role, "name": node.name}
    if node.ref:
        item["ref"] = node.ref
    if node.value not in (None, ""):
        item["value"] = node.value
    states: dict[str, bool | str] = {k: v for k, v in (node.node.get("states") or {}).items()
                                     if k in STATE_FLAGS and v}
    if states:
        item["states"] = states
    values = node.node.get("propertyValues") or {}
    if node.role == "heading" and "level" in values:
        item["level"] = values["level"]
    if node.role == "link" and values.get("url"):
        item["url"] = values["url"]
    if "screen" in node.node:
        item["screen"] = node.node["screen"]
    item["visible"] = node.node.get("visible")
    return item


def render(nodes: list[AgentNode], options: RenderOptions,
           previous: dict[str, str] | None, lines: LineCache | None = None) -> Rendered:
    """``lines``: the tab's lines of its last snapshot (kept up to date)."""
    cache = lines if lines is not None else LineCache()
    if options.interactive:
        nodes = interactive_only(nodes)
    digest = digests(nodes, cache.line)
    everything = walk(nodes)
    hashes = {n.ref: digest[id(n)] for n in everything if n.ref}
    out: list[str] = []
    tree: list[SnapshotNode] = []
    chars = shown = refs = unchanged = 0
    truncated = False
    stack: list[tuple[AgentNode, int, list[SnapshotNode]]] = [(n, 0, tree) for n in reversed(nodes)]
    while stack:
        node, depth, into = stack.pop()
        line = "  " * depth + cache.line(node)
        same = (options.diff and previous is not None and node.ref is not None and node.children
                and previous.get(node.ref) == digest[id(node)])
        cut = options.depth is not None and depth + 1 >= options.depth and node.children
        if same:
            line += " [unchanged]"
        elif cut:
            line += f" [+{len(walk(node.children))} below]"
        if chars + len(line) + 1 > options.max_chars - MARKER_RESERVE:
            truncated = True
            stack.append((node, depth, into))
            break
        out.append(line)
        chars += len(line) + 1
        shown += 1
        refs += node.ref is not None
        item = _json_node(node)
        into.append(item)
        if same:
            unchanged += 1
            item["unchanged"] = True
            continue
        if cut:
            item["below"] = len(walk(node.children))
            continue
        if node.children:
            children: list[SnapshotNode] = []
            item["children"] = children
            stack.extend((child, depth + 1, children) for child in reversed(node.children))
    if truncated:
        rest = walk([entry[0] for entry in stack])        # one walk: only counted
        more_refs = sum(1 for n in rest if n.ref)
        out.append(f"- [truncated at max_chars={options.max_chars}: {len(rest)} more nodes and "
                     f"{more_refs} refs not shown. Ask again with a larger max_chars (up to "
                     f"{MAX_MAX_CHARS}), interactive=true, depth=N, or ref=<a ref above> for one "
                     f"part]")
    cache.done()
    return Rendered(text="\n".join(out), tree=tree, nodes=shown, refs=refs,
                    total_nodes=len(everything), truncated=truncated, unchanged=unchanged,
                    hashes=hashes)
