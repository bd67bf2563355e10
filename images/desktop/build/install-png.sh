#!/bin/bash
# Build-time only (images/desktop/Dockerfile's `png` stage): zlib-ng's Python binding (the `png`
# extra's pinned binary wheel) into TARGET, for desktopd's PNG screenshots in both images
# (desktopd/x11/encode.py; without it desktopd deflates with Python's zlib, about 3x slower). From
# the host's wheelhouse when scripts/wheelhouse.sh filled it, else from PyPI, verified against
# build-ca/ca-certificates.crt when given.
#   install-png.sh TARGET REQUIREMENTS WHEELHOUSE_DIR CA_DIR
set -euo pipefail
# shellcheck source=../../chromium/build/pip-failure.sh
. "$(dirname "$0")/pip-failure.sh"
target=$1 requirements=$2 wheelhouse=$3 ca_dir=$4
pip_install_wheels images png 'zlib_ng-*.whl' "$target" "$requirements" "$wheelhouse" "$ca_dir"
# What desktopd imports must load with the image's Python: a build without it fails here.
PYTHONPATH=$target python3 -c 'from zlib_ng import zlib_ng; assert zlib_ng.decompress(zlib_ng.compress(b"png" * 99, 2)) == b"png" * 99'
