#!/bin/bash
# Build-time only (images/desktop/Dockerfile's `agent` stage): install the `agent` extra's pins
# (Playwright, the MCP SDK) into a venv that sees Debian's packages, so only what Debian lacks
# comes from wheels. The wheels come from the host's wheelhouse when scripts/wheelhouse.sh
# prepared one, else from PyPI, verified against the CA bundle handed over in build-ca/ when
# there is one (a host behind a TLS-intercepting proxy: scripts/up.sh copies its bundle there).
# When neither works the build stops with one line that names the fix; pip's own log is not
# shown (it is long and says neither).
#   install-agent.sh VENV REQUIREMENTS WHEELHOUSE_DIR CA_DIR
set -euo pipefail
# shellcheck source=pip-failure.sh
. "$(dirname "$0")/pip-failure.sh"
venv=$1 requirements=$2 wheelhouse=$3 ca_dir=$4

python3 -m venv --system-site-packages "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check --no-cache-dir --no-input)

# Binary wheels only, as scripts/wheelhouse.sh downloads: nothing is compiled in the image.
pip_install_pinned chromium "agent wheels" '*.whl' "$requirements" "$wheelhouse" "$ca_dir" \
    "${pip[@]}" install --only-binary=:all: -r "$requirements"
# The image runs what it needs; these checks fail the build, not the first request.
"$venv/bin/python" -c 'import playwright.async_api, mcp.server.fastmcp'
"$venv/lib/python3.11/site-packages/playwright/driver/node" --version >/dev/null
# Nothing installs into the venv at run time: pip and setuptools (23 MB) stay out of the image.
"${pip[@]}" uninstall --quiet --yes pip setuptools
