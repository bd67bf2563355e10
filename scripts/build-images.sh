#!/usr/bin/env bash
# Build the images: the base (bootstrapped from Debian's packages when absent), then the desktop
# and Chromium images, the targets of images/desktop/Dockerfile (both on its "system" stage, and
# both copy the code last, so code changes rebuild no packages).
#   scripts/build-images.sh [desktop|chromium|all]     (default all)
# Env: IMAGE_PREFIX (default desktopd), IMAGE_TAG (default latest; the version tag is added too),
#      BASE_MIRROR (passed to bootstrap-base.sh), DOCKER_BUILD_ARGS (extra `docker build` args).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

what=${1:-all}
prefix=${IMAGE_PREFIX:-desktopd}
tag=${IMAGE_TAG:-latest}
version=$(sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml | head -n1)
revision=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
desktop_image=$prefix/desktop:$tag
chromium_image=$prefix/chromium:$tag
base_image=$(sed -n 's/^ARG BASE_IMAGE=//p' images/desktop/Dockerfile | head -n1)

# Builds run on the host network: RUN apt-get must reach the mirror the host reaches, and the
# bridge network's DNS depends on the host's resolver setup (see images/desktop/Dockerfile).
build() {  # build DOCKERFILE IMAGE [extra args]
    local dockerfile=$1 image=$2
    shift 2
    echo "building $image from $dockerfile" >&2
    # shellcheck disable=SC2086  # DOCKER_BUILD_ARGS is a list of words on purpose
    docker build --network host -f "$dockerfile" -t "$image" -t "${image%:*}:$version" \
        --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
        ${DOCKER_BUILD_ARGS:-} "$@" .
}

case "$what" in
all | desktop | chromium) ;;
*)
    echo "usage: $0 [desktop|chromium|all]" >&2
    exit 2
    ;;
esac

if ! docker image inspect "$base_image" >/dev/null 2>&1; then
    "$root/scripts/bootstrap-base.sh"
fi
# Both images install pyautogui's wheels (and the Chromium image Playwright and the MCP SDK)
# offline from these.
"$root/scripts/wheelhouse.sh"
if [ "$what" != chromium ]; then
    build images/desktop/Dockerfile "$desktop_image" --target desktop --build-arg "BASE_IMAGE=$base_image"
fi
if [ "$what" != desktop ]; then
    build images/desktop/Dockerfile "$chromium_image" --target chromium --build-arg "BASE_IMAGE=$base_image"
fi
docker image ls --format '{{.Repository}}:{{.Tag}}\t{{.Size}}' \
    | grep -E "^($prefix/(desktop|chromium)|${base_image%:*}):" >&2 || true
