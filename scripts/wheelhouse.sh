#!/usr/bin/env bash
# Download the pinned wheels of the `agent` extra (playwright, mcp and everything they need) and
# of the `ocr` extra (onnxruntime's alone) for the images' Python (Debian bookworm: CPython 3.11,
# glibc 2.36, x86_64) into images/chromium/wheelhouse/, which the Chromium image's build then
# installs offline instead of downloading them from PyPI itself (for hosts whose builds cannot
# reach PyPI, and CI: the host's pip downloads once, kept between runs). Git-ignored but for its
# README.
#   scripts/wheelhouse.sh            (PIP: the pip command to use, default the venv's or python3 -m pip)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/images/chromium/wheelhouse
mkdir -p "$dest"

# The pins, from pyproject.toml's `agent` extra (read by the same script the image's build uses).
mapfile -t pins < <(python3 "$root/images/chromium/build/agent-pins.py" "$root/pyproject.toml")
printf '%s\n' "${pins[@]}" >"$dest/requirements.txt"

if [ -n "${PIP:-}" ]; then
    read -r -a pip <<<"$PIP"
elif [ -x "$root/.venv/bin/pip" ]; then
    pip=("$root/.venv/bin/pip")
else
    pip=(python3 -m pip)
fi
# Binary wheels only (no builds on the host for another interpreter), for every manylinux level
# bookworm's glibc accepts, plus pure-Python wheels.
platforms=()
for level in manylinux2014_x86_64 manylinux_2_17_x86_64 manylinux_2_28_x86_64 manylinux_2_34_x86_64 \
    manylinux1_x86_64 manylinux2010_x86_64 linux_x86_64; do
    platforms+=(--platform "$level")
done
download() {  # download [pip download args...]
    "${pip[@]}" download --quiet --disable-pip-version-check --dest "$dest" --only-binary=:all: \
        --implementation cp --python-version 3.11 --abi cp311 --abi abi3 --abi none "${platforms[@]}" "$@"
}
download -r "$dest/requirements.txt"
echo "wheelhouse: $(find "$dest" -name '*.whl' | wc -l) wheels in $dest for: ${pins[*]}" >&2

# ONNX Runtime for desktopd's OCR recogniser (the Chromium image; the `ocr` extra): its wheel
# alone, as the image installs it: numpy is Debian's there and nothing else it declares is needed.
python3 "$root/images/chromium/build/agent-pins.py" "$root/pyproject.toml" ocr | grep -v '^numpy\b' \
    >"$dest/ocr-requirements.txt"
download --no-deps -r "$dest/ocr-requirements.txt"
echo "wheelhouse: the OCR runtime's wheel in $dest for: $(paste -sd' ' "$dest/ocr-requirements.txt")" >&2

# ffmpeg's static build for screen recording (both images; the `recording` extra): its wheel
# alone, the images take its binary.
python3 "$root/images/chromium/build/agent-pins.py" "$root/pyproject.toml" recording \
    >"$dest/recording-requirements.txt"
download --no-deps -r "$dest/recording-requirements.txt"
echo "wheelhouse: ffmpeg's wheel in $dest for: $(paste -sd' ' "$dest/recording-requirements.txt")" >&2

# zlib-ng's binding for desktopd's PNG encoder (both images; the `png` extra): its wheel alone.
python3 "$root/images/chromium/build/agent-pins.py" "$root/pyproject.toml" png >"$dest/png-requirements.txt"
download --no-deps -r "$dest/png-requirements.txt"
echo "wheelhouse: zlib-ng's wheel in $dest for: $(paste -sd' ' "$dest/png-requirements.txt")" >&2

# pyautogui and its pins (both images; the `pyautogui` extra): several are sdists on PyPI, pure
# Python, so the host's pip builds their py3-none-any wheels here once.
python3 "$root/images/chromium/build/agent-pins.py" "$root/pyproject.toml" pyautogui >"$dest/pyautogui-requirements.txt"
"${pip[@]}" wheel --quiet --disable-pip-version-check --no-deps --wheel-dir "$dest" \
    -r "$dest/pyautogui-requirements.txt"
echo "wheelhouse: pyautogui's wheels in $dest for: $(paste -sd' ' "$dest/pyautogui-requirements.txt")" >&2
