"""Which elements a change re-rendered beyond its own nodes, from two DOM snapshots: what else
a patch must read.

CSS carries a change further than the DOM nodes it touched. A change at <html> or <body> (a class
for a theme or an open modal), in <head> (a style sheet, which CSS-in-JS libraries add on every
render; the title), a resize or a font load can restyle any element; :has() and :focus-within
restyle ancestors and their other descendants. Reading the whole accessibility tree again for
costs as much of Chromium's time as a full read, and usually almost nothing in it changed.

Chromium's accessibility tree follows the styles only through what a DOM snapshot shows too:
whether a node is rendered at all, its rendered text (CSS text-transform, generated
::before/::after content and list markers are all in the layout text), and a few properties
(``RENDER_STYLES``: display and visibility; content-visibility; overflow, since a scroller can be
focusable). So every patch compares those, node by node, between the snapshot of the capture it
starts from and the new one, outside the subtrees it reads anyway, and also reads the topmost
elements whose rendering differs. Where that would be <body> itself (text directly in it
changed), or too many elements, the caller reads the whole tree. The layout tests compare such
patches with full reads.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...cdp.protocol.cdp_types import DOMSnapshotLayoutTreeSnapshot, DOMSnapshotNodeTreeSnapshot

RENDER_STYLES = ("display", "visibility", "content-visibility", "overflow")   # overflow: both axes
MAX_RESTYLED = 64             # more separate re-rendered subtrees than this: read the whole tree
MERGED_SIBLINGS = 3           # this many re-rendered siblings: read their parent instead

_ELEMENT_NODE = 1
_TOP_NAMES = ("HTML", "BODY")


class RenderState:
    """One document's rendering, as far as its accessibility tree can depend on it.

    Built from a snapshot's arrays (kept by reference, not copied); ``first_style`` is the index
    of RENDER_STYLES' first value in each layout node's computed styles.
    """

    __slots__ = ("_strings", "_backend_ids", "_parents", "_kinds", "_names", "_layout_nodes",
                 "_texts", "_styles", "_first_style", "_signatures")

    def __init__(self, strings: list[str], nodes: DOMSnapshotNodeTreeSnapshot, layout: DOMSnapshotLayoutTreeSnapshot,
                 first_style: int) -> None:
        self._strings = strings
        self._backend_ids: list[int] = nodes.get("backendNodeId", [])
        self._parents: list[int] = nodes.get("parentIndex", [])
        self._kinds: list[int] = nodes.get("nodeType", [])
        self._names: list[int] = nodes.get("nodeName", [])
        self._layout_nodes: list[int] = layout.get("nodeIndex", [])
        self._texts: list[int] = layout.get("text", [])
        self._styles: list[list[int]] = layout.get("styles", [])
        self._first_style = first_style
        self._signatures: dict[int, tuple] | None = None

    def signatures(self) -> dict[int, tuple]:
        """backendNodeId -> (layout text, render styles) of each of the node's layout objects,
        for rendered nodes only. Made once, on first use."""
        if self._signatures is None:
            self._signatures = self._make_signatures()
        return self._signatures

    def _make_signatures(self) -> dict[int, tuple]:
        strings, backend_ids, first = self._strings, self._backend_ids, self._first_style
        count = len(strings)
        # String indices are per snapshot: compare the strings. Few distinct style combinations.
        styles_of: dict[tuple[int, ...], tuple[str, ...]] = {}
        found: dict[int, tuple] = {}
        texts = self._texts if len(self._texts) == len(self._layout_nodes) else [-1] * len(self._layout_nodes)
        for node_index, text, styles in zip(self._layout_nodes, texts, self._styles):
            key = tuple(styles[first:])
            values = styles_of.get(key)
            if values is None:
                values = styles_of[key] = tuple(strings[i] if 0 <= i < count else "" for i in key)
            entry = (strings[text] if 0 <= text < count else None, values)
            backend_id = backend_ids[node_index]
            prior = found.get(backend_id)
            found[backend_id] = entry if prior is None else prior + entry
        return found

    def _element_at(self, index: int) -> int:
        """``index`` if it is an element's, else its nearest element ancestor's (a text node, a
        pseudo-element or a shadow root re-renders with it); -1 when there is none."""
        while index >= 0:
            if self._kinds[index] == _ELEMENT_NODE and not self._name(index).startswith("::"):
                return index
            index = self._parents[index]
        return -1

    def _is_top(self, index: int) -> bool:
        """Whether the node is <html> or <body> (read as the page-wide change's top, never as a
        subtree: that would be the whole page)."""
        return self._name(index) in _TOP_NAMES

    def _name(self, index: int) -> str:
        name = self._names[index] if index < len(self._names) else -1
        return self._strings[name] if 0 <= name < len(self._strings) else ""

    def restyled_roots(self, before: RenderState, read: Iterable[int]) -> list[int] | None:
        """The backendNodeIds of the topmost elements whose rendering differs from ``before``,
        leaving out the subtrees of ``read`` (backendNodeIds read again already) and <html> and
        <body> themselves (their own nodes are read again); None when such an element would be
        <html> or <body> (text right in it) or there are more than MAX_RESTYLED."""
        old, new = before.signatures(), self.signatures()
        read_ids = set(read)
        backend_ids, parents = self._backend_ids, self._parents
        # A pseudo-element whose content a style removed is gone from the DOM: its element is
        # what changed. (Other nodes gone were removed, a change the patch's roots cover.)
        gone = old.keys() - set(backend_ids)
        owners = before._owners_of_pseudo(gone) if gone else set()
        if len(parents) != len(backend_ids):
            return None
        covered = bytearray(len(backend_ids))       # inside a subtree read already
        chosen: set[int] = set()
        old_get, new_get = old.get, new.get
        for index, (backend_id, parent) in enumerate(zip(backend_ids, parents)):
            if (parent >= 0 and covered[parent]) or backend_id in read_ids:
                covered[index] = 1
                continue
            if old_get(backend_id) == new_get(backend_id) and backend_id not in owners:
                continue
            element = self._element_at(index)
            if element < 0 or self._is_top(element):
                if element == index:
                    continue                        # <html>/<body> itself: read as the top
                return None
            if element == index:
                covered[index] = 1
                if (backend_id in new) != (backend_id in old):
                    # Rendered now and not before, or the reverse: its parent's children
                    # changed. Read the parent (a subtree the patch has, so it keeps its place;
                    # and a node no longer rendered has none of its own to read).
                    owner = self._element_at(parents[index]) if parent >= 0 else -1
                    if owner >= 0 and not self._is_top(owner):
                        element = owner
            chosen.add(element)
            if len(chosen) > MAX_RESTYLED * 4:
                return None
        roots = self._topmost(chosen)
        # Several re-rendered siblings (a rule for every button of a toolbar): one read of
        # their parent costs less than one read, and one read of ancestors, each.
        by_parent: dict[int, list[int]] = {}
        for index in roots:
            by_parent.setdefault(self._element_at(parents[index]), []).append(index)
        merged: set[int] = set()
        for parent, siblings in by_parent.items():
            if len(siblings) >= MERGED_SIBLINGS and parent >= 0 and not self._is_top(parent):
                merged.add(parent)
            else:
                merged.update(siblings)
        roots = self._topmost(merged)
        if len(roots) > MAX_RESTYLED:
            return None
        return [backend_ids[i] for i in sorted(roots)]

    def _topmost(self, chosen: set[int]) -> list[int]:
        """Those not inside another one (read with it)."""
        return [i for i in chosen if not self._below_any(i, chosen)]

    def _owners_of_pseudo(self, backend_ids: set[int]) -> set[int]:
        """The backendNodeIds of the elements owning those of ``backend_ids`` that are
        pseudo-elements here."""
        owners = set()
        for index, backend_id in enumerate(self._backend_ids):
            if backend_id in backend_ids and self._name(index).startswith("::"):
                element = self._element_at(index)
                if element >= 0:
                    owners.add(self._backend_ids[element])
        return owners

    def _below_any(self, index: int, chosen: set[int]) -> bool:
        parent = self._parents[index]
        while parent >= 0:
            if parent in chosen:
                return True
            parent = self._parents[parent]
        return False
