#!/usr/bin/env python3
"""Both services' OpenAPI documents as one sorted JSON text, the golden file
tests/architecture/golden/openapi.json is compared with.

Usage: python3 tools/openapi_golden.py [--write]
  without --write: print the documents; with it: replace the golden file (an API change
  that is meant, reviewed in its diff).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "architecture" / "golden" / "openapi.json"


def documents_text() -> str:
    sys.path.insert(0, str(ROOT))
    from desktopd.meta.openapi import build_openapi
    from desktopd.routes import ROUTES
    from sidecar.server.routes import OPENAPI_BODY
    documents = {"desktopd": build_openapi(ROUTES), "sidecar": json.loads(OPENAPI_BODY)}
    return json.dumps(documents, sort_keys=True, indent=1) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="replace the golden file")
    text = documents_text()
    if parser.parse_args().write:
        GOLDEN.write_text(text)
        print(f"wrote {GOLDEN.relative_to(ROOT)} ({len(text)} characters)")
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
