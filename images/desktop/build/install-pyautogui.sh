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
pip=(python3 -m pip --disable-pip-version-check --no-cache-dir --no-input)
install=(install --no-deps --no-build-isolation --target "$target" -r "$requirements")
log=$(mktemp)
if compgen -G "$wheelhouse/pyautogui-*.whl" >/dev/null \
    && "${pip[@]}" "${install[@]}" --no-index --find-links "$wheelhouse" >"$log" 2>&1; then
    echo "pyautogui: installed offline from the host's wheelhouse"
else
    cert=()
    if [ -s "$ca_dir/ca-certificates.crt" ]; then
        cert=(--cert "$ca_dir/ca-certificates.crt")
    fi
    if ! "${pip[@]}" "${install[@]}" --retries 2 "${cert[@]}" >"$log" 2>&1; then
        # Both images build this stage: the line names the images, and the same fixes.
        pip_failure_line images "$requirements" "$log" "${cert[*]}"
        exit 1
    fi
    echo "pyautogui: downloaded from PyPI${cert:+ (verified with build-ca/ca-certificates.crt)}"
fi
rm -f "$log"
# Importing pyautogui needs a display; its parts that do not are checked here.
PYTHONPATH=$target python3 -c 'import pymsgbox, pytweening, pyscreeze, pyrect, pyperclip, mouseinfo' 2>/dev/null \
    || PYTHONPATH=$target python3 -c 'import pytweening, pyscreeze, pyrect, pyperclip'
test -f "$target/pyautogui/__init__.py"
