#!/usr/bin/env bash
# The test command. On a fresh Debian machine it installs what the suite needs (Debian packages,
# a venv), starts dockerd if no engine answers (and stops it afterwards), then runs pytest.
#   scripts/test.sh [pytest args...]
# SKIP_DOCKER=1 leaves out the container tests (never under CI=true).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"

ensure_apt_packages "${NATIVE_PACKAGES[@]}"
if [ "${SKIP_DOCKER:-0}" != 1 ] || [ "${CI:-}" = true ]; then
    ensure_apt_packages "${DOCKER_PACKAGES[@]}" "${PODMAN_PACKAGES[@]}"
fi
ensure_venv "$root"
ensure_cdp_clients "$root"   # Puppeteer and browser-use, for the CDP client tests
ensure_openapi_client_venv "$root"   # generates clients from the OpenAPI documents

if [ "${SKIP_DOCKER:-0}" != 1 ] || [ "${CI:-}" = true ]; then
    ensure_osworld_venv "$root"   # OSWorld's DesktopEnv, for the container tests of tests/osworld
fi

started_dockerd=""
cleanup() {
    if [ -n "$started_dockerd" ]; then
        "$root/scripts/dockerd.sh" stop "$started_dockerd" || true
    fi
}
trap cleanup EXIT

if [ "${SKIP_DOCKER:-0}" != 1 ] || [ "${CI:-}" = true ]; then
    started_dockerd=$("$root/scripts/dockerd.sh" ensure)
fi

cd "$root"
# The linter and the type checker over the product code (settings in pyproject.toml): a finding
# fails the run before any test starts.
"$root/.venv/bin/ruff" check
"$root/.venv/bin/mypy"
marker_args=()
if [ "${SKIP_DOCKER:-0}" = 1 ] && [ "${CI:-}" != true ]; then
    marker_args=(-m "not docker")
fi
set +e
"$root/.venv/bin/python" -m pytest "${marker_args[@]}" "$@"
rc=$?
set -e
# pytest's 5 means "no tests collected": that is a failure of the suite, say so plainly.
if [ "$rc" -eq 5 ]; then
    echo "pytest collected no tests" >&2
fi
exit "$rc"
