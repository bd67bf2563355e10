"""Short element refs (``e12``, ``f1e3`` inside the first child frame) bound to one element of
one document.

A ref is keyed on the frame, the element's backendDOMNodeId and the frame's document (its
loaderId): the same live element keeps its ref across snapshots, and a ref never names an
element of a later document, because refs only ever grow (a new document's elements get new
numbers). A document the frame left is not forgotten: the back/forward cache can bring the very
same document back (same loaderId, same nodes), and then each of its elements has its old ref
again, all of them alike; until then its refs are refused as stale (resolve.py compares the
frame's current document)."""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import NamedTuple

REF_PATTERN = r"^(f[0-9]{1,6})?e[0-9]{1,9}$"
_REF = re.compile(REF_PATTERN)
# Refs remembered per tab, of the current documents and of those left (which the back/forward
# cache may restore); the least recently seen fall out (an agent acting on one gets a 409).
MAX_REFS = 50_000
MAX_RETIRED = 50_000


class ElementKey(NamedTuple):
    """(A named tuple: hashed and compared in C, once per element of every snapshot.)"""

    target_id: str        # the CDP target whose session holds backend_node_id (page or OOPIF)
    frame_id: str
    backend_node_id: int
    loader_id: str        # the frame's document when the ref was given


def is_ref(text: str) -> bool:
    return bool(_REF.match(text))


class RefTable:
    """The refs of one tab."""

    def __init__(self, main_frame_id: str) -> None:
        self.main_frame_id = main_frame_id
        self._by_key: OrderedDict[ElementKey, str] = OrderedDict()
        self._by_ref: dict[str, ElementKey] = {}
        self._frames: dict[str, str] = {main_frame_id: ""}     # frame id -> ref prefix
        self._next: dict[str, int] = {}                         # prefix -> next number
        self._retired: OrderedDict[str, None] = OrderedDict()   # refs given out, now gone

    def ref_for(self, key: ElementKey) -> str:
        ref = self._by_key.get(key)
        if ref is not None:
            self._by_key.move_to_end(key)
            return ref
        prefix = self._frames.get(key.frame_id)
        if prefix is None:
            prefix = self._frames[key.frame_id] = f"f{len(self._frames)}"
        number = self._next.get(prefix, 1)
        self._next[prefix] = number + 1
        ref = f"{prefix}e{number}"
        self._by_key[key] = ref
        self._by_ref[ref] = key
        while len(self._by_key) > MAX_REFS:
            old_key, old_ref = self._by_key.popitem(last=False)
            self._retire(old_ref)
        return ref

    def lookup(self, ref: str) -> ElementKey | None:
        return self._by_ref.get(ref)

    def was_given(self, ref: str) -> bool:
        """A ref this table gave out once, whether or not it still names an element."""
        return ref in self._by_ref or ref in self._retired

    def forget(self, key: ElementKey) -> None:
        """Retire the ref of an element removed from its (current) document: node ids are not
        reused, so it cannot come back."""
        ref = self._by_key.pop(key, None)
        if ref is not None:
            self._retire(ref)

    def _retire(self, ref: str) -> None:
        self._by_ref.pop(ref, None)
        self._retired[ref] = None
        while len(self._retired) > MAX_RETIRED:
            self._retired.popitem(last=False)

    def __len__(self) -> int:
        return len(self._by_key)
