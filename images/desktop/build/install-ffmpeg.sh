#!/bin/bash
# Build-time only (images/desktop/Dockerfile's `ffmpeg` stage): the static ffmpeg that the pinned
# imageio-ffmpeg wheel carries (the `recording` extra) as TARGET/ffmpeg, for desktopd's screen
# recording in both images. Debian's ffmpeg links every codec library it knows (205 MB with its
# 100 packages); this one has what the recorder uses (x11grab, libx264, libvpx-vp9) in one 80 MB
# file. From the host's wheelhouse when scripts/wheelhouse.sh filled it, else from PyPI, verified
# against build-ca/ca-certificates.crt when given.
#   install-ffmpeg.sh TARGET REQUIREMENTS WHEELHOUSE_DIR CA_DIR
set -euo pipefail
# shellcheck source=../../chromium/build/pip-failure.sh
. "$(dirname "$0")/pip-failure.sh"
target=$1 requirements=$2 wheelhouse=$3 ca_dir=$4
unpacked=$(mktemp -d)
pip_install_wheels images ffmpeg 'imageio_ffmpeg-*.whl' "$unpacked" "$requirements" "$wheelhouse" "$ca_dir"
mkdir -p "$target"
binaries=("$unpacked"/imageio_ffmpeg/binaries/ffmpeg-linux-*)
[ ${#binaries[@]} -eq 1 ] && [ -f "${binaries[0]}" ] || { echo "no single ffmpeg binary in the wheel: ${binaries[*]}" >&2; exit 1; }
install -m 0755 "${binaries[0]}" "$target/ffmpeg"
rm -rf "$unpacked"
# What desktopd/recording/recorder.py runs must be in it: a build without it fails here, not at the first
# recording.
devices=$("$target/ffmpeg" -hide_banner -devices 2>/dev/null)
grep -q ' x11grab ' <<<"$devices" || { echo "ffmpeg lacks the x11grab device" >&2; exit 1; }
encoders=$("$target/ffmpeg" -hide_banner -encoders 2>/dev/null)
for encoder in libx264 libvpx-vp9; do
    grep -q " $encoder " <<<"$encoders" || { echo "ffmpeg lacks the encoder $encoder" >&2; exit 1; }
done
