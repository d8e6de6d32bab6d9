#!/usr/bin/env bash
# The checks of scripts/arm64/run.sh, run inside the arm64 trixie root (under qemu) with this
# checkout at /src/loctrack: install the package with apt, then loctrack stream (the demo),
# loctrack serve and loctrack trips against trixie's gpsd, each timed. Any failure fails the run.
#
#   DEB    the package, inside the root
#   CYCLE  gpsfake -c for the demo and the serve check
set -euo pipefail
: "${DEB:?}" "${CYCLE:?}"
cd /src/loctrack

stage() { echo; echo "== arm64 run: $*"; }
t=$SECONDS

stage "apt-get install $(basename "$DEB") on $(. /etc/os-release && echo "$PRETTY_NAME") $(dpkg --print-architecture), uname -m $(uname -m)"
# The root's package lists are as old as the root: fetched anew, so its Depends come from today's trixie.
apt-get update -q >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$DEB" 2>&1 \
    | grep -E '^(Installing|  |Setting up|The following|Summary|Unpacking loctrack)' || true
dpkg-query -W -f='installed: ${Package} ${Version} ${Architecture}\n' loctrack
dpkg-query -W -f='gpsd: ${Version}\n' gpsd
/usr/bin/loctrack --version
echo "install: $((SECONDS - t)) s"

stage "loctrack stream: the demo drive through gpsfake and gpsd (CYCLE=$CYCLE)"
t=$SECONDS
out=$(mktemp)
rc=0
LOCTRACK=/usr/bin/loctrack CYCLE="$CYCLE" bash scripts/demo.sh >"$out" 2>&1 || rc=$?
head -n 12 "$out"
echo "[...]"
grep -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' "$out" | tail -n 3
grep -v -E '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' "$out" | tail -n 6
fixes=$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T' "$out" || true)
echo "demo: exit $rc, $fixes lines with a fix time, $((SECONDS - t)) s"
[ "$rc" -eq 0 ] && [ "$fixes" -gt 100 ] || { echo "arm64 run: the demo failed" >&2; exit 1; }

stage "loctrack serve: the page, leaflet.js and /api/fix while gpsfake replays the drive"
t=$SECONDS
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
gps_port=$(free_port)
web_port=$(free_port)
setsid gpsfake -q -p -P "$gps_port" -c "$CYCLE" demo/track.nmea >/dev/null 2>/tmp/gpsfake.err </dev/null &
fake=$!
/usr/bin/loctrack serve --listen "127.0.0.1:$web_port" "127.0.0.1:$gps_port" 2>/tmp/serve.err &
serve=$!
fetch() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "$1" 2>/dev/null; }
rc=0
tries=0
until fetch "http://127.0.0.1:$web_port/" >/dev/null || [ $tries -ge 300 ]; do sleep 0.2; tries=$((tries + 1)); done
page=$(fetch "http://127.0.0.1:$web_port/" || true)
[[ "$page" == *'<html'* ]] && echo "GET /: $(printf '%s' "$page" | wc -c) bytes, $(printf '%s' "$page" | grep -o '<title>[^<]*</title>')" \
    || { echo "serve: no page"; rc=1; }
leaflet=$(fetch "http://127.0.0.1:$web_port/leaflet/leaflet.js" || true)
[[ "$leaflet" == *Leaflet* ]] && echo "GET /leaflet/leaflet.js: $(printf '%s' "$leaflet" | wc -c) bytes (libjs-leaflet $(dpkg-query -W -f='${Version}' libjs-leaflet))" \
    || { echo "serve: no leaflet.js"; rc=1; }
fix=
for _ in $(seq 60); do
    fix=$(fetch "http://127.0.0.1:$web_port/api/fix" || true)
    [[ "$fix" == *'"lat"'* ]] && break
    sleep 0.5
done
[[ "$fix" == *'"lat"'* ]] && echo "GET /api/fix: ${fix:0:300}" || { echo "serve: no fix in /api/fix: '$fix'"; rc=1; }
kill -TERM "$serve"
wait "$serve" || { echo "serve: exit $? after SIGTERM"; rc=1; }
kill -TERM -- "-$fake" 2>/dev/null || true
wait "$fake" 2>/dev/null || true
[ "$rc" -eq 0 ] || { cat /tmp/serve.err >&2; echo "arm64 run: serve failed" >&2; exit 1; }
echo "serve: page, leaflet.js and a fix served, exit 0 on SIGTERM, $((SECONDS - t)) s"

stage "loctrack trips: a GPX of two points"
t=$SECONDS
folder=$(mktemp -d)
printf '%s\n' '<?xml version="1.0"?>' '<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>' \
    '<trkpt lat="52.5" lon="13.4"><time>2026-11-23T08:00:00Z</time></trkpt>' \
    '<trkpt lat="52.5" lon="13.4001"><time>2026-11-23T08:00:01Z</time></trkpt>' '</trkseg></trk></gpx>' > "$folder/t.gpx"
output=$(/usr/bin/loctrack trips --format text "$folder/t.gpx")
echo "$output"
[ "$output" = "no trips  (0 m in all; 2 points from 1 file)" ] || { echo "arm64 run: trips printed '$output'" >&2; exit 1; }
echo "trips: $((SECONDS - t)) s"
