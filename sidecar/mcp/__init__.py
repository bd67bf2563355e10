"""An MCP server (the official ``mcp`` SDK) over the sidecar's and desktopd's HTTP APIs: stdio
(``python -m sidecar.mcp``) and streamable HTTP at the sidecar's ``/mcp`` (http_mount.py).

Its tools are HTTP clients of the two services (tools.py), so the same server works inside the
container and from anywhere that reaches the two ports."""
