#!/usr/bin/env bash
# Build the base image (debian:bookworm-slim by default) from Debian's packages, for hosts that
# cannot pull from a registry: debootstrap --variant=minbase, slimmed the way the official slim
# image is (no docs, man pages or locales; apt lists cleaned), then `docker import` (or
# `podman import` where the scripts use Podman: CONTAINER_ENGINE, scripts/lib.sh).
#   scripts/bootstrap-base.sh [MIRROR_URL]
# MIRROR_URL (or env BASE_MIRROR) defaults to the Debian mirror this host's apt uses, so an
# air-gapped host with a local mirror only has to point its apt (or this argument) at it.
# BASE_SECURITY_MIRROR sets the security archive written into the image's apt sources.
# The tag comes from images/desktop/Dockerfile's `ARG BASE_IMAGE=` (override: env BASE_IMAGE).
# Idempotent: does nothing when the tag already exists (FORCE=1 rebuilds).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$root/scripts/lib.sh"
engine=$(container_engine) || { echo "no container engine: install docker.io or podman" >&2; exit 1; }

base_tag=${BASE_IMAGE:-$(sed -n 's/^ARG BASE_IMAGE=//p' "$root/images/desktop/Dockerfile" | head -n1)}
if [ -z "$base_tag" ]; then
    echo "no BASE_IMAGE given and none found in images/desktop/Dockerfile" >&2
    exit 2
fi
suite=bookworm

if [ "${FORCE:-0}" != 1 ] && "$engine" image inspect "$base_tag" >/dev/null 2>&1; then
    echo "base image $base_tag exists; nothing to do (FORCE=1 rebuilds)" >&2
    exit 0
fi

# The first Debian (non-security) archive this host's apt is configured with.
host_mirror() {
    local files=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)
    local url
    url=$(cat "${files[@]}" 2>/dev/null \
        | grep -Eo '(https?|file)://[^ ]*/debian/?( |$)' | grep -v security | head -n1 | tr -d ' ')
    echo "${url:-http://deb.debian.org/debian}"
}
mirror=${1:-${BASE_MIRROR:-$(host_mirror)}}
mirror=${mirror%/}
security_mirror=${BASE_SECURITY_MIRROR:-${mirror%/debian}/debian-security}

if [ "$(id -u)" -ne 0 ]; then
    if [ "$engine" = podman ]; then
        # Rootless Podman keeps its own images: the base must come from its registry or a file.
        echo "no $base_tag for this user's Podman: pull it (podman pull docker.io/library/$base_tag)," \
            "or build it as root and load it: sudo CONTAINER_ENGINE=podman scripts/bootstrap-base.sh && sudo podman save $base_tag | podman load" >&2
    else
        echo "debootstrap needs root" >&2
    fi
    exit 1
fi
command -v debootstrap >/dev/null || { echo "debootstrap is not installed (apt-get install debootstrap)" >&2; exit 1; }

work=$(mktemp -d /tmp/bootstrap-base.XXXXXX)
cleanup() {
    # Never follow into a still-mounted /proc of the chroot.
    umount -l "$work/rootfs/proc" 2>/dev/null || true
    rm -rf --one-file-system "$work"
}
trap cleanup EXIT
rootfs=$work/rootfs

echo "debootstrap $suite from $mirror into $rootfs" >&2
debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
    "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -n 40 "$work/debootstrap.log" >&2
    exit 1
}

# Slim like the official image: tell dpkg to never install docs, man pages or locales again...
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/docker-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
EOF
# ...and drop the ones debootstrap already unpacked (copyright files stay, as in the official image).
find "$rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
find "$rootfs/usr/share/doc" -mindepth 1 -type d -empty -delete
rm -rf "$rootfs/usr/share/man/"* "$rootfs/usr/share/info/"* "$rootfs/usr/share/groff/"* \
    "$rootfs/usr/share/lintian/"* "$rootfs/usr/share/linda/"*
find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 -not -name locale.alias -exec rm -rf {} +

# apt in containers: no caches kept, no recommends by surprise, no lists shipped.
cat >"$rootfs/etc/apt/apt.conf.d/docker-clean" <<'EOF'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
Acquire::GzipIndexes "true";
Acquire::CompressionTypes::Order:: "gz";
EOF
echo 'Acquire::Languages "none";' >"$rootfs/etc/apt/apt.conf.d/docker-no-languages"
echo 'Apt::AutoRemove::SuggestsImportant "false";' >"$rootfs/etc/apt/apt.conf.d/docker-autoremove-suggests"
rm -f "$rootfs/etc/apt/sources.list"
cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security_mirror
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
rm -rf "$rootfs/var/lib/apt/lists/"* "$rootfs/var/cache/apt/"*.bin "$rootfs/var/cache/apt/archives/"*.deb \
    "$rootfs/var/log/"*.log "$rootfs/var/log/apt/"* "$rootfs/tmp/"* "$rootfs/root/.bash_history"
# The engine provides these at run time; a host's copies must not leak into the image.
: >"$rootfs/etc/resolv.conf"
: >"$rootfs/etc/hostname"
rm -f "$rootfs/etc/machine-id" && : >"$rootfs/etc/machine-id"

echo "importing as $base_tag" >&2
tar --numeric-owner --xattrs -C "$rootfs" -c . | "$engine" import \
    --change 'CMD ["bash"]' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --message "debootstrap --variant=minbase $suite from $mirror, slimmed" \
    - "$base_tag" >/dev/null
"$engine" image inspect --format '{{.RepoTags}} {{.Size}} bytes' "$base_tag" >&2
