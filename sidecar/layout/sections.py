"""A full accessibility read in sections, so that Python works while Chromium still serialises.

``Accessibility.getFullAXTree`` answers with one message: Chromium builds and sends megabytes,
then the sidecar parses them and turns them into records, one after the other. Read instead as the accessibility subtrees of a few dozen
disjoint elements that cover the page (``queryAXTree``, ignored nodes included) plus the
ancestors of each group of sibling sections (``getAXNodeAndAncestors``, the nodes between them),
all pipelined: Chromium answers section after section, and each is parsed and turned into
records as it arrives.

The page picks the sections (``SECTIONS``): starting from <body>, the largest section is split
into its element children while it has nothing of its own the children would not cover (text,
a pseudo-element's content, a list marker, a shadow root, form-control internals). Pages where
the accessibility tree does not follow the DOM that way (aria-owns) or that hold frames are read
whole. The result must account for every child id of every node and share one root, else it is
not used and the tree is read whole: the same check patches pass (patch.py), and the tests
compare both reads node for node.

Each section's subtree is put in pre-order as it arrives (a block); at the end only the few
nodes above the sections are walked, each block taken whole where its top hangs. Ordering all
nodes again after the last section was about half of the Python work left after Chromium's last
answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sidecar.cdp.connection import CDPError

from . import axtree
from .axtree import Record
from .seams import Session
from .patch import ANCESTORS, QUERY, Reads, as_in_full_tree, in_tree, settle

MAX_SECTIONS = 48           # enough to overlap the work; each read has a small fixed cost
MIN_SECTIONS = 4            # fewer: one getFullAXTree is as good

_SECTIONS = r"""
(() => {
  const doc = document, body = doc.body, MAX = __MAX__;
  if (!body || doc.querySelector("[aria-owns],iframe,frame,object,embed,fencedframe,portal")) return null;
  const size = (el) => el.getElementsByTagName("*").length + 1;
  const KEEP = new Set(["select", "datalist", "optgroup", "details", "summary", "video", "audio",
                        "canvas", "svg", "math", "textarea", "button", "label", "slot", "table",
                        "thead", "tbody", "tfoot", "tr", "dl", "fieldset", "legend", "picture"]);
  const SILENT = new Set(["script", "style", "template", "noscript", "link", "meta"]);
  const own = (pseudo, el) => {
    const content = getComputedStyle(el, pseudo).content;
    return content && content !== "none" && content !== "normal";
  };
  // Whether el's accessibility children are exactly what its element children's subtrees hold.
  const splittable = (el) => {
    if (el.shadowRoot || KEEP.has(el.localName) || el.children.length === 0) return false;
    for (const n of el.childNodes) if (n.nodeType === 3 && n.data.trim()) return false;
    if (getComputedStyle(el).display === "list-item") return false;
    return !own("::before", el) && !own("::after", el);
  };
  const target = size(body) / MAX;
  const pieces = [{ el: body, n: size(body), whole: false }];
  for (let splits = 0; pieces.length < MAX && splits < MAX; splits++) {
    let best = null;
    for (const p of pieces) if (!p.whole && p.n > target && (!best || p.n > best.n)) best = p;
    if (!best) break;
    if (!splittable(best.el)) { best.whole = true; continue; }
    // Unrendered children have no accessibility nodes to read (if one does, e.g. a hidden
    // label, the result misses it and the page is read whole).
    const kids = [...best.el.children]
      .filter((c) => !SILENT.has(c.localName) && getComputedStyle(c).display !== "none")
      .map((c) => ({ el: c, n: size(c), whole: false }));
    pieces.splice(pieces.indexOf(best), 1, ...kids);
  }
  if (pieces.length < __MIN__) return null;
  // Grouped by parent, groups separated by null: a group's sections share their ancestors.
  // Largest first: the sections Python is still working on when Chromium is done are small.
  pieces.sort((a, b) => b.n - a.n);
  const groups = new Map();
  for (const p of pieces) {
    const group = groups.get(p.el.parentNode);
    if (group) group.push(p.el); else groups.set(p.el.parentNode, [p.el]);
  }
  return [...groups.values()].flatMap((group, i) => (i ? [null, ...group] : group));
})()
""".replace("__MAX__", str(MAX_SECTIONS)).replace("__MIN__", str(MIN_SECTIONS))

# Deep serialization gives each section element's backendNodeId in the same reply.
# (patch.parse_groups reads the reply.)
SECTIONS_PARAMS: dict[str, Any] = {"expression": _SECTIONS, "silent": True,
                                   "serializationOptions": {"serialization": "deep", "maxDepth": 1}}


@dataclass
class Section:
    """One section's reads in flight: its subtree, and the ancestors of its group's first
    section (its own ancestors when it is that first one)."""

    root: int                       # backendNodeId
    subtree: asyncio.Future
    chain: asyncio.Future
    first: bool


@dataclass
class SectionReads(Reads):
    """A read in sections: ``futures`` holds every read once, in the order sent (a group's
    ancestors, then its subtrees), ``sections`` the same reads by section."""

    sections: list[Section] = field(default_factory=list)


def start_reads(session: Session, groups: list[list[int]]) -> SectionReads:
    """Every section's subtree, and one ancestor read per group of sections under the same
    parent element, all sent now (before what the caller sends next). Each ancestor read costs
    Chromium about as much as a small subtree: one per section made the read measurably slower."""
    reads = SectionReads(futures=[])
    for group in groups:
        chain = asyncio.ensure_future(session.send(ANCESTORS, {"backendNodeId": group[0]}))
        reads.futures.append(chain)
        for index, root in enumerate(group):
            subtree = asyncio.ensure_future(session.send(QUERY, {"backendNodeId": root}))
            reads.futures.append(subtree)
            reads.sections.append(Section(root, subtree, chain, first=index == 0))
    return reads


async def sectioned_records(session: Session, reads: SectionReads, frame_id: str,
                            on_section: Callable[[list[Record]], None]) -> list[Record] | None:
    """The whole tree from ``reads`` (start_reads), in pre-order, or None when the sections do
    not make up one consistent tree. ``on_section`` gets each section's records as it arrives,
    to work on them while Chromium makes the next one."""
    records: dict[str, Record] = {}
    seen: set[str] = set()              # every node read, those records leave out too
    root: str | None = None
    # Put in order as they come: each section's subtree (a block: one run of the answer), and
    # the nodes above the sections, which link the blocks.
    blocks: dict[str, list[Record]] = {}
    above: set[str] = set()
    in_blocks = True
    try:
        for section in reads.sections:
            # In order, as Chromium answers: each section becomes records while the next is made.
            subtree_reply, chain_reply = await section.subtree, await section.chain
            settled = None if section.first else beside_first(subtree_reply, chain_reply, section.root)
            if settled is None:
                if not section.first:   # its own ancestors after all, asked after the caller's check
                    reads.late = True
                    chain_reply = await session.send(ANCESTORS, {"backendNodeId": section.root})
                settled = await settle(session, subtree_reply, chain_reply, reads)
            if settled is None:
                if len(chain_reply.get("nodes") or ()) == 1:
                    continue                # no accessibility node (e.g. display:none): nothing
                return None
            subtree, chain = settled
            top = str(chain[-1].get("nodeId"))
            if root is None:
                root = top
            elif top != root:
                return None                 # another document meanwhile
            new_subtree, new_above = _unseen(subtree, seen), _unseen(chain[1:], seen)
            subtree_records = axtree.ax_records(as_in_full_tree(new_subtree), frame_id,
                                                target_id=session.target_id)
            above_records = axtree.ax_records(as_in_full_tree(new_above), frame_id,
                                              target_id=session.target_id)
            block = axtree.subtree_preorder(subtree_records) \
                if new_subtree and new_subtree[0] is subtree[0] else None
            if block is None:
                in_blocks = False           # ordered whole at the end instead
            else:
                blocks[block[0]["nodeId"]] = block
            section_records = subtree_records + above_records
            for record in section_records:
                records[record["nodeId"]] = record
            above.update(record["nodeId"] for record in above_records)
            on_section(section_records)
    except CDPError:
        return None
    finally:
        for future in reads.futures:    # the rest, if we stop early: answered, never read
            future.add_done_callback(_retrieved)
    if root is None:
        return None
    ordered = _in_blocks(root, records, blocks, above) if in_blocks else None
    if ordered is not None:
        return ordered
    if any(child not in seen for r in records.values() for child in r["childIds"]):
        return None                         # something no section covered (e.g. a pseudo-element)
    ordered = axtree.preorder(list(records.values()))
    return ordered if ordered and ordered[0]["nodeId"] == root and len(ordered) == len(records) else None


def _unseen(nodes: list[dict], seen: set[str]) -> list[dict]:
    """The nodes not read before (an ancestor shared by sections comes once), now seen."""
    new = []
    for node in nodes:
        node_id = str(node.get("nodeId"))
        if node_id not in seen:
            seen.add(node_id)
            new.append(node)
    return new


def _in_blocks(root: str, records: dict[str, Record], blocks: dict[str, list[Record]],
               above: set[str]) -> list[Record] | None:
    """The whole tree in pre-order, walking only the nodes above the sections and taking each
    section's block whole: what axtree.preorder gives, without visiting every node again at the
    end. None unless the walk meets every record exactly once and
    every link stays among them (then the caller orders the whole tree, and decides)."""
    ordered: list[Record] = []
    met: set[str] = set()
    stack = [root]
    while stack:
        node_id = stack.pop()
        if node_id in met:
            return None
        met.add(node_id)
        block = blocks.get(node_id)
        if block is not None:
            if block[0]["parentId"] not in records:
                return None
            ordered.extend(block)
            continue
        if node_id not in above:
            return None                     # e.g. a node inside a block, linked from above it
        record = records[node_id]
        parent = record["parentId"]
        if parent is not None and parent not in records:
            return None
        ordered.append(record)
        stack.extend(reversed(record["childIds"]))
    return ordered if len(ordered) == len(records) else None


def beside_first(subtree_reply: dict, chain_reply: dict, root: int,
                 ) -> tuple[list[dict], list[dict]] | None:
    """A later section of a group, settled (as patch.settle) with the ancestors read for the
    group's first section: they are this section's ancestors too when its own node (the
    subtree's first, of ``root``'s element) is a child of that first section's parent node.
    None when it is not, e.g. a section element whose content hangs under its parent's node."""
    subtree, chain = subtree_reply.get("nodes") or [], chain_reply.get("nodes") or []
    if not subtree or len(chain) < 2 or subtree[0].get("backendDOMNodeId") != root:
        return None
    own_chain = [subtree[0], *chain[1:]]
    return (subtree, own_chain) if in_tree(own_chain, 0) else None


def _retrieved(future: asyncio.Future) -> None:
    if not future.cancelled():
        future.exception()              # an error nobody waits for is not an error to log
