"""sidecar.layout.snapshot.restyle: which elements a page-wide change re-rendered, from two DOM snapshots
(made here as Chromium's captureSnapshot replies, small enough to read)."""

from __future__ import annotations

from sidecar.layout.snapshot import restyle
from sidecar.layout.snapshot.dom_boxes import STYLES, Snapshot

# A page: <html><body><main><p>text</p><ul><li>::marker "a"</li>...</ul></main></body></html>
ELEMENT, TEXT, DOCUMENT = 1, 3, 9


class Page:
    """DOM nodes (name, kind, parent index, backendNodeId) and what is rendered of them."""

    def __init__(self) -> None:
        self.nodes: list[tuple[str, int, int, int]] = []
        self.rendered: dict[int, tuple[str | None, dict[str, str]]] = {}   # node index -> text, styles

    def add(self, name: str, kind: int, parent: int, backend_id: int, text: str | None = None,
            rendered: bool = True, **styles: str) -> int:
        self.nodes.append((name, kind, parent, backend_id))
        if rendered:
            self.rendered[len(self.nodes) - 1] = (text, styles)
        return len(self.nodes) - 1

    def snapshot(self) -> Snapshot:
        strings: list[str] = []

        def index(value: str) -> int:
            if value not in strings:
                strings.append(value)
            return strings.index(value)

        layout = {"nodeIndex": [], "bounds": [], "text": [], "styles": []}
        for node_index, (text, styles) in sorted(self.rendered.items()):
            layout["nodeIndex"].append(node_index)
            layout["bounds"].append([0, 10 * node_index, 100, 10])
            layout["text"].append(-1 if text is None else index(text))
            values = {"display": "block", "visibility": "visible", "position": "static", "zoom": "1",
                      **styles}
            layout["styles"].append([index(values.get(name, "0px")) for name in STYLES])
        nodes = {"nodeName": [index(n[0]) for n in self.nodes], "nodeType": [n[1] for n in self.nodes],
                 "parentIndex": [n[2] for n in self.nodes], "backendNodeId": [n[3] for n in self.nodes]}
        return Snapshot({"strings": strings, "documents": [
            {"frameId": index("F"), "documentURL": index("u"), "nodes": nodes, "layout": layout}]})


def page(changes: dict | None = None, gone: tuple[int, ...] = ()) -> Page:
    """The base page, with ``changes``: per backendNodeId, None (not rendered), or a dict with
    "text" and/or styles; without the list markers (pseudo-elements) in ``gone``."""
    changes = changes or {}
    result = Page()

    def add(name, kind, parent, backend_id, text=None):
        change = changes.get(backend_id, {})
        if change is None:
            return result.add(name, kind, parent, backend_id, rendered=False)
        return result.add(name, kind, parent, backend_id, change.get("text", text),
                          **{k: v for k, v in change.items() if k != "text"})

    doc = add("#document", DOCUMENT, -1, 1)
    html = add("HTML", ELEMENT, doc, 2)
    body = add("BODY", ELEMENT, html, 3)
    main = add("MAIN", ELEMENT, body, 4)
    p = add("P", ELEMENT, main, 5)
    add("#text", TEXT, p, 6, "hello")
    ul = add("UL", ELEMENT, main, 7)
    for i in range(4):
        li = add("LI", ELEMENT, ul, 10 + 3 * i)
        if 11 + 3 * i not in gone:                       # its marker's backendNodeId
            add("::marker", ELEMENT, li, 11 + 3 * i, "• ")
        add("#text", TEXT, li, 12 + 3 * i, f"item {i}")
    add("#text", TEXT, body, 30, "loose")
    return result


def roots(before: Page, after: Page, read=()):
    old, new = before.snapshot().render_state(), after.snapshot().render_state()
    return new.restyled_roots(old, read)


def test_nothing_re_rendered_means_nothing_to_read():
    assert roots(page(), page()) == []
    # Styles outside those the accessibility tree follows (here a border) change nothing.
    assert roots(page(), page({5: {"border-left-width": "2px"}})) == []


def test_a_new_text_reads_its_element_and_a_hidden_or_shown_element_its_parent():
    assert roots(page(), page({6: {"text": "HELLO"}})) == [5]          # the <p>
    assert roots(page(), page({5: None, 6: None})) == [4]              # <p> gone: <main>
    assert roots(page({5: None, 6: None}), page()) == [4]              # <p> back: <main> too
    assert roots(page(), page({7: {"visibility": "hidden"}})) == [7]


def test_subtrees_read_already_and_body_itself_are_left_out():
    assert roots(page(), page({6: {"text": "HELLO"}}), read=[4]) == []
    assert roots(page(), page({3: {"overflow": "hidden"}})) == []     # <body>'s own node is read


def test_a_removed_pseudo_element_reads_its_element():
    assert roots(page(), page(gone=(11,))) == [10]


def test_text_right_in_body_means_reading_the_whole_page():
    assert roots(page(), page({30: {"text": "LOOSE"}})) is None


def test_re_rendered_siblings_are_read_through_their_parent():
    two = {12: {"text": "ITEM 0"}, 15: {"text": "ITEM 1"}}
    assert roots(page(), page(two)) == [10, 13]
    three = {**two, 18: {"text": "ITEM 2"}}
    assert roots(page(), page(three)) == [7]                             # the <ul>


def test_too_many_re_rendered_elements_mean_reading_the_whole_page(monkeypatch):
    monkeypatch.setattr(restyle, "MAX_RESTYLED", 1)
    assert roots(page(), page({6: {"text": "HELLO"}, 12: {"text": "ITEM 0"}})) is None
