"""Parent links of a session's DOM snapshot: whether one node is inside another (the hit test's
"the node hit is the node itself or a descendant", answering/hits.py)."""

from __future__ import annotations

from collections.abc import Sequence


class Ancestry:
    """Parent links of one session's snapshot (every document in it, frames under their owner
    elements), kept as the snapshot's own arrays and indexed on first use."""

    def __init__(self, documents: Sequence[tuple[list[int], list[int], int | None]]) -> None:
        self._documents = documents          # (backend ids, parent indices, owner backend id)
        self._parent: dict[int, int | None] | None = None

    def _index(self) -> dict[int, int | None]:
        if self._parent is None:
            parent: dict[int, int | None] = {}
            for backend_ids, parents, owner in self._documents:
                for backend_id, index in zip(backend_ids, parents):
                    parent[backend_id] = backend_ids[index] if index >= 0 else owner
            self._parent = parent
        return self._parent

    def within(self, node: int, ancestor: int) -> bool:
        """Whether ``node`` is ``ancestor`` or inside it."""
        parent = self._index()
        for _step in range(10_000):          # bounded: a tree is never that deep
            if node == ancestor:
                return True
            up = parent.get(node)
            if up is None:
                return False
            node = up
        return False
