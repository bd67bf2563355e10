"""Incremental /layout (sidecar/layout/records/patch.py): after a change, only the changed subtrees are
read again, and the result equals a full read of the page (?fresh=true), node for node."""

from __future__ import annotations

import json
import random

import pytest

from sidecar.layout.records import patch

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


@pytest.fixture
def unbounded_patches(monkeypatch):
    """Patches of any size: this small page's changes at <main> re-read most of it, which the
    patch leaves to a full read as the cheaper one (patch.NodeBudget); here the patch itself,
    not that choice, is under test."""
    monkeypatch.setattr(patch, "MIN_NODE_BUDGET", 1_000_000)


def _counts(chromium) -> dict[str, int]:
    return chromium.layout_service.counters.as_dict()


def _nodes(layout: dict) -> list[dict]:
    return layout["tabs"][0]["layout"]["nodes"]


def _comparable(layout: dict) -> list[dict]:
    """The nodes, with the ids of those Chromium makes for CSS-generated text (a list marker's,
    a ::before's: negative ids, no DOM node) named by their place instead. Chromium renumbers
    them whenever it re-creates their layout objects (a colour change does), a patch after a
    page-wide change keeps the earlier ones; everything else must be the same."""
    nodes = _nodes(layout)
    by_id = {n["nodeId"]: n for n in nodes}
    generated = {n["nodeId"]: f"{n['parentId']}/{by_id[n['parentId']]['childIds'].index(n['nodeId'])}"
                 for n in nodes if n["nodeId"].startswith("-") and "backendDOMNodeId" not in n
                 and n["parentId"] in by_id}
    if not generated:
        return nodes
    rename = lambda node_id: generated.get(node_id, node_id)  # noqa: E731
    return [dict(n, nodeId=rename(n["nodeId"]), childIds=[rename(c) for c in n["childIds"]],
                 **({"parentId": rename(n["parentId"])} if "parentId" in n else {})) for n in nodes]


def _first_difference(patched: list[dict], full: list[dict]) -> str:
    for index, (a, b) in enumerate(zip(patched, full)):
        if a != b:
            return f"node {index}:\n patched {json.dumps(a)[:600]}\n full    {json.dumps(b)[:600]}"
    return f"{len(patched)} nodes patched, {len(full)} in a full read"


async def _open(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("/mutable.html"))
    await chromium.layout(tab=page.target_id)      # installs the change tracker
    await chromium.layout(tab=page.target_id)      # the capture later patches start from
    return page


@pytest.mark.usefixtures("unbounded_patches")
@pytest.mark.parametrize("seed", [20261121, 1812])
async def test_patched_layouts_equal_full_reads_after_random_changes(chromium, page_server, seed):
    page = await _open(chromium, page_server)
    count = await chromium.evaluate(page, "window.mutations.length")
    rng = random.Random(seed)
    before = _counts(chromium)
    for round_ in range(24):
        # A few actions, each observed (patched on the last patch), then compared with a full read.
        for _ in range(rng.randint(1, 3)):
            for _ in range(rng.randint(1, 2)):
                await chromium.evaluate(page, f"mutate({rng.randrange(count)}, {rng.randrange(1, 10**6)})")
            patched = await chromium.layout(tab=page.target_id)
        full = await chromium.layout(tab=page.target_id, fresh="true")
        assert _comparable(patched) == _comparable(full), f"round {round_}: " + _first_difference(
            _comparable(patched), _comparable(full))
    after = _counts(chromium)
    # The comparison means something only if most observations were patches, not full reads
    # (text right in <body>, an overflow or a missing node falls back to a full read).
    patches = after["patches"] - before["patches"]
    assert patches >= 24, (before, after)


@pytest.mark.usefixtures("unbounded_patches")
async def test_every_kind_of_change_is_patched_and_exact(chromium, page_server):
    page = await _open(chromium, page_server)
    count = await chromium.evaluate(page, "window.mutations.length")
    for index in range(count):
        before = _counts(chromium)["patches"]
        await chromium.evaluate(page, f"mutate({index}, {index + 7})")
        patched = await chromium.layout(tab=page.target_id)
        assert _counts(chromium)["patches"] == before + 1, f"mutation {index} was not patched"
        full = await chromium.layout(tab=page.target_id, fresh="true")
        assert _comparable(patched) == _comparable(full), f"mutation {index}: " + _first_difference(
            _comparable(patched), _comparable(full))


async def _observed(chromium, page, script: str) -> tuple[dict, dict[str, int]]:
    """The layout after ``script``, and how the counts moved."""
    before = _counts(chromium)
    await chromium.evaluate(page, script)
    layout = await chromium.layout(tab=page.target_id)
    after = _counts(chromium)
    return layout, {key: after.get(key, 0) - before.get(key, 0) for key in after}


async def test_page_wide_changes_are_patched_but_text_right_in_body_is_read_whole(chromium, page_server):
    page = await _open(chromium, page_server)
    layout, moved = await _observed(chromium, page, "document.title = 'renamed'")
    assert moved["patches"] == 1 and moved["captures"] == 0
    root = _nodes(layout)[0]
    assert root["role"]["value"] == "RootWebArea" and root["name"]["value"] == "renamed"
    # Text right in <body>: the element to read again would be <body>, i.e. the whole page.
    for script in ("document.body.append('loose text')", "document.body.lastChild.data = 'changed'"):
        layout, moved = await _observed(chromium, page, script)
        assert moved["captures"] == 1 and moved["patches"] == 0, script
        assert any(n["name"]["value"] == script.split("'")[1] for n in _nodes(layout)), script


async def test_an_image_that_loads_later_is_read_again_the_documents_load_event_is_not(
        chromium, page_server):
    """An image's load resizes it and moves what follows; a page's own load event renders
    nothing itself (counting it made the first look after a load patch a page its background
    read had just read)."""
    page = await _open(chromium, page_server)
    _layout, moved = await _observed(chromium, page, "window.dispatchEvent(new Event('load'))")
    assert moved["patches"] == 0 and moved["captures"] == 0, moved
    gate = page_server.gate("late-image")
    script = (f"window.late = Object.assign(new Image(), {{alt: 'late', src: "
              f"'{page_server.url('/gated/late-image.svg')}'}});"
              "window.lateLoaded = new Promise((done) => { late.onload = done; });"
              "document.body.prepend(late); 0")
    layout, moved = await _observed(chromium, page, script)      # asked before it has loaded
    assert moved["patches"] + moved["captures"] == 1, moved
    image = [n for n in _nodes(layout) if n["role"]["value"] == "image" and n["name"]["value"] == "late"]
    assert image and image[0]["bounds"]["borderBox"]["width"] != 120, image
    gate.set()
    await chromium.evaluate(page, "lateLoaded.then(() => 0)")
    layout, moved = await _observed(chromium, page, "0")
    assert moved["patches"] + moved["captures"] == 1, moved
    image = [n for n in _nodes(layout) if n["role"]["value"] == "image" and n["name"]["value"] == "late"]
    assert image[0]["bounds"]["borderBox"]["width"] == 120, image
    full = await chromium.layout(tab=page.target_id, fresh="true")
    assert _comparable(layout) == _comparable(full)


async def test_a_closed_shadow_root_its_page_attached_early_is_followed(chromium, page_server):
    """A page's own script attaches a closed shadow root before any tracker exists: only the
    root attachShadow returned reaches its content. The sidecar's early script (registered once
    the tab was asked for) keeps it for the tracker, so a change inside is read again."""
    from sidecar.layout.probing.probe import SHADOW_KEY

    page = await _open(chromium, page_server)          # asked for: later documents are followed
    await chromium.navigate(page, page_server.url("/closed-shadow.html"))
    assert await chromium.evaluate(page, f"Object.prototype.hasOwnProperty.call(window, '{SHADOW_KEY}')")
    assert await chromium.evaluate(page, "document.getElementById('host').shadowRoot") is None
    layout = await chromium.layout(tab=page.target_id)
    assert [n for n in _nodes(layout) if n["name"]["value"] == "Before"]
    layout, moved = await _observed(chromium, page, "renameInner('After')")
    assert moved["patches"] + moved["captures"] == 1, moved
    assert [n for n in _nodes(layout) if n["role"]["value"] == "button" and n["name"]["value"] == "After"]
    full = await chromium.layout(tab=page.target_id, fresh="true")
    assert _comparable(layout) == _comparable(full)


# Page-wide changes (mutable.html's CSS), each made and undone; True where it re-renders
# something the accessibility tree shows (read again), False where it does not (colours, the
# title, a resize event without a new size).
PAGE_WIDE = [(f"document.body.classList.toggle('{name}')", shows)
             for name, shows in (("dark", False), ("compact", True), ("shout", True),
                                 ("marked", True), ("squares", True), ("veiled", True))] + [
    ("document.documentElement.classList.toggle('bare')", True),
    ("document.getElementById('injected').textContent = '#grid td { text-transform: uppercase }'", True),
    ("document.getElementById('injected').textContent = '#more summary::after { content: \"!\" }'", True),
    ("document.getElementById('injected').textContent = '#list-section h2 { visibility: hidden }'", True),
    ("document.getElementById('injected').textContent = ''", True),
    ("document.getElementById('injected').sheet.insertRule('#caption { display: none }', 0)", True),
    ("document.getElementById('injected').sheet.deleteRule(0)", True),
    # A rule edited in place (the rule stays): its declarations, its selector, its media.
    ("document.getElementById('injected').sheet.insertRule('#menu { color: red }', 0)", False),
    ("document.getElementById('injected').sheet.cssRules[0].style.setProperty('display', 'none')", True),
    ("document.getElementById('injected').sheet.cssRules[0].style.removeProperty('display')", True),
    ("document.getElementById('injected').sheet.cssRules[0].style.cssText = 'visibility: hidden'", True),
    ("document.getElementById('injected').sheet.cssRules[0].selectorText = '#buttons'", True),
    ("document.getElementById('injected').sheet.insertRule("
     "'@media (min-width: 1px) { #menu { display: none } }', 0)", True),
    ("document.getElementById('injected').sheet.cssRules[0].media.mediaText = '(max-width: 1px)'", True),
    ("document.getElementById('injected').sheet.cssRules[0].media.appendMedium('(min-width: 2px)')", True),
    ("{ const sheet = document.getElementById('injected').sheet;"
     " while (sheet.cssRules.length) sheet.deleteRule(0); }", True),
    ("{ const s = new CSSStyleSheet(); s.replaceSync('#menu li:first-child { display: none }');"
     " document.adoptedStyleSheets = [s]; }", True),
    ("document.adoptedStyleSheets[0].replaceSync('#buttons button:first-child { visibility: hidden }')", True),
    ("document.adoptedStyleSheets = []", True),
    ("location.hash = 'target-box'", True),
    ("location.hash = ''", True),
    ("document.title = 'retitled'", False),
    ("window.dispatchEvent(new Event('resize'))", False),
]


@pytest.mark.usefixtures("unbounded_patches")
async def test_page_wide_changes_are_patched_with_what_they_re_rendered(chromium, page_server):
    page = await _open(chromium, page_server)
    for script, shows in PAGE_WIDE + [(s, shows) for s, shows in PAGE_WIDE if "toggle" in s]:
        layout, moved = await _observed(chromium, page, script)
        assert (moved["patches"], moved["wide"], moved["captures"]) == (1, 1, 0), script
        assert (moved["restyled"] > 0) == shows, (script, moved)
        full = await chromium.layout(tab=page.target_id, fresh="true")
        assert _comparable(layout) == _comparable(full), f"{script}: " + _first_difference(
            _comparable(layout), _comparable(full))


async def test_css_reaching_beyond_the_changed_node_is_read_from_the_rendering(chromium, page_server):
    """A class on an <input> shows (display) and reveals (visibility) elements outside its parent
    through :has(): the rendering says which, and the patch reads them too."""
    page = await _open(chromium, page_server)
    for shown in (True, False, True):
        layout, moved = await _observed(chromium, page,
                                        "document.getElementById('card-input').classList.toggle('on')")
        assert (moved["patches"], moved["wide"], moved["captures"]) == (1, 0, 0)
        assert moved["restyled"] >= 1
        full = await chromium.layout(tab=page.target_id, fresh="true")
        assert _comparable(layout) == _comparable(full), _first_difference(
            _comparable(layout), _comparable(full))
        note = [n for n in _nodes(layout) if n["role"]["value"] == "button" and n["name"]["value"] == "note"]
        assert bool(note) == shown and bool(note and not note[0]["ignored"]) == shown


async def test_a_menu_shown_on_hover_is_read_when_the_pointer_moves(chromium, page_server):
    """The pointer over a button shows its menu through :hover (no mutation): the patch after it
    has the menu; the pointer away, the menu is gone again."""
    page = await _open(chromium, page_server)
    box = await chromium.evaluate(page, """(() => { const b = document.getElementById("hover-open");
        b.scrollIntoView({block: "center"}); const r = b.getBoundingClientRect();
        return [r.x + r.width / 2, r.y + r.height / 2]; })()""")
    await chromium.layout(tab=page.target_id)
    for (x, y), shown in ((box, True), ((2, 2), False)):
        before = _counts(chromium)
        await page.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        layout = await chromium.layout(tab=page.target_id)
        assert _counts(chromium)["patches"] == before["patches"] + 1
        full = await chromium.layout(tab=page.target_id, fresh="true")
        assert _comparable(layout) == _comparable(full), _first_difference(
            _comparable(layout), _comparable(full))
        assert bool([n for n in _nodes(layout) if n["name"]["value"] == "Hovered item"]) == shown


async def test_a_window_resize_is_read_whole_with_what_its_media_queries_hid(chromium, page_server):
    """A new window size (or zoom) can change what overflows anywhere, and so which boxes are
    scroll containers in the accessibility tree, with no change a patch would find: read whole."""
    page = await _open(chromium, page_server)
    window = await chromium.conn.send("Browser.getWindowForTarget", {"targetId": page.target_id})
    bounds = window["bounds"]
    try:
        for width in (640, bounds["width"]):       # mutable.html hides its <nav> below 700 px
            await chromium.conn.send("Browser.setWindowBounds", {
                "windowId": window["windowId"], "bounds": {"width": width}})
            layout, moved = await _observed(chromium, page, "innerWidth")
            assert moved["patches"] == 0 and moved["captures"] == 1, width
            full = await chromium.layout(tab=page.target_id, fresh="true")
            assert _comparable(layout) == _comparable(full), f"width {width}: " + _first_difference(
                _comparable(layout), _comparable(full))
            links = [n for n in _nodes(layout) if n["role"]["value"] == "link"]
            assert bool(links) == (width != 640), width
    finally:
        await chromium.conn.send("Browser.setWindowBounds", {
            "windowId": window["windowId"], "bounds": {"width": bounds["width"]}})


async def test_unchanged_nodes_are_reused_and_the_spliced_json_is_exact(chromium, page_server):
    from sidecar.layout.output.encoding import LayoutEncoder, dumps

    page = await _open(chromium, page_server)
    first = await chromium.layout(tab=page.target_id)
    await chromium.evaluate(page, "document.querySelector('#buttons button').textContent = 'zz'")
    second = await chromium.layout(tab=page.target_id)
    first_nodes, second_nodes = (t["tabs"][0]["layout"]["nodes"] for t in (first, second))
    old = {n["nodeId"]: fragment for n, fragment in zip(first_nodes, first_nodes.json)}
    reused = [n for n, fragment in zip(second_nodes, second_nodes.json) if old.get(n["nodeId"]) is fragment]
    # The renamed button and its text (and what moved with them) are new; most of the page
    # keeps the very same JSON bytes.
    assert len(reused) > len(second_nodes) // 2
    assert [n for n in second_nodes if n["name"]["value"] == "zz"], "the rename is missing"
    for layout in (first, second):
        body = {"tabs": [dict(layout["tabs"][0])]}
        # The spliced body is the JSON of its nodes decoded and encoded again, byte for byte:
        # the template writes what json.dumps would.
        assert LayoutEncoder().encode(body).data == dumps(body)


# Half of a 2,000-element page's sections moved into one <div>, whose content is then replaced.
WRAP_HALF = """(() => { const d = document.createElement('div'); d.id = 'big';
  const s = [...document.querySelectorAll('body > section')]; s[0].before(d);
  for (const x of s.slice(0, s.length / 2)) d.append(x); return 0; })()"""
REPLACE_HALF = """(() => { const el = document.getElementById('big');
  el.innerHTML = el.innerHTML.replace(/Button (\\d+)/g, 'Knopf $1'); return 0; })()"""
REPLACE_SMALL = "document.querySelector('#big section').innerHTML += '<p>one more</p>'; 0"


async def test_a_change_to_most_of_the_page_is_read_whole_a_small_one_patched(chromium, page_server):
    page = await chromium.page()
    await chromium.navigate(page, page_server.url("/gen/2000"))
    await chromium.evaluate(page, WRAP_HALF)
    await chromium.layout(tab=page.target_id)
    await chromium.layout(tab=page.target_id)
    for script, patched in ((REPLACE_HALF, 0), (REPLACE_SMALL, 1)):
        layout, moved = await _observed(chromium, page, script)
        assert (moved["patches"], moved["captures"]) == (patched, 1 - patched), (script, moved)
        full = await chromium.layout(tab=page.target_id, fresh="true")
        assert _comparable(layout) == _comparable(full), _first_difference(
            _comparable(layout), _comparable(full))
