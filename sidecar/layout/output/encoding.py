"""/layout bodies as bytes: each tab's layout encoded once and reused while it is unchanged.

A layout's "nodes" is a NodeList: the nodes' JSON, made by render.py, spliced into the body as
it is (dicts are decoded only for in-process readers).

The layout service returns the very same per-tab layout dict while the page and its view are unchanged
(``Capture.rendered``), so the encoder keys its cache on that object's identity (holding a strong
reference, so the id cannot be reused by another object). A warm request then costs a few dict
look-ups and one join instead of serialising megabytes.

The ETag names the exact bytes: a per-process token plus a digest of the tabs' small headers and
their layouts' encoding generations, so a poller can send ``If-None-Match`` and get a 304.
Gzip is applied only when the client asks (``Accept-Encoding``); gzipped bodies are cached by
ETag as well.
"""

from __future__ import annotations

import collections
import hashlib
import itertools
import json
import secrets
import zlib
from collections.abc import Hashable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, overload

from httpapi.json_types import JSONObject

from .options import LayoutOptions


class NodeList(Sequence[JSONObject]):
    """A layout's "nodes": each node's JSON (made by render.py, reused while the node is
    unchanged), read as dicts only when someone in-process asks.

    The HTTP answer splices the JSON in (dumps_layout) and never needs a dict, so none is built
    per request (measured: a third of the render loop's time). Tests and tools that read nodes
    get them decoded from the very bytes a client receives, once per layout.
    """

    __slots__ = ("json", "_decoded", "_memo")

    def __init__(self, node_json: list[bytes], memo: DecodedNodes | None = None) -> None:
        self.json = node_json
        self._decoded: list[JSONObject] | None = None
        self._memo = memo

    def _nodes(self) -> list[JSONObject]:
        if self._decoded is None:
            memo = self._memo if self._memo is not None else DecodedNodes()
            self._decoded = memo.decode(self.json)
        return self._decoded

    def __len__(self) -> int:
        return len(self.json)

    @overload
    def __getitem__(self, index: int) -> JSONObject: ...

    @overload
    def __getitem__(self, index: slice) -> list[JSONObject]: ...

    def __getitem__(self, index: int | slice) -> JSONObject | list[JSONObject]:
        return self._nodes()[index]

    def __iter__(self) -> Iterator[JSONObject]:
        return iter(self._nodes())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NodeList):
            return self.json == other.json or self._nodes() == other._nodes()
        return self._nodes() == other if isinstance(other, list) else NotImplemented

    # No __hash__: a class that defines __eq__ alone gets __hash__ = None (mutable contents,
    # unhashable like a list).

    def __repr__(self) -> str:
        return f"NodeList({len(self.json)} nodes)"


class DecodedNodes:
    """The nodes of one tab's last decoded answer (for one query's options), by their JSON: the
    next answer decodes only the nodes whose JSON is new, since render.py hands an unchanged
    node's JSON on as it is (after a patch, most of them). The dicts are shared between those
    answers: in-process readers must not change them."""

    __slots__ = ("by_json",)

    def __init__(self) -> None:
        self.by_json: dict[bytes, JSONObject] = {}

    def decode(self, node_json: list[bytes]) -> list[JSONObject]:
        known = self.by_json
        new = sum(1 for fragment in node_json if fragment not in known)
        if new * 2 > len(node_json):        # mostly new: one parse of them all is faster
            decoded: list[JSONObject] = json.loads(b"[" + b",".join(node_json) + b"]")
        else:
            decoded = [known.get(fragment) or json.loads(fragment) for fragment in node_json]
        self.by_json = dict(zip(node_json, decoded))      # only this answer's: bounded
        return decoded


def _as_json_value(value: object) -> list[JSONObject]:
    if isinstance(value, NodeList):
        return value._nodes()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# Compact, no circular-reference walk (the layout is trees of plain dicts and lists).
# ensure_ascii stays on: CPython's encoder writes pure ASCII faster, and encoding an ASCII str to
# bytes is a copy (measured faster than ensure_ascii=False and than json.dumps' defaults:
# docs/benchmarks.md).
# One encoder made once: json.dumps with options builds a new JSONEncoder per call, and each
# node's record is encoded on its own: thousands of calls per full read.
_dumps = json.JSONEncoder(separators=(",", ":"), check_circular=False, default=_as_json_value).encode
CACHE_BYTES = 96 * 1024 * 1024      # encoded layouts kept, all tabs and query options together
GZIP_CACHE_BYTES = 16 * 1024 * 1024
GZIP_LEVEL = 1                      # a layout compresses about tenfold even at level 1
GZIP_MIN_BYTES = 1024


# What of a LayoutOptions changes a tab's layout: interesting, roles, max_nodes, bounds_space,
# inline_text_boxes, hit_tests.
OptionsKey = tuple[bool, frozenset[str] | None, int | None, str, bool, bool]


def options_key(options: LayoutOptions) -> OptionsKey:
    """What of a LayoutOptions changes a tab's layout (not ``tab``, which only selects tabs)."""
    return (options.interesting, options.roles, options.max_nodes, options.bounds_space,
            options.inline_text_boxes, options.hit_tests)


def dumps(value: object) -> bytes:
    return _dumps(value).encode()


def reopened(head: bytes, name: str) -> bytes:
    """An object's JSON ``head`` ('{...}') reopened to take one more member, ``name``, last:
    the caller appends the member's JSON and the closing brace."""
    return head[:-1] + (b',"%s":' if len(head) > 2 else b'"%s":') % name.encode()


def dumps_layout(layout: Mapping[str, object]) -> bytes:
    """The layout's JSON, exactly as dumps() writes it; a last member "nodes" that is a NodeList
    is spliced in from its nodes' ready JSON."""
    nodes = layout.get("nodes")
    if not isinstance(nodes, NodeList) or list(layout)[-1:] != ["nodes"]:
        return dumps(layout)
    head = dumps({key: value for key, value in layout.items() if key != "nodes"})
    pieces = [reopened(head, "nodes") + b"["]
    for index, fragment in enumerate(nodes.json):     # one join: no copy of the joined nodes
        if index:
            pieces.append(b",")
        pieces.append(fragment)
    pieces.append(b"]}")
    return b"".join(pieces)


@dataclass(frozen=True)
class EncodedBody:
    data: bytes
    etag: str                       # quoted, ready for the ETag header


K = TypeVar("K", bound=Hashable)
T = TypeVar("T")


class _ByteBoundedCache(Generic[K, T]):
    """An LRU mapping whose bound is the total size of the bytes it holds; each entry's bytes
    with a tag of the caller's (what they were made from)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._items: collections.OrderedDict[K, tuple[T, bytes]] = collections.OrderedDict()

    def get(self, key: K) -> tuple[T, bytes] | None:
        item = self._items.get(key)
        if item is not None:
            self._items.move_to_end(key)
        return item

    def put(self, key: K, tag: T, data: bytes) -> None:
        old = self._items.pop(key, None)
        if old is not None:
            self.size -= len(old[1])
        if len(data) > self.limit:
            return
        self._items[key] = (tag, data)
        self.size += len(data)
        while self.size > self.limit:
            _key, (_tag, dropped) = self._items.popitem(last=False)
            self.size -= len(dropped)


class LayoutEncoder:
    """Encodes ``{"tabs": [...]}`` bodies; one per layout service (i.e. per Chromium connection)."""

    def __init__(self, cache_bytes: int = CACHE_BYTES, gzip_cache_bytes: int = GZIP_CACHE_BYTES) -> None:
        self._token = secrets.token_hex(4)          # ETags of another process never match
        self._generations = itertools.count(1)
        # (tab id, options key) -> ((layout object, generation), its JSON)
        self._layouts: _ByteBoundedCache[tuple[object, OptionsKey | None], tuple[Mapping[str, object], int]] = \
            _ByteBoundedCache(cache_bytes)
        self._gzipped: _ByteBoundedCache[str, None] = _ByteBoundedCache(gzip_cache_bytes)   # etag -> gzip bytes
        self.hits = 0
        self.misses = 0

    @property
    def cached_bytes(self) -> int:
        """The size of the encoded layouts kept (bounded by ``cache_bytes``)."""
        return self._layouts.size

    def encode(self, body: Mapping[str, object], options_key: OptionsKey | None = None) -> EncodedBody:
        """``body``: {"tabs": [entry, ...], ...}, each entry a mapping (shapes.TabEntry)."""
        # Pieces joined once at the end: a layout is megabytes, each "+" of it would copy it.
        parts: list[bytes] = [b'{"tabs":[']
        digest = hashlib.blake2b(digest_size=12)
        tabs = body["tabs"]
        if not isinstance(tabs, Sequence):
            raise TypeError(f'a layout body\'s "tabs" is a list, not {type(tabs).__name__}')
        for tab in tabs:
            if not isinstance(tab, Mapping):
                raise TypeError(f"a layout body's tab is a mapping, not {type(tab).__name__}")
            layout = tab.get("layout")
            if len(parts) > 1:
                parts.append(b",")
            if not isinstance(layout, dict) or "error" in layout:   # small: encoded each time
                whole = dumps(tab)
                digest.update(whole)
                parts.append(whole)
                continue
            head = dumps({key: value for key, value in tab.items() if key != "layout"})
            digest.update(head)
            layout_bytes, generation = self._layout_bytes(tab.get("id"), options_key, layout)
            digest.update(b"\0%d\0" % generation)
            # head is '{...}': splice the cached layout in as its last member.
            parts += (reopened(head, "layout"), layout_bytes, b"}")
        extra = {key: value for key, value in body.items() if key != "tabs"}
        tail = b"}" if not extra else b"," + dumps(extra)[1:]
        digest.update(tail)
        parts += (b"]", tail)
        data = b"".join(parts)
        return EncodedBody(data, f'"{self._token}-{digest.hexdigest()}"')

    def prime(self, tab_id: str, options_key: OptionsKey | None, layout: Mapping[str, object]) -> None:
        """Encode a tab's layout ahead of the request (after a background refresh)."""
        self._layout_bytes(tab_id, options_key, layout)

    def _layout_bytes(self, tab_id: object, options_key: OptionsKey | None, layout: Mapping[str, object],
                      ) -> tuple[bytes, int]:
        key = (tab_id, options_key)
        cached = self._layouts.get(key)
        if cached is not None and cached[0][0] is layout:
            self.hits += 1
            return cached[1], cached[0][1]
        self.misses += 1
        generation = next(self._generations)
        data = dumps_layout(layout)
        self._layouts.put(key, (layout, generation), data)
        return data, generation

    def gzipped(self, encoded: EncodedBody) -> bytes:
        """The body gzipped (cached by ETag). Blocking: call it in an executor for big bodies."""
        cached = self._gzipped.get(encoded.etag)
        if cached is not None:
            return cached[1]
        compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        data = compressor.compress(encoded.data) + compressor.flush()
        self._gzipped.put(encoded.etag, None, data)
        return data


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110 weak comparison of an If-None-Match header against our (strong) ETag."""
    if not if_none_match:
        return False
    for candidate in if_none_match.split(","):
        candidate = candidate.strip()
        if candidate == "*":
            return True
        if candidate.startswith("W/"):
            candidate = candidate[2:]
        if candidate == etag:
            return True
    return False


def accepts_gzip(accept_encoding: str | None) -> bool:
    """True when Accept-Encoding lists gzip (or *) with a non-zero q."""
    if not accept_encoding:
        return False
    for item in accept_encoding.split(","):
        name, _, params = item.strip().partition(";")
        if name.strip().lower() not in ("gzip", "x-gzip", "*"):
            continue
        q = params.strip().lower()
        if q.startswith("q="):
            try:
                return float(q[2:]) > 0
            except ValueError:
                return False
        return True
    return False
