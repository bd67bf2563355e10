# Sourced by the images' build-time installers (install-agent.sh, install-pyautogui.sh,
# install-ocr.sh, install-ffmpeg.sh, install-png.sh): where their pinned wheels come from
# (pip_install_pinned; pip_install_wheels for binary wheels without dependencies), and the one line a
# failed PyPI install prints, saying why in a word and naming every fix; pip's own log (long, and
# saying neither) is not shown.
#   pip_failure_line BUILD_NAME REQUIREMENTS PIP_LOG CERT_USED   (CERT_USED: empty or not)
pip_failure_line() {
    local name=$1 requirements=$2 log=$3 cert=$4 why
    if grep -qiE 'CERTIFICATE_VERIFY_FAILED|certificate verify failed|SSLError' "$log"; then
        why="PyPI's certificate did not verify${cert:+ against build-ca/ca-certificates.crt}"
    elif grep -qiE 'Max retries exceeded|NewConnectionError|Name or service not known|Temporary failure in name resolution' "$log"; then
        why="PyPI is unreachable from the build"
    else
        why=$(grep -m1 '^ERROR:' "$log" || tail -n1 "$log")
    fi
    echo "desktopd $name build: cannot install $(paste -sd' ' "$requirements") ($why). Fix: run scripts/up.sh (it hands this host's CA bundle to the build), or copy the CA bundle your host trusts to images/chromium/build-ca/ca-certificates.crt, or download the wheels with the host's pip: scripts/wheelhouse.sh (docs/images.md, \"First run\")." >&2
}

# Run the pip install command PIP_INSTALL... (which names REQUIREMENTS) offline from the host's
# WHEELHOUSE when it holds a wheel matching WHEEL_GLOB (scripts/wheelhouse.sh filled it), else
# from PyPI, verified against CA_DIR/ca-certificates.crt when given. Says which with WHAT; when
# PyPI fails too, prints pip_failure_line's line (BUILD_NAME) and returns 1.
#   pip_install_pinned BUILD_NAME WHAT WHEEL_GLOB REQUIREMENTS WHEELHOUSE CA_DIR PIP_INSTALL...
pip_install_pinned() {
    local name=$1 what=$2 glob=$3 requirements=$4 wheelhouse=$5 ca_dir=$6 log cert=()
    shift 6
    log=$(mktemp)
    if compgen -G "$wheelhouse/$glob" >/dev/null \
        && "$@" --no-index --find-links "$wheelhouse" >"$log" 2>&1; then
        echo "$what: installed offline from the host's wheelhouse"
    else
        if [ -s "$ca_dir/ca-certificates.crt" ]; then
            cert=(--cert "$ca_dir/ca-certificates.crt")
        fi
        if ! "$@" --retries 2 "${cert[@]}" >"$log" 2>&1; then
            pip_failure_line "$name" "$requirements" "$log" "${cert[*]}"
            rm -f "$log"
            return 1
        fi
        echo "$what: downloaded from PyPI${cert:+ (verified with build-ca/ca-certificates.crt)}"
    fi
    rm -f "$log"
}

# pip_install_pinned for a requirements file of binary wheels installed without dependencies
# into TARGET (ONNX Runtime, ffmpeg's wheel, zlib-ng: each pinned alone).
#   pip_install_wheels BUILD_NAME WHAT WHEEL_GLOB TARGET REQUIREMENTS WHEELHOUSE CA_DIR
pip_install_wheels() {
    local name=$1 what=$2 glob=$3 target=$4 requirements=$5 wheelhouse=$6 ca_dir=$7
    pip_install_pinned "$name" "$what" "$glob" "$requirements" "$wheelhouse" "$ca_dir" \
        python3 -m pip --disable-pip-version-check --no-cache-dir --no-input \
        install --no-deps --only-binary=:all: --target "$target" -r "$requirements"
}
