"""One owner of the browser's targets: only the tracker (sidecar/cdp/targets.py) sends the
commands that open, attach, show, navigate or close a target or a browser context, and only it
hears pages attach (its attach pipeline, sidecar/cdp/attach.py, sets every session up). Others
ask it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OWNER = "sidecar/cdp/targets.py"
LIFECYCLE = frozenset({
    "Target.createTarget", "Target.closeTarget", "Target.activateTarget", "Target.attachToTarget",
    "Target.detachFromTarget", "Target.createBrowserContext", "Target.disposeBrowserContext",
    "Target.setAutoAttach", "Target.setDiscoverTargets",
    "Page.navigate", "Page.reload", "Page.navigateToHistoryEntry", "Page.close",
})
SENDS = frozenset({"send", "send_raw"})
LISTENS = frozenset({"on", "events"})


def _first_literal(call: ast.Call) -> str | None:
    first = call.args[0] if call.args else None
    return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None


def lifecycle_calls(source: str) -> list[str]:
    """``line: method`` for each call sending a lifecycle command or listening for attaches."""
    found: list[tuple[int, str | None]] = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        method = _first_literal(node)
        sends = node.func.attr in SENDS and method in LIFECYCLE
        listens = node.func.attr in LISTENS and method == "Target.attachedToTarget"
        if sends or listens:
            found.append((node.lineno, method))
    return [f"{line}: {method}" for line, method in sorted(found)]


def test_the_scanner_sees_sends_and_attach_listeners() -> None:
    source = ('async def f(conn, page):\n'
              '    await conn.send("Target.createTarget", {"url": "about:blank"}, timeout=1)\n'
              '    await page.send_raw("Page.navigate", {"url": "x"})\n'
              '    await page.send("Runtime.evaluate", {"expression": "0"})\n'
              '    conn.on("Target.attachedToTarget", print)\n'
              '    if method == "Target.closeTarget": pass\n')
    assert lifecycle_calls(source) == ["2: Target.createTarget", "3: Page.navigate",
                                       "5: Target.attachedToTarget"]


def test_only_the_tracker_sends_target_lifecycle_commands() -> None:
    senders = {}
    for path in sorted((ROOT / "sidecar").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        calls = lifecycle_calls(path.read_text())
        if calls and name != OWNER:
            senders[name] = calls
    assert senders == {}
