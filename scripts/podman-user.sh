#!/usr/bin/env bash
# A non-root user for rootless Podman (what tests/containers/test_podman.py builds and runs the
# images as): a system user with a home, 65536 subordinate UIDs and GIDs (newuidmap maps the
# image's UID 1000 into them) and Podman's overlay storage driver (the kernel's own overlay in a
# user namespace; without this file Podman 4.3 may pick vfs, which copies every layer in full).
# Installs Podman and what rootless needs when missing (scripts/lib.sh's PODMAN_PACKAGES).
#   scripts/podman-user.sh ensure [NAME]    (default desktopd-podman; run as root) prints its home
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"

[ "${1:-}" = ensure ] || { echo "usage: $0 ensure [NAME]" >&2; exit 2; }
name=${2:-desktopd-podman}
[ "$(id -u)" -eq 0 ] || { echo "$0: creating a user needs root" >&2; exit 1; }
ensure_apt_packages "${PODMAN_PACKAGES[@]}"

if ! id "$name" >/dev/null 2>&1; then
    useradd --system --create-home --home-dir "/var/lib/$name" --shell /usr/sbin/nologin "$name"
fi
home=$(getent passwd "$name" | cut -d: -f6)

# Subordinate IDs: a free range of 65536 above every range already given (system users get none
# from useradd).
touch /etc/subuid /etc/subgid
first_free() {  # first_free FILE
    awk -F: 'BEGIN { end = 100000 } { if ($2 + $3 > end) end = $2 + $3 } END { print end }' "$1"
}
if ! grep -q "^$name:" /etc/subuid 2>/dev/null; then
    start=$(first_free /etc/subuid)
    usermod --add-subuids "$start-$((start + 65535))" "$name"
fi
if ! grep -q "^$name:" /etc/subgid 2>/dev/null; then
    start=$(first_free /etc/subgid)
    usermod --add-subgids "$start-$((start + 65535))" "$name"
fi

config=$home/.config/containers
if [ ! -f "$config/storage.conf" ]; then
    install -d -o "$name" -g "$(id -gn "$name")" "$home/.config" "$config"
    printf '[storage]\ndriver = "overlay"\n' >"$config/storage.conf"
    chown "$name:" "$config/storage.conf"
fi
echo "$home"
