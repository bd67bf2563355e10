"""Incremental /layout (sidecar/layout/patch.py): after a change, only the changed subtrees are
read again, and the result equals a full read of the page (?fresh=true), node for node."""

from __future__ import annotations

import json
import random

import pytest

from sidecar.layout import builder

pytestmark = [pytest.mark.x11, pytest.mark.chromium]


def _counts(chromium) -> dict[str, int]:
    state = builder._states.get(chromium.tracker)       # none before the first /layout
    return dict(state.counts) if state else {"captures": 0, "sectioned": 0, "patches": 0}


def _nodes(layout: dict) -> list[dict]:
    return layout["tabs"][0]["layout"]["nodes"]


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


async def test_patched_layouts_equal_full_reads_after_random_changes(chromium, page_server):
    page = await _open(chromium, page_server)
    count = await chromium.evaluate(page, "window.mutations.length")
    rng = random.Random(20261121)
    before = _counts(chromium)
    for round_ in range(24):
        # A few actions, each observed (patched on the last patch), then compared with a full read.
        for _ in range(rng.randint(1, 3)):
            for _ in range(rng.randint(1, 2)):
                await chromium.evaluate(page, f"mutate({rng.randrange(count)}, {rng.randrange(1, 10**6)})")
            patched = await chromium.layout(tab=page.target_id)
        full = await chromium.layout(tab=page.target_id, fresh="true")
        assert _nodes(patched) == _nodes(full), f"round {round_}: " + _first_difference(
            _nodes(patched), _nodes(full))
    after = _counts(chromium)
    # The comparison means something only if most observations were patches, not full reads
    # (a change at <body>, an overflow or a missing node falls back to a full read).
    patches = after["patches"] - before["patches"]
    assert patches >= 24, (before, after)


async def test_every_kind_of_change_is_patched_and_exact(chromium, page_server):
    page = await _open(chromium, page_server)
    count = await chromium.evaluate(page, "window.mutations.length")
    for index in range(count):
        before = _counts(chromium)["patches"]
        await chromium.evaluate(page, f"mutate({index}, {index + 7})")
        patched = await chromium.layout(tab=page.target_id)
        assert _counts(chromium)["patches"] == before + 1, f"mutation {index} was not patched"
        full = await chromium.layout(tab=page.target_id, fresh="true")
        assert _nodes(patched) == _nodes(full), f"mutation {index}: " + _first_difference(
            _nodes(patched), _nodes(full))


async def test_a_change_at_body_or_in_head_reads_the_whole_tree(chromium, page_server):
    page = await _open(chromium, page_server)
    for script in ("document.body.dataset.x = '1'", "document.title = 'renamed'"):
        before = _counts(chromium)
        await chromium.evaluate(page, script)
        layout = await chromium.layout(tab=page.target_id)
        after = _counts(chromium)
        assert after["captures"] == before["captures"] + 1, script
        assert after["patches"] == before["patches"], script
    root = _nodes(layout)[0]
    assert root["role"]["value"] == "RootWebArea" and root["name"]["value"] == "renamed"


async def test_unchanged_nodes_are_reused_and_the_spliced_json_is_exact(chromium, page_server):
    from sidecar.layout.encoding import LayoutEncoder, dumps

    page = await _open(chromium, page_server)
    first = await chromium.layout(tab=page.target_id)
    await chromium.evaluate(page, "document.querySelector('#buttons button').textContent = 'zz'")
    second = await chromium.layout(tab=page.target_id)
    old = {n["nodeId"]: n for n in _nodes(first)}
    reused = [n for n in _nodes(second) if old.get(n["nodeId"]) is n]
    # The renamed button and its text (and what moved with them) are new; most of the page is
    # the very same node objects, with their JSON.
    assert len(reused) > len(_nodes(second)) // 2
    assert [n for n in _nodes(second) if n["name"]["value"] == "zz"], "the rename is missing"
    for layout in (first, second):
        body = {"tabs": [dict(layout["tabs"][0])]}
        assert LayoutEncoder().encode(body).data == dumps(body)
