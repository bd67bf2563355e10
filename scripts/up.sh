#!/usr/bin/env bash
# The main job: `docker compose up` on a fresh Debian host. It installs Docker and Compose when
# missing, starts dockerd when no engine answers (left running, log in $DESKTOPD_STATE_DIR),
# builds the debian:bookworm-slim base locally when absent (no registry needed), hands the host's
# CA bundle to the Chromium image's build (images/chromium/build-ca/: its pip then verifies PyPI
# behind a TLS-intercepting proxy too), then runs `docker compose up --build` (v2 when present,
# else docker-compose 1.29). Arguments pass through:
#   scripts/up.sh            # foreground, Ctrl-C stops the stack
#   scripts/up.sh -d         # detached; `docker compose down` (or docker-compose down) stops it
# On a host that already has Docker and the base image, and whose builds reach PyPI, plain
# `docker compose up --build` is the same (docs/images.md, "First run").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"

if ! command -v docker >/dev/null 2>&1 || ! compose_command >/dev/null; then
    ensure_apt_packages "${DOCKER_PACKAGES[@]}"
fi
pid=$("$root/scripts/dockerd.sh" ensure)
if [ -n "$pid" ]; then
    echo "up.sh: started dockerd (pid $pid); it keeps running after the stack stops" >&2
fi
base_tag=$(sed -n 's/^ARG BASE_IMAGE=//p' "$root/images/desktop/Dockerfile" | head -n1)
if ! docker image inspect "$base_tag" >/dev/null 2>&1; then
    ensure_apt_packages debootstrap
    "$root/scripts/bootstrap-base.sh"
fi

hand_build_ca "$root"

cd "$root"
read -r -a compose <<<"$(compose_command)"
exec "${compose[@]}" up --build "$@"
