# Shared shell helpers for scripts/. Source it; it defines functions only.

# Install Debian packages that are not installed yet (idempotent, quiet when nothing is missing).
ensure_apt_packages() {
    local missing=()
    local pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing Debian packages: ${missing[*]} (run as root or install them)" >&2
        return 1
    fi
    echo "installing Debian packages: ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Create .venv (once) and install the project with the extras its tests use (test; kit: the
# harness kit; fleet: Ray and the Docker client, for tests/fleet's real cluster).
# OSWorld's desktop_env from PyPI, pinned (docs/osworld.md).
OSWORLD_CLIENT="desktop-env==1.0.2"

ensure_venv() {
    local root=$1 python=${PYTHON:-python3}
    if [ ! -x "$root/.venv/bin/python" ]; then
        "$python" -m venv "$root/.venv"
    fi
    local stamp="$root/.venv/.installed-$(sha256sum "$root/pyproject.toml" | cut -c1-16)"
    if [ ! -f "$stamp" ]; then
        "$root/.venv/bin/python" -m pip install -q --upgrade pip >/dev/null
        "$root/.venv/bin/python" -m pip install -q -e "$root[test,kit,fleet,agent,osworld,dev,datasets,png]"
        # OSWorld's client (tests/osworld, desktopd_osworld) without its dependencies, which are
        # its whole ML stack; the `osworld` extra holds what the parts we use import.
        "$root/.venv/bin/python" -m pip install -q --no-deps "$OSWORLD_CLIENT"
        # The `ocr` extra (ONNX Runtime and numpy, for desktopd/vision's recogniser), each without
        # its dependencies as in the Chromium image: listed among the extras above, pip would add
        # onnxruntime's coloredlogs, flatbuffers and sympy, which running a model never imports.
        "$root/.venv/bin/python" -m pip install -q --no-deps \
            -r <("$root/.venv/bin/python" "$root/images/chromium/build/agent-pins.py" "$root/pyproject.toml" ocr)
        touch "$stamp"
    fi
}

# A second venv, .venv-osworld, for OSWorld's own DesktopEnv (tests/osworld/test_desktop_env.py):
# DesktopEnv imports OSWorld's whole evaluator package, whose metrics import easyocr and so torch,
# so it holds desktop-env with all its dependencies, every version pinned in
# scripts/osworld-requirements.txt (about 6 GB with torch's CUDA libraries). Made once, stamped.
ensure_osworld_venv() {
    local root=$1 python=${PYTHON:-python3}
    local venv="$root/.venv-osworld" pins="$root/scripts/osworld-requirements.txt"
    if [ ! -x "$venv/bin/python" ]; then
        "$python" -m venv "$venv"
    fi
    local stamp="$venv/.installed-$(sha256sum "$pins" | cut -c1-16)"
    if [ ! -f "$stamp" ]; then
        "$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
        "$venv/bin/python" -m pip install -q -r "$pins"
        touch "$stamp"
    fi
}

# CDP clients nobody here wrote, which the tests drive against the sidecar's /cdp: Puppeteer
# (puppeteer-core from npm, pinned with its lock in scripts/cdp-clients/; it never downloads a
# browser) in .state/cdp-clients, for tests/agent_live/test_cdp_clients.py; browser-use from
# PyPI in a venv of its own, .venv-browser-use (its dependencies are a whole LLM stack that the
# project's venv does not want), pinned in scripts/browser-use-requirements.txt and installed
# without a resolver run, for tests/containers/test_cdp_clients_image.py. Made once, stamped.
ensure_cdp_clients() {
    local root=$1 python=${PYTHON:-python3}
    local npm_dir="$root/.state/cdp-clients" pins="$root/scripts/cdp-clients"
    local stamp
    stamp="$npm_dir/.installed-$(cat "$pins/package.json" "$pins/package-lock.json" | sha256sum | cut -c1-16)"
    if [ ! -f "$stamp" ]; then
        ensure_node
        mkdir -p "$npm_dir"
        cp "$pins/package.json" "$pins/package-lock.json" "$npm_dir/"
        (cd "$npm_dir" && npm ci --no-audit --no-fund --silent)
        touch "$stamp"
    fi
    local venv="$root/.venv-browser-use" requirements="$root/scripts/browser-use-requirements.txt"
    if [ ! -x "$venv/bin/python" ]; then
        "$python" -m venv "$venv"
    fi
    stamp="$venv/.installed-$(sha256sum "$requirements" | cut -c1-16)"
    if [ ! -f "$stamp" ]; then
        "$venv/bin/python" -m pip install -q --no-deps -r "$requirements"
        touch "$stamp"
    fi
}

# A venv of its own, .venv-openapi-client, for openapi-python-client (tests/compat/test_openapi_documents.py
# generates a client from each daemon's OpenAPI document and imports it): its own because it pins
# httpx below the version the main venv's MCP SDK takes. About 85 MB. Made once, stamped.
OPENAPI_CLIENT_GENERATOR="openapi-python-client==0.29.1"

ensure_openapi_client_venv() {
    local root=$1 python=${PYTHON:-python3}
    local venv="$root/.venv-openapi-client"
    if [ ! -x "$venv/bin/python" ]; then
        "$python" -m venv "$venv"
    fi
    local stamp="$venv/.installed-$(echo "$OPENAPI_CLIENT_GENERATOR" | sha256sum | cut -c1-16)"
    if [ ! -f "$stamp" ]; then
        "$venv/bin/python" -m pip install -q --upgrade pip >/dev/null
        "$venv/bin/python" -m pip install -q "$OPENAPI_CLIENT_GENERATOR"
        touch "$stamp"
    fi
}

# Packages the native stack and the X11/Chromium tests need.
NATIVE_PACKAGES=(
    xvfb x11-utils x11-xserver-utils xdotool xterm xfwm4 python3-venv python3-tk
    fonts-dejavu-core fonts-noto-cjk fonts-noto-color-emoji imagemagick chromium
    libx11-6 libxext6 libxfixes3 xclip dbus-daemon
    x11-apps  # xwd: a baseline of benchmarks/bench_desktopd.py
    ffmpeg  # POST /api/v1/recording/start (x11grab) and its tests (ffprobe)
    libtesseract5 tesseract-ocr-eng  # /api/v1/vision/* (OCR) and tests/vision
    # bookworm's Python libraries, which the images run on: tests start the sidecar with them too
    python3-aiohttp python3-websockets python3-xlib python3-pil
    # the accessibility bus and real GTK/XFCE applications for /api/v1/accessibility's tests and
    # benchmarks/bench_atspi.py (its baseline walks the tree with pyatspi under Debian's python3)
    at-spi2-core python3-dbus-next python3-pyatspi gir1.2-atspi-2.0 mousepad thunar xfce4-appfinder
    sway xkb-data  # the Sway backend's integration tests (tests/desktopd_sway/)
)
# node and npm for benchmarks/bench_agent.py (Playwright MCP), installed only when missing: a host's
# own Node.js (e.g. NodeSource's, which brings npm) conflicts with Debian's npm package.
ensure_node() {
    if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
        return 0
    fi
    ensure_apt_packages nodejs npm
}

# Packages the container tests need on the host.
DOCKER_PACKAGES=(docker.io docker-compose debootstrap curl jq)   # curl, jq: the docs' examples (tests/containers/test_doc_examples.py)

# Packages rootless Podman needs on Debian (podman 4.3): newuidmap/newgidmap for the user's
# subordinate IDs, slirp4netns for its network namespace, fuse-overlayfs where the kernel's own
# overlay is not allowed in a user namespace (docs/images.md, "Podman").
PODMAN_PACKAGES=(podman uidmap slirp4netns fuse-overlayfs)

# The container engine the scripts drive: CONTAINER_ENGINE when set (docker or podman), else
# docker when its command is installed, else podman when that is, else nothing (exit 1).
container_engine() {
    case "${CONTAINER_ENGINE:-}" in
    docker | podman) echo "$CONTAINER_ENGINE"; return 0 ;;
    '') ;;
    *) echo "CONTAINER_ENGINE must be docker or podman, got '$CONTAINER_ENGINE'" >&2; return 2 ;;
    esac
    if command -v docker >/dev/null 2>&1; then
        echo docker
    elif command -v podman >/dev/null 2>&1; then
        echo podman
    else
        return 1
    fi
}

# The compose command this host has: "docker compose" (v2) or "docker-compose" (1.29).
compose_command() {
    if docker compose version >/dev/null 2>&1; then
        echo "docker compose"
    elif command -v docker-compose >/dev/null 2>&1; then
        echo "docker-compose"
    else
        return 1
    fi
}

# Hand this host's CA bundle to the Chromium image's build (the one documented way: a PEM file at
# images/chromium/build-ca/ca-certificates.crt, git-ignored), so that pip in the build verifies
# PyPI wherever the host's own tools do, behind a TLS-intercepting proxy too. The bundle is the
# one the host's pip uses (PIP_CERT, REQUESTS_CA_BUNDLE, SSL_CERT_FILE) or Debian's. Rewritten
# only when it changed: the build's cache keys on the file's content.
hand_build_ca() {
    local root=$1 bundle
    for bundle in "${PIP_CERT:-}" "${REQUESTS_CA_BUNDLE:-}" "${SSL_CERT_FILE:-}" /etc/ssl/certs/ca-certificates.crt; do
        if [ -n "$bundle" ] && [ -s "$bundle" ]; then
            local dest=$root/images/chromium/build-ca/ca-certificates.crt
            cmp -s "$bundle" "$dest" || cp "$bundle" "$dest"
            return 0
        fi
    done
    echo "no CA bundle on this host to hand to the image build (Debian: apt-get install ca-certificates)" >&2
    return 1
}
