#!/bin/bash
# Build-time only (images/desktop/Dockerfile's `pyautogui` stage): install the `pyautogui` extra's
# pins into TARGET, without dependencies (each is pinned; python3-xlib and Pillow are Debian's),
# from the host's wheelhouse when scripts/wheelhouse.sh filled it, else from PyPI (several are
# sdists there: pure Python, built with Debian's setuptools, nothing compiled), verified against
# build-ca/ca-certificates.crt when given.
#   install-pyautogui.sh TARGET REQUIREMENTS WHEELHOUSE_DIR CA_DIR
set -euo pipefail
# shellcheck source=../../chromium/build/pip-failure.sh
. "$(dirname "$0")/pip-failure.sh"
target=$1 requirements=$2 wheelhouse=$3 ca_dir=$4
# Both images build this stage: a failure's line names the images, and the same fixes.
pip_install_pinned images pyautogui 'pyautogui-*.whl' "$requirements" "$wheelhouse" "$ca_dir" \
    python3 -m pip --disable-pip-version-check --no-cache-dir --no-input \
    install --no-deps --no-build-isolation --target "$target" -r "$requirements"
# Importing pyautogui needs a display; its parts that do not are checked here.
PYTHONPATH=$target python3 -c 'import pymsgbox, pytweening, pyscreeze, pyrect, pyperclip, mouseinfo' 2>/dev/null \
    || PYTHONPATH=$target python3 -c 'import pytweening, pyscreeze, pyrect, pyperclip'
test -f "$target/pyautogui/__init__.py"
