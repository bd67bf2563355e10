#!/bin/bash
# Build-time only (images/desktop/Dockerfile's `ocr` stage): ONNX Runtime for desktopd's OCR
# recogniser (docs/vision.md) into TARGET, which the Chromium image copies where the system
# python3 (desktopd's interpreter) reads it. Its binary wheel only, without dependencies: numpy is
# Debian's python3-numpy, and nothing else onnxruntime declares is imported to run a model. From
# the host's wheelhouse when scripts/wheelhouse.sh filled it, else from PyPI, verified against
# build-ca/ca-certificates.crt when given.
#   install-ocr.sh TARGET REQUIREMENTS WHEELHOUSE_DIR CA_DIR
set -euo pipefail
# shellcheck source=pip-failure.sh
. "$(dirname "$0")/pip-failure.sh"
target=$1 requirements=$2 wheelhouse=$3 ca_dir=$4
pip_install_wheels chromium ocr 'onnxruntime-*.whl' "$target" "$requirements" "$wheelhouse" "$ca_dir"
# Its console script (onnxruntime_test) would land in TARGET/bin, a stray directory among the
# system's packages; desktopd only imports the module.
rm -rf "$target/bin"
# Loads the native library under the interpreter and numpy the image will have: a broken wheel
# fails the build, not the first OCR request.
PYTHONPATH=$target python3 -c 'import onnxruntime; assert "CPUExecutionProvider" in onnxruntime.get_available_providers()'
