#!/usr/bin/env bash
# The main job: the Chromium desktop of compose.yaml, up on a fresh Debian host. The engine is
# Docker when its command is installed, else Podman when that is (CONTAINER_ENGINE=docker|podman
# to choose); with neither, Docker and Compose are installed. It says on its first line which
# engine and which compose it uses:
#   Docker: `docker compose up --build` with Compose v2 when present, else `docker-compose` 1.29
#     (Debian's; the same compose.yaml). It starts dockerd when no engine answers (left running,
#     log in $DESKTOPD_STATE_DIR).
#   Podman: no compose (podman-compose is not used: one more package for one service); the image
#     is built by scripts/build-images.sh and run by `podman run` with compose.yaml's settings
#     (ports on PUBLISH_ADDRESS, shm, no-new-privileges, the profiles volume, the environment).
#     DESKTOPD_NETWORK=host runs it on the host's network instead of publishing ports (rootless
#     Podman where slirp4netns cannot work): the services then listen on PUBLISH_ADDRESS at the
#     *_PUBLISHED_PORT ports themselves (the sidecar's start page at START_PAGES_PUBLISHED_PORT,
#     default the sidecar's + 2), on an X display no other X server of the host's network uses
#     (DESKTOPD_DISPLAY to choose). Rootless works; the base image must then be in the user's
#     Podman already (scripts/bootstrap-base.sh says how).
# Both: builds the debian:bookworm-slim base locally when absent (no registry needed; as root),
# hands the host's CA bundle to the Chromium image's build (images/chromium/build-ca/: its pip then
# verifies PyPI behind a TLS-intercepting proxy too). Arguments pass through to `compose up`;
# with Podman only -d is taken:
#   scripts/up.sh            # foreground, Ctrl-C stops the stack
#   scripts/up.sh -d         # detached; `docker compose down` (or docker-compose down, or
#                            # podman rm -f desktopd) stops it
# On a host that already has Docker and the base image, and whose builds reach PyPI, plain
# `docker compose up --build` is the same (docs/images.md, "First run"; Podman: "Podman").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"

engine=$(container_engine) || engine=docker   # neither installed: Docker is installed below
base_tag=$(sed -n 's/^ARG BASE_IMAGE=//p' "$root/images/desktop/Dockerfile" | head -n1)

# compose.yaml's service, run by Podman: the same image, ports, settings and volume.
podman_up() {
    local detach=() arg
    for arg in "$@"; do
        case "$arg" in
        -d | --detach) detach=(-d) ;;
        *) echo "up.sh: with Podman only -d is understood, not '$arg'" >&2; exit 2 ;;
        esac
    done
    case "${DESKTOPD_NETWORK:-}" in
    '' | host) ;;
    *) echo "up.sh: DESKTOPD_NETWORK must be empty or host, got '$DESKTOPD_NETWORK'" >&2; exit 2 ;;
    esac
    local name=${DESKTOPD_CONTAINER:-desktopd} address=${PUBLISH_ADDRESS:-127.0.0.1}
    local target=${DESKTOPD_IMAGE_TARGET:-chromium}
    case "$target" in
    chromium | chromium-full) ;;
    *) echo "up.sh: DESKTOPD_IMAGE_TARGET must be chromium or chromium-full, got '$target'" >&2; exit 2 ;;
    esac
    local image=localhost/desktopd/$target:${DESKTOPD_IMAGE_TAG:-latest}
    CONTAINER_ENGINE=podman IMAGE_TAG=${DESKTOPD_IMAGE_TAG:-latest} "$root/scripts/build-images.sh" "$target"
    local run=(podman run "${detach[@]}" --replace --name "$name" --shm-size 1g
        --security-opt no-new-privileges --restart unless-stopped
        -v desktopd-profiles:/var/lib/desktopd/profiles
        -e "DESKTOPD_INSECURE=${DESKTOPD_INSECURE:-1}" -e "DESKTOPD_PUBLISH_ADDRESS=$address")
    # The rest only when set here: the image's defaults are compose.yaml's.
    local var
    for var in WIDTH HEIGHT DEPTH SIDECAR_URLS SIDECAR_KIOSK VNC_PASSWORD VNC_PASSWORD_FILE \
        DESKTOPD_TOKEN DESKTOPD_TOKEN_FILE SIDECAR_TOKEN SIDECAR_TOKEN_FILE SIDECAR_WINDOW_SIZE \
        CHROMIUM_FLAGS SIDECAR_BOUNDS_SPACE SIDECAR_TAB_ORDER SIDECAR_EXPOSE_CDP SIDECAR_PLAYWRIGHT; do
        if [ -n "${!var:-}" ]; then run+=(-e "$var"); fi
    done
    local desktopd_port=${DESKTOPD_PUBLISHED_PORT:-8080} sidecar_port=${SIDECAR_PUBLISHED_PORT:-8122}
    local novnc_port=${NOVNC_PUBLISHED_PORT:-6080} vnc_port=${VNC_PUBLISHED_PORT:-5900}
    case "${DESKTOPD_NETWORK:-}" in
    '')
        run+=(-p "$address:$desktopd_port:8080" -p "$address:$sidecar_port:8122"
            -p "$address:$novnc_port:6080" -p "$address:$vnc_port:5900") ;;
    host)
        # Nothing is published: each service listens on the host's address and port itself. X
        # clients try a display's abstract socket before its socket file, and abstract sockets
        # belong to the network namespace: on the host's, display :0 may be another X server's.
        # The image's Xvfb listens on no abstract socket; its display is one no other uses.
        local display=${DESKTOPD_DISPLAY:-}
        if [ -z "$display" ]; then
            display=10
            while grep -qE "@/tmp/\.X11-unix/X$display\$" /proc/net/unix; do display=$((display + 1)); done
            display=:$display
        fi
        run+=(--network host -e "DISPLAY=$display" -e "DESKTOPD_HOST=$address" -e "SIDECAR_HOST=$address"
            -e "VNC_HOST=$address" -e "NOVNC_HOST=$address"
            -e "DESKTOPD_PORT=$desktopd_port" -e "SIDECAR_PORT=$sidecar_port"
            -e "NOVNC_PORT=$novnc_port" -e "VNC_PORT=$vnc_port")
        # Where the image's sidecar serves its start page on 127.0.0.1 (SIDECAR_START_PAGES_PORT,
        # 8124 by default: next to the sidecar's), moved with it, and the start URL that names it.
        local pages_port=${START_PAGES_PUBLISHED_PORT:-$((sidecar_port + 2))} default_urls
        run+=(-e "SIDECAR_START_PAGES_PORT=$pages_port")
        default_urls=$(podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$image" 2>/dev/null \
            | sed -n 's/^SIDECAR_URLS=//p')
        if [ -z "${SIDECAR_URLS:-}" ] && [[ $default_urls == http://127.0.0.1:8124/* ]]; then
            run+=(-e "SIDECAR_URLS=http://127.0.0.1:$pages_port/${default_urls#http://127.0.0.1:8124/}")
        fi ;;
    esac
    echo "up.sh: desktopd on http://$address:$desktopd_port, sidecar on http://$address:$sidecar_port," \
        "noVNC on http://$address:$novnc_port (podman ps shows it; podman rm -f $name stops it)" >&2
    exec "${run[@]}" "$image"
}

if [ "$engine" = podman ]; then
    echo "up.sh: engine podman ($(podman --version)), no compose: scripts/build-images.sh +" \
        "podman run with compose.yaml's settings${DESKTOPD_NETWORK:+ on the $DESKTOPD_NETWORK network}" >&2
    if ! podman image inspect "$base_tag" >/dev/null 2>&1; then
        if [ "$(id -u)" -eq 0 ]; then ensure_apt_packages debootstrap; fi
        CONTAINER_ENGINE=podman "$root/scripts/bootstrap-base.sh"
    fi
    hand_build_ca "$root"
    cd "$root"
    podman_up "$@"
fi

if ! command -v docker >/dev/null 2>&1 || ! compose_command >/dev/null; then
    ensure_apt_packages "${DOCKER_PACKAGES[@]}"
fi
pid=$("$root/scripts/dockerd.sh" ensure)
if [ -n "$pid" ]; then
    echo "up.sh: started dockerd (pid $pid); it keeps running after the stack stops" >&2
fi
if ! docker image inspect "$base_tag" >/dev/null 2>&1; then
    ensure_apt_packages debootstrap
    "$root/scripts/bootstrap-base.sh"
fi

hand_build_ca "$root"

cd "$root"
read -r -a compose <<<"$(compose_command)"
if [ "${compose[*]}" = "docker compose" ]; then
    echo "up.sh: engine docker, compose: docker compose (Compose v2)" >&2
else
    # The README's `docker compose ...` lines are `docker-compose ...` on such a host.
    echo "up.sh: engine docker, compose: docker-compose $(docker-compose version --short 2>/dev/null)" \
        "(no Compose v2 here: type docker-compose where the docs say docker compose)" >&2
fi
exec "${compose[@]}" up --build "$@"
