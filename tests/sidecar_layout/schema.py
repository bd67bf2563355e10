"""layout_schema.jsonc (JSON Schema with // comment lines) loaded for validation."""

from __future__ import annotations

import functools
import json
from typing import Any

from testbed.children import ROOT


@functools.lru_cache(maxsize=1)
def layout_schema() -> dict[str, Any]:
    text = (ROOT / "layout_schema.jsonc").read_text()
    # Comments are whole lines starting with //; strings may contain "//" (URLs), so only those.
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    return json.loads("\n".join(lines))


def validate_layout(body: Any) -> None:
    from testbed.capability import require

    try:
        import jsonschema
    except ImportError:
        require(False, "jsonschema (pip install -e .[test])")
        raise

    from sidecar.layout.output.encoding import dumps

    # What a client receives: an in-process layout is validated in its JSON form.
    jsonschema.Draft202012Validator(layout_schema()).validate(json.loads(dumps(body)))
