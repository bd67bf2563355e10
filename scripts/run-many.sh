#!/usr/bin/env bash
# Run N Chromium desktops side by side for a harness, each on its own 127.0.0.1 host ports, wait
# until all are healthy, and print their URLs (one line per desktop, key=value, easy to parse).
#   scripts/run-many.sh N          start N (names ${RUN_MANY_NAME:-desktopd-many}-1..N)
#   scripts/run-many.sh stop       remove every container this script started
# Env: IMAGE (default desktopd/chromium:latest), TIMEOUT seconds to wait for health (default 240),
#      VNC_PASSWORD (default: a random one per desktop, printed), DESKTOPD_TOKEN (default none: the
#      ports are on host loopback, so the containers get DESKTOPD_INSECURE=1), SIDECAR_URLS,
#      WIDTH/HEIGHT/DEPTH, HEALTH_INTERVAL (Docker's health probe, default 30s: see below),
#      RUN_MANY_ARGS (extra `docker run` args).
# Healthy means the image's own probe (desktop-healthcheck: desktopd's and the sidecar's /health
# say ok) answers through the published ports, asked from here every 0.5 s. Docker's probe of
# the image runs every 3 s and costs each idle desktop 0.7 % of a core (a `docker exec` is
# ~11 ms of CPU, the probe ~9 ms more): here it runs every HEALTH_INTERVAL instead, which does
# not delay the start since this script does not wait for Docker's verdict.
# benchmarks/many_desktops.py N starts N with this script and reports each one's memory and idle CPU
# and their aggregate step rate (docs/images.md, "Many desktops on one host").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
probe=$root/images/desktop/rootfs/usr/local/bin/desktop-healthcheck
label=desktopd.run-many
name_prefix=${RUN_MANY_NAME:-desktopd-many}
image=${IMAGE:-desktopd/chromium:latest}
timeout=${TIMEOUT:-240}

usage() { echo "usage: $0 N | stop" >&2; exit 2; }

stop_all() {
    local ids
    ids=$(docker ps -aq --filter "label=$label=$name_prefix")
    if [ -n "$ids" ]; then
        # shellcheck disable=SC2086
        docker rm -f -v $ids >/dev/null
        echo "removed $(echo "$ids" | wc -w) container(s)" >&2
    fi
}

host_port() {  # host_port CONTAINER PORT -> the 127.0.0.1 port docker picked
    { docker port "$1" "$2/tcp" 2>/dev/null || true; } | sed -n 's/^127\.0\.0\.1:\([0-9]*\)$/\1/p' | head -n1
}

case "${1:-}" in
stop) stop_all; exit 0 ;;
'' | *[!0-9]*) usage ;;
esac
count=$1
[ "$count" -ge 1 ] || usage
docker image inspect "$image" >/dev/null 2>&1 || {
    echo "image $image is missing: run scripts/build-images.sh first" >&2
    exit 1
}

declare -A started_at=() password=()
names=()
run_pids=()
for i in $(seq 1 "$count"); do
    name=$name_prefix-$i
    docker rm -f -v "$name" >/dev/null 2>&1 || true
    password[$name]=${VNC_PASSWORD:-$(tr -dc 'A-Za-z0-9' </dev/urandom | head -c 8 || true)}
    env_args=(-e "VNC_PASSWORD=${password[$name]}")
    if [ -n "${DESKTOPD_TOKEN:-}" ]; then env_args+=(-e DESKTOPD_TOKEN); else env_args+=(-e DESKTOPD_INSECURE=1); fi
    for var in SIDECAR_URLS SIDECAR_KIOSK CHROMIUM_FLAGS WIDTH HEIGHT DEPTH; do
        if [ -n "${!var:-}" ]; then env_args+=(-e "$var"); fi
    done
    started_at[$name]=$(date +%s.%N)
    # Started side by side (each `docker run` takes a moment): their start-ups overlap anyway.
    # shellcheck disable=SC2086  # RUN_MANY_ARGS is a list of words on purpose
    docker run -d --name "$name" --label "$label=$name_prefix" --shm-size 1g \
        --health-interval "${HEALTH_INTERVAL:-30s}" \
        -p 127.0.0.1::8080 -p 127.0.0.1::8122 -p 127.0.0.1::6080 -p 127.0.0.1::5900 \
        "${env_args[@]}" ${RUN_MANY_ARGS:-} "$image" >/dev/null &
    run_pids+=($!)
    names+=("$name")
done
for pid in "${run_pids[@]}"; do
    wait "$pid" || { echo "a docker run failed (see above)" >&2; exit 1; }
done

# Wait until the image's probe says healthy (desktopd and sidecar say ok) through the published
# ports.
declare -A healthy_after=() desktopd_port=() sidecar_port=()
for name in "${names[@]}"; do
    desktopd_port[$name]=$(host_port "$name" 8080)
    sidecar_port[$name]=$(host_port "$name" 8122)
done
deadline=$((SECONDS + timeout))
while [ ${#healthy_after[@]} -lt "$count" ]; do
    for name in "${names[@]}"; do
        [ -n "${healthy_after[$name]:-}" ] && continue
        state=$(docker inspect -f '{{.State.Status}}' "$name")
        case "$state" in
        running)
            if DESKTOPD_PORT=${desktopd_port[$name]} SIDECAR_PORT=${sidecar_port[$name]} \
                "$probe" desktopd sidecar >/dev/null; then
                healthy_after[$name]=$(awk -v now="$(date +%s.%N)" -v t0="${started_at[$name]}" 'BEGIN { printf "%.1f", now - t0 }')
            fi ;;
        *)
            echo "$name is $state; its log:" >&2
            docker logs --tail 80 "$name" >&2
            exit 1 ;;
        esac
    done
    if [ "$SECONDS" -ge "$deadline" ]; then
        for name in "${names[@]}"; do
            if [ -z "${healthy_after[$name]:-}" ]; then
                echo "$name not healthy after ${timeout}s; its log:" >&2
                docker logs --tail 80 "$name" >&2
            fi
        done
        exit 1
    fi
    sleep 0.5
done

for name in "${names[@]}"; do
    printf '%s desktopd=http://127.0.0.1:%s sidecar=http://127.0.0.1:%s novnc=http://127.0.0.1:%s/vnc.html?autoconnect=1&resize=scale&password=%s vnc=127.0.0.1:%s healthy_after_s=%s\n' \
        "$name" "$(host_port "$name" 8080)" "$(host_port "$name" 8122)" "$(host_port "$name" 6080)" \
        "${password[$name]}" "$(host_port "$name" 5900)" "${healthy_after[$name]}"
done
