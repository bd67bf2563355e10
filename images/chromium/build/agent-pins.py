"""Print pyproject.toml's `agent` extra (or the extra named second), one requirement a line: the one place that pins the
Chromium image's Playwright and MCP SDK. scripts/wheelhouse.sh (on the host) and the image's
build (images/desktop/Dockerfile, stage "agent") both read the pins through this script.
    python3 agent-pins.py PYPROJECT_TOML [EXTRA]"""

import sys
import tomllib

with open(sys.argv[1], "rb") as project:
    print("\n".join(tomllib.load(project)["project"]["optional-dependencies"][sys.argv[2] if len(sys.argv) > 2 else "agent"]))
