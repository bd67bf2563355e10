"""Refactoring moves no endpoint: both OpenAPI documents equal the reviewed golden file.

A change meant to alter the API rewrites it with `python3 tools/openapi_golden.py --write`, so
the change shows in the diff beside the code that made it."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("openapi_golden", ROOT / "tools" / "openapi_golden.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_openapi_documents_equal_the_golden_file():
    tool = _tool()
    expected = tool.GOLDEN.read_text()
    actual = tool.documents_text()
    if actual != expected:
        diff = "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                            "golden", "generated", n=2))
        raise AssertionError("the OpenAPI documents moved; if meant, run "
                             f"tools/openapi_golden.py --write\n{diff[:6000]}")
