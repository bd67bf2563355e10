#!/usr/bin/env bash
# Start a Docker engine when none answers, or stop the one we started.
#   dockerd.sh ensure      prints the PID of a dockerd it started ("" if one already answered)
#   dockerd.sh stop PID    stops that dockerd (only a PID this script printed)
set -euo pipefail
state_dir=${DESKTOPD_STATE_DIR:-/tmp/desktopd-ci}
mkdir -p "$state_dir"

case "${1:-}" in
ensure)
    if docker info >/dev/null 2>&1; then
        exit 0
    fi
    # Output goes to a file: an inherited pipe would keep the caller's run from ending. Its own
    # session: a Ctrl-C to the caller's process group (scripts/up.sh in a terminal) must not take
    # the engine down while compose is still stopping the containers. (A background job of a
    # script is no group leader, so setsid execs in place and $! stays dockerd's PID.)
    setsid dockerd >"$state_dir/dockerd.log" 2>&1 </dev/null &
    pid=$!
    for _ in $(seq 1 120); do
        if docker info >/dev/null 2>&1; then
            echo "$pid"
            exit 0
        fi
        if ! kill -0 "$pid" 2>/dev/null; then
            break
        fi
        sleep 0.5
    done
    echo "dockerd did not come up; its log:" >&2
    tail -n 50 "$state_dir/dockerd.log" >&2
    exit 1
    ;;
stop)
    pid=${2:?PID}
    kill "$pid" 2>/dev/null || exit 0
    for _ in $(seq 1 60); do
        kill -0 "$pid" 2>/dev/null || exit 0
        sleep 0.5
    done
    kill -9 "$pid" 2>/dev/null || true
    ;;
*)
    echo "usage: $0 ensure | stop PID" >&2
    exit 2
    ;;
esac
