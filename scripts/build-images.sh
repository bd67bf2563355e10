#!/usr/bin/env bash
# Build the images: the base (bootstrapped from Debian's packages when absent), then the desktop
# and Chromium images, the targets of images/desktop/Dockerfile (all on its "system" stage, and
# all copy the code last, so code changes rebuild no packages). chromium-full is the Chromium
# image plus what only some users need (docs/images.md, "Image sizes").
#   scripts/build-images.sh [desktop|chromium|chromium-full|all]     (default all: the three)
# Env: IMAGE_PREFIX (default desktopd), IMAGE_TAG (default latest; the version tag is added too),
#      BASE_MIRROR (passed to bootstrap-base.sh), DOCKER_BUILD_ARGS (extra `docker build` args),
#      CONTAINER_ENGINE (docker or podman; default docker when installed, else podman: see
#      scripts/lib.sh's container_engine; Podman names the images localhost/desktopd/...),
#      SKIP_WHEELHOUSE=1 (build from images/chromium/wheelhouse/ as it is: one filled elsewhere).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"
engine=$(container_engine) || { echo "no container engine: install docker.io or podman" >&2; exit 1; }
engine_args=()
if [ "$engine" = podman ]; then
    # Podman's default OCI format drops HEALTHCHECK and SHELL; Docker's format keeps both.
    engine_args=(--format docker)
fi

what=${1:-all}
prefix=${IMAGE_PREFIX:-desktopd}
tag=${IMAGE_TAG:-latest}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml | head -n1)
revision=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
desktop_image=$prefix/desktop:$tag
chromium_image=$prefix/chromium:$tag
chromium_full_image=$prefix/chromium-full:$tag
base_image=$(sed -n 's/^ARG BASE_IMAGE=//p' images/desktop/Dockerfile | head -n1)

# Builds run on the host network: RUN apt-get must reach the mirror the host reaches, and the
# bridge network's DNS depends on the host's resolver setup (see images/desktop/Dockerfile).
build() {  # build DOCKERFILE IMAGE [extra args]
    local dockerfile=$1 image=$2
    shift 2
    echo "building $image from $dockerfile with $engine" >&2
    # shellcheck disable=SC2086  # DOCKER_BUILD_ARGS is a list of words on purpose
    "$engine" build "${engine_args[@]}" --network host -f "$dockerfile" -t "$image" -t "${image%:*}:$version" \
        --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
        ${DOCKER_BUILD_ARGS:-} "$@" .
}

case "$what" in
all | desktop | chromium | chromium-full) ;;
*)
    echo "usage: $0 [desktop|chromium|chromium-full|all]" >&2
    exit 2
    ;;
esac

if ! "$engine" image inspect "$base_image" >/dev/null 2>&1; then
    CONTAINER_ENGINE=$engine "$root/scripts/bootstrap-base.sh"
fi
# Both images install pyautogui's wheels (and the Chromium image Playwright and the MCP SDK)
# offline from these.
if [ "${SKIP_WHEELHOUSE:-0}" != 1 ]; then
    "$root/scripts/wheelhouse.sh"
fi
if [ "$what" = all ] || [ "$what" = desktop ]; then
    build images/desktop/Dockerfile "$desktop_image" --target desktop --build-arg "BASE_IMAGE=$base_image"
fi
if [ "$what" = all ] || [ "$what" = chromium ]; then
    build images/desktop/Dockerfile "$chromium_image" --target chromium --build-arg "BASE_IMAGE=$base_image"
fi
if [ "$what" = all ] || [ "$what" = chromium-full ]; then
    build images/desktop/Dockerfile "$chromium_full_image" --target chromium-full --build-arg "BASE_IMAGE=$base_image"
fi
"$engine" image ls --format '{{.Repository}}:{{.Tag}}\t{{.Size}}' \
    | grep -E "^(localhost/)?($prefix/(desktop|chromium|chromium-full)|${base_image%:*}):" >&2 || true
