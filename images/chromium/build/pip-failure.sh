# Sourced by the images' build-time installers (install-agent.sh, install-pyautogui.sh): the one
# line a failed PyPI install prints, saying why in a word and naming every fix; pip's own log
# (long, and saying neither) is not shown.
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
