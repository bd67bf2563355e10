#!/usr/bin/env bash
# Run desktopd natively on a fresh Xvfb (no Docker): the README's "run it" command.
#
#   scripts/run-native.sh [--no-wm] [--with-chromium [URL...]]
#
# Installs missing Debian packages and the venv, starts Xvfb on a free display (-displayfd),
# a session D-Bus with the accessibility (AT-SPI) bus and registry on it (for
# /api/v1/accessibility; apps started with `source $workdir/session.env` show up there),
# xfwm4 as window manager (unless --no-wm), optionally the Chromium sidecar (port 8122, its tree
# on the bus), and desktopd in the foreground on 127.0.0.1:8080. Ctrl-C stops everything it
# started, by PID.
#
# Environment: DESKTOP_GEOMETRY (default 1920x1080x24), DESKTOPD_PORT (8080), SIDECAR_PORT (8122),
# DESKTOPD_TOKEN / DESKTOPD_TOKEN_FILE (optional bearer token), DESKTOPD_LOG_LEVEL.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"

with_wm=1
with_chromium=0
urls=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-wm) with_wm=0 ;;
        --with-chromium) with_chromium=1 ;;
        -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
        -*) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
        *)
            if [ "$with_chromium" != 1 ]; then
                echo "URLs go after --with-chromium" >&2; exit 2
            fi
            urls+=("$1") ;;
    esac
    shift
done

geometry=${DESKTOP_GEOMETRY:-1920x1080x24}
if ! [[ "$geometry" =~ ^[0-9]+x[0-9]+x(8|16|24|32)$ ]]; then
    echo "DESKTOP_GEOMETRY must look like 1920x1080x24, got '$geometry'" >&2
    exit 2
fi

ensure_apt_packages "${NATIVE_PACKAGES[@]}"
ensure_venv "$root"
python="$root/.venv/bin/python"

pids=()
workdir=$(mktemp -d /tmp/desktopd-native.XXXXXX)
cleanup() {
    local pid child i
    trap - INT TERM EXIT
    # Stop in reverse start order: clients first, the X server last. Direct children first
    # (xfwm4 under dbus-run-session), by PID.
    for ((i=${#pids[@]}-1; i>=0; i--)); do
        pid=${pids[$i]}
        for child in $(ps -o pid= --ppid "$pid" 2>/dev/null); do
            kill -TERM "$child" 2>/dev/null || true
        done
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${pids[@]}"; do
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$workdir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Xvfb writes its display number to the fd once it accepts connections: a fifo we read blocks
# until then (no polling).
mkfifo "$workdir/displayfd"
exec 3<>"$workdir/displayfd"
Xvfb -displayfd 3 -screen 0 "$geometry" -nolisten tcp -noreset +extension XTEST \
    >"$workdir/xvfb.log" 2>&1 &
pids+=($!)
if ! read -r -t 30 -u 3 number; then
    echo "Xvfb did not start; its log:" >&2
    cat "$workdir/xvfb.log" >&2
    exit 1
fi
exec 3<&-
export DISPLAY=":$number"
echo "Xvfb is up on DISPLAY=$DISPLAY ($geometry)" >&2

# The session bus and the accessibility bus, started here and stopped by PID (the registry too:
# left to D-Bus activation it would outlive us).
dbus-daemon --session --nofork --address="unix:path=$workdir/session-bus" --print-address=1 \
    >"$workdir/session-bus.address" 2>"$workdir/dbus-daemon.log" &
pids+=($!)
for _ in $(seq 100); do [ -s "$workdir/session-bus.address" ] && break; sleep 0.1; done
export DBUS_SESSION_BUS_ADDRESS="unix:path=$workdir/session-bus"
echo "export DISPLAY=$DISPLAY DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS" >"$workdir/session.env"
at_spi_libexec=/usr/libexec
"$at_spi_libexec/at-spi-bus-launcher" --launch-immediately >"$workdir/at-spi-bus.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
    dbus-send --session --print-reply --dest=org.a11y.Bus /org/a11y/bus org.a11y.Bus.GetAddress \
        >/dev/null 2>&1 && break
    sleep 0.1
done
"$at_spi_libexec/at-spi2-registryd" >"$workdir/at-spi2-registryd.log" 2>&1 &
pids+=($!)
echo "accessibility bus up; apps for the tree: source $workdir/session.env" >&2

if [ "$with_wm" = 1 ]; then
    if command -v xfwm4 >/dev/null; then
        # xfwm4 uses the session bus for xfconf; NO_AT_BRIDGE keeps the window manager itself
        # out of the accessibility tree.
        NO_AT_BRIDGE=1 xfwm4 --compositor=off >"$workdir/xfwm4.log" 2>&1 &
        pids+=($!)
    else
        echo "xfwm4 not installed: running without a window manager" >&2
    fi
fi

if [ "$with_chromium" = 1 ]; then
    (cd "$root" && exec "$python" -m sidecar --display "$DISPLAY" --host 127.0.0.1 \
        --port "${SIDECAR_PORT:-8122}" --accessibility "${urls[@]}") &
    pids+=($!)
    echo "Chromium sidecar on http://127.0.0.1:${SIDECAR_PORT:-8122}" >&2
fi

echo "desktopd on http://127.0.0.1:${DESKTOPD_PORT:-8080} (Ctrl-C stops everything)" >&2
(cd "$root" && exec "$python" -m desktopd --display "$DISPLAY" --host 127.0.0.1 \
    --port "${DESKTOPD_PORT:-8080}" --sidecar-url "http://127.0.0.1:${SIDECAR_PORT:-8122}") &
pids+=($!)
desktopd_pid=$!
# Foreground: this script lives as long as desktopd does.
set +e
wait "$desktopd_pid"
status=$?
set -e
exit "$status"
