#!/usr/bin/env bash
# Replay demo/track.nmea through gpsfake into a real gpsd on a free loopback
# port and watch it with `loctrack stream` (or, with MODE=monitor, with
# `loctrack monitor run` and three geofences along the drive: demo/zones.geojson
# and a circle added on the command line). Ends by itself when the log ends.
#
# Environment (all optional; `make demo VAR=value` passes them through):
#   MODE=stream   stream, or monitor (`make demo-monitor`): the monitor's state
#                 lives in a temporary XDG_STATE_HOME, removed at the end
#   CYCLE=0.02    gpsfake -c: seconds between NMEA sentences. The track has ~4.8
#                 sentences per 1 Hz epoch, so 0.02 plays 300 s in ~30 s and
#                 0.2 is about real time (~5 min). CYCLE=1 is a slow-motion replay.
#   FORMAT=text   loctrack --format: text or json
#   TRACK=demo/track.nmea, LOCTRACK=.build/release/loctrack, PORT=(a free one)
#
# How the start is made robust: gpsfake -p attaches its own watcher and then
# waits ~1.4 s before feeding the first sentence; loctrack is started as soon as
# gpsd listens (seen in /proc/net/tcp, without connecting), well inside that
# window. The track also opens with 3 no-fix epochs, so even a late start only
# misses epochs that have no fix.
#
# How it ends: gpsfake -1 stops gpsd at the end of the log; loctrack then sees
# gpsd close the connection and exits 69 ("gpsd unavailable"), which is the
# normal end here. gpsfake runs in its own session/process group and is
# cleaned up with `kill -- -PGID` (it can ignore a plain SIGTERM).
set -euo pipefail

cd "$(dirname "$0")/.."

MODE=${MODE:-stream}
CYCLE=${CYCLE:-0.02}
FORMAT=${FORMAT:-text}
TRACK=${TRACK:-demo/track.nmea}
LOCTRACK=${LOCTRACK:-.build/release/loctrack}
PORT=${PORT:-}

die() { echo "demo: $*" >&2; exit 1; }

[ -x "$LOCTRACK" ] || die "$LOCTRACK not found; run 'make build' first"
[ -r "$TRACK" ] || die "$TRACK not found"
command -v gpsfake >/dev/null || die "gpsfake not found; run 'make deps' (package gpsd-clients)"
command -v python3 >/dev/null || die "python3 not found (gpsfake needs it too)"
case $FORMAT in text|json) ;; *) die "FORMAT must be text or json, not '$FORMAT'" ;; esac
case $MODE in stream|monitor) ;; *) die "MODE must be stream or monitor, not '$MODE'" ;; esac
case $CYCLE in ''|*[!0-9.]*) die "CYCLE must be a number of seconds, not '$CYCLE'" ;; esac

if [ -z "$PORT" ]; then
    PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/loctrack-demo.XXXXXX")
FAKE_PID=
FAKE_PGID=
WATCHDOG_PID=

stop_gpsfake() {
    [ -n "$FAKE_PID" ] || return 0
    local target=$FAKE_PID
    [ -n "$FAKE_PGID" ] && target=-$FAKE_PGID
    if kill -0 -- "$target" 2>/dev/null; then
        kill -TERM -- "$target" 2>/dev/null || true
        for _ in 1 2 3 4 5 6 7 8 9 10; do
            kill -0 -- "$target" 2>/dev/null || break
            sleep 0.2
        done
        kill -KILL -- "$target" 2>/dev/null || true
    fi
    wait "$FAKE_PID" 2>/dev/null || true
    FAKE_PID= FAKE_PGID=
}
cleanup() {
    if [ -n "$WATCHDOG_PID" ]; then kill "$WATCHDOG_PID" 2>/dev/null || true; fi
    stop_gpsfake
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo; echo "demo: interrupted" >&2; exit 130' INT
trap 'exit 143' TERM

# listening on PORT? (reads /proc instead of connecting, so gpsd sees no client)
listening() {
    local hex
    hex=$(printf ':%04X ' "$PORT")
    # field 2 is local address:port, field 4 the state; 0A is LISTEN
    awk -v p="$hex" 'index($2 " ", p) && $4 == "0A" { found = 1 } END { exit !found }' \
        /proc/net/tcp /proc/net/tcp6 2>/dev/null
}

lines=$(grep -c '^\$' "$TRACK")
expected=$(awk -v n="$lines" -v c="$CYCLE" 'BEGIN { printf "%d", n * c + 0.5 }')
# generous upper bound for the whole replay, in case something hangs
limit=$(awk -v n="$lines" -v c="$CYCLE" 'BEGIN { printf "%d", n * c * 3 + 60 }')

echo "demo: replaying $TRACK ($lines NMEA sentences) with gpsfake -c $CYCLE"
echo "demo: into gpsd on 127.0.0.1:$PORT, about ${expected} s; loctrack $MODE --format $FORMAT"
if [ "$TRACK" = demo/track.nmea ]; then
    cat <<'EOT'
demo: the track: 5 minutes driving east on 42nd Street, Manhattan, 2026-03-15 from 11:12Z.
demo:   open sky at 11th Ave (±15 m) -> urban canyon (±20-45 m)
demo:   -> 2D fix between 7th and 6th Ave (11:14:09-11:14:32, ±148 m, no altitude)
demo:   -> no fix under the Park Avenue Viaduct (11:15:53-11:16:03: nothing printed)
demo:   -> reacquired at 11:16:04; gpsd's first eph there (1899.8 m) comes from the stale DOP 99.99
EOT
fi
echo

start=$(date +%s.%N)
# setsid: gpsfake (and the gpsd it starts) get their own session and process group.
setsid gpsfake -q -1 -p -P "$PORT" -c "$CYCLE" -r '?WATCH={"json":true}' "$TRACK" \
    >"$WORK/gpsfake.json" 2>"$WORK/gpsfake.err" </dev/null &
FAKE_PID=$!
# A background job of a script (no job control) is not a process group leader,
# so setsid does not fork: it makes gpsfake the leader of a new session and
# group whose id is its pid. Wait until that has happened before relying on it,
# and never signal our own group.
own_pgid=$(awk '{ print $5 }' /proc/$$/stat)
for _ in $(seq 100); do
    sid=$(awk '{ print $6 }' "/proc/$FAKE_PID/stat" 2>/dev/null || true)
    [ "$sid" = "$FAKE_PID" ] && break
    kill -0 "$FAKE_PID" 2>/dev/null || break
    sleep 0.02
done
if [ "${sid:-}" = "$FAKE_PID" ] && [ "$FAKE_PID" != "$own_pgid" ]; then
    FAKE_PGID=$FAKE_PID
else
    FAKE_PGID=   # could not confirm the group: signal only the pid (see stop_gpsfake)
fi

for _ in $(seq 200); do                       # up to 10 s for gpsd to come up
    listening && break
    kill -0 "$FAKE_PID" 2>/dev/null || break
    sleep 0.05
done
if ! listening; then
    cat "$WORK/gpsfake.err" >&2
    die "gpsd did not start listening on 127.0.0.1:$PORT"
fi

# loctrack may reconnect by default; the demo wants it to stop when gpsd goes away.
LT_ARGS=(stream --format "$FORMAT" --no-reconnect)
if [ "$MODE" = monitor ]; then
    # A private monitor: its state file goes into the demo's temporary folder.
    export XDG_STATE_HOME=$WORK/state
    "$LOCTRACK" monitor add port-authority --circle 40.7565588,-73.9888937,120 --title "Port Authority"
    "$LOCTRACK" monitor add --geojson demo/zones.geojson
    echo "demo: the monitor's regions (loctrack monitor list):"
    "$LOCTRACK" monitor list | sed 's/^/  /'
    echo
    LT_ARGS=(monitor run --format "$FORMAT" --no-reconnect)
fi

# Watchdog: once gpsfake has ended (end of the log) loctrack gets 5 s to notice
# before it is sent SIGTERM (it then flushes and exits 0); the same after $limit s
# in any case. It runs in the background; loctrack stays in the foreground so
# that Ctrl-C reaches it.
watchdog() {
    local waited=0 grace=0 pid=
    while [ -z "$pid" ]; do
        pid=$(cat "$WORK/loctrack.pid" 2>/dev/null || true)
        sleep 0.1
    done
    while kill -0 "$pid" 2>/dev/null; do
        sleep 0.2
        waited=$((waited + 1))
        if ! kill -0 "$FAKE_PID" 2>/dev/null; then grace=$((grace + 1)); fi
        if [ "$grace" -ge 25 ] || [ "$waited" -ge $((limit * 5)) ]; then
            echo "$waited" > "$WORK/watchdog.fired"
            kill -TERM "$pid" 2>/dev/null || true
            for _ in $(seq 25); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.2
            done
            kill -KILL "$pid" 2>/dev/null || true
            break
        fi
    done
}
watchdog &
WATCHDOG_PID=$!

set +e
( echo "$BASHPID" > "$WORK/loctrack.pid"
  exec "$LOCTRACK" "${LT_ARGS[@]}" "127.0.0.1:$PORT" 2>"$WORK/loctrack.err" ) | tee "$WORK/loctrack.out"
rc=${PIPESTATUS[0]}
set -e
wait "$WATCHDOG_PID" 2>/dev/null || true   # it ends by itself once loctrack is gone
WATCHDOG_PID=

# gpsfake should be gone already (it stopped gpsd, which is why loctrack ended).
for _ in $(seq 50); do
    kill -0 "$FAKE_PID" 2>/dev/null || break
    sleep 0.1
done
stop_gpsfake
end=$(date +%s.%N)

echo
stopped_by_watchdog=false
[ -e "$WORK/watchdog.fired" ] && stopped_by_watchdog=true
case $rc in
    69) ;;  # gpsd went away at the end of the log: the normal end of the demo
    0|143)
        if $stopped_by_watchdog; then
            echo "demo: loctrack was still waiting for gpsd after the log ended; stopped it (SIGTERM)"
            rc=0
        fi ;;
    *) echo "demo: loctrack exited with code $rc" >&2 ;;
esac
if [ -s "$WORK/loctrack.err" ]; then
    echo "demo: loctrack's stderr:"
    sed 's/^/  /' "$WORK/loctrack.err"
fi

count() { grep -c "$1" "$WORK/gpsfake.json" || true; }
tpv=$(count '"class":"TPV"')
m3=$(count '"class":"TPV".*"mode":3')
m2=$(count '"class":"TPV".*"mode":2')
m1=$(count '"class":"TPV".*"mode":[01][,}]')
printed=$(grep -c . "$WORK/loctrack.out" || true)
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')

echo "demo: gpsd reported $tpv TPVs: $m3 3D, $m2 2D, $m1 without a fix (its own watcher, gpsfake -p)"
if [ "$MODE" = monitor ]; then
    echo "demo: loctrack printed $printed events; the monitor now (loctrack monitor list):"
    "$LOCTRACK" monitor list | sed 's/^/  /'
else
    echo "demo: loctrack printed $printed fixes (one line per epoch; no-fix epochs print nothing)"
fi
echo "demo: done in $elapsed s. Try: make demo FORMAT=json, or CYCLE=0.2 for real time"

if [ "$rc" -ne 69 ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 130 ]; then
    exit 1
fi
if [ "$printed" -eq 0 ]; then
    echo "demo: loctrack printed nothing" >&2
    exit 1
fi
exit 0
