#!/usr/bin/env bash
# The package as a user meets it: installs the loctrack_*.deb that `make deb` left in the
# repository's root with apt-get (which resolves its dependencies), runs the programs from it,
# then purges the package and whatever it pulled in, so the machine is left as it was.
# One script for every place that checks a package: `.ci/run` on Debian 12 and `make
# trixie-deb` in the Debian 13 root (scripts/trixie/deb.sh) call it alike.
#
# What runs from the package: `loctrack --version` (it must be `make print-version`'s),
# systemd-analyze verify on both units (where systemd-analyze is), `stream` against a real gpsd
# that gpsfake feeds the demo drive (scripts/demo.sh with LOCTRACK=/usr/bin/loctrack), `serve`
# (the page and Debian's Leaflet served) and `trips` (a GPX read through libxml2).
#
# Skipped (exit 0, with a note) when loctrack is already installed: the check must not replace
# someone's package. Needs root or sudo. Exit status: 0 all ran, 1 any check failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DEBIAN_FRONTEND=noninteractive
SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo)

# The installed `loctrack stream` reads a real gpsd: the demo drive (demo/track.nmea, 285
# fixes on gpsd 3.22 and 3.25 alike) through gpsfake, at 0.01 s a sentence (about 15 s).
stream_from_package() {
    local output rc=0
    command -v gpsfake >/dev/null 2>&1 || { echo "stream from the package: gpsfake missing (make deps)"; return 1; }
    output=$(LOCTRACK=/usr/bin/loctrack CYCLE=0.01 bash scripts/demo.sh 2>&1) || rc=$?
    local fixes
    fixes=$(sed -n 's/^demo: loctrack printed \([0-9]*\) fixes.*/\1/p' <<<"$output")
    if [ "$rc" -ne 0 ] || [ "${fixes:-0}" -ne 285 ]; then
        echo "stream from the package: exit $rc, $fixes fixes (expected 285); the demo's output:"
        printf '%s\n' "$output" | tail -n 20
        return 1
    fi
    echo "stream from the package: the demo drive through gpsfake and $(gpsd -V 2>/dev/null | head -n1): 285 fixes, exit 0"
}

# The installed `loctrack trips` finds its program in /usr/lib/loctrack, which reads a GPX
# through the libxml2 the package depends on.
trips_from_package() {
    local folder output rc=0
    folder=$(mktemp -d)
    printf '%s\n' '<?xml version="1.0"?>' '<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>' \
        '<trkpt lat="52.5" lon="13.4"><time>2026-11-23T08:00:00Z</time></trkpt>' \
        '<trkpt lat="52.5" lon="13.4001"><time>2026-11-23T08:00:01Z</time></trkpt>' '</trkseg></trk></gpx>' > "$folder/t.gpx"
    output=$(/usr/bin/loctrack trips --format text "$folder/t.gpx") || rc=$?
    rm -rf "$folder"
    [ "$rc" -eq 0 ] && [ "$output" = "no trips  (0 m in all; 2 points from 1 file)" ] || { echo "trips from the package: exit $rc, '$output'"; return 1; }
    echo "trips from the package: the GPX read (2 points), exit 0"
}

# The installed `loctrack serve` finds its server in /usr/lib/loctrack, its page in
# /usr/share/loctrack/web and Leaflet from the libjs-leaflet the package depends on: the page and
# leaflet.js are served. No gpsd is needed for that (it keeps trying in the background).
serve_from_package() {
    local port=$((20000 + RANDOM % 20000)) pid rc=0 err
    err=$(mktemp)
    /usr/bin/loctrack serve --listen "127.0.0.1:$port" 127.0.0.1:1 2>"$err" &
    pid=$!
    # python3, not curl: a fresh Debian has python3 (make deps' tools need it), not always curl.
    fetch() { python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())' "$1" 2>/dev/null; }
    local tries=0
    until fetch "http://127.0.0.1:$port/" >/dev/null || [ $tries -ge 50 ]; do sleep 0.1; tries=$((tries + 1)); done
    [[ "$(fetch "http://127.0.0.1:$port/")" == *'<html'* ]] || { echo "serve from the package: no page"; rc=1; }
    [[ "$(fetch "http://127.0.0.1:$port/leaflet/leaflet.js")" == *Leaflet* ]] || { echo "serve from the package: no leaflet.js"; rc=1; }
    kill -TERM "$pid"; wait "$pid" || { echo "serve from the package: exit $? after SIGTERM"; rc=1; }
    [ "$rc" -eq 0 ] || { echo "serve's stderr:"; cat "$err"; }
    rm -f "$err"
    [ "$rc" -eq 0 ] && echo "serve from the package: page and leaflet.js served, exit 0 on SIGTERM"
    return "$rc"
}

# This machine's architecture only: make deb-arm64 leaves an arm64 package beside it.
arch=$(dpkg --print-architecture)
debs=(loctrack_*_"$arch".deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || { echo "expected one loctrack_*_$arch.deb, found: ${debs[*]}"; exit 1; }
if dpkg-query -W -f='${Status}' loctrack 2>/dev/null | grep -q 'install ok installed'; then
    echo "loctrack is already installed on this machine: not replacing it"
    exit 0
fi
. /etc/os-release 2>/dev/null && echo "installing ${debs[0]} on $PRETTY_NAME"
before=$(dpkg-query -W -f='${Package}\n' | sort)
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "./${debs[0]}"
after=$(dpkg-query -W -f='${Package}\n' | sort)
new=$(comm -13 <(echo "$before") <(echo "$after") | grep -vx loctrack || true)
rc=0
/usr/bin/loctrack --version || rc=$?
[ "$(/usr/bin/loctrack --version)" = "loctrack $(make -s --no-print-directory print-version)" ] || { echo "version mismatch"; rc=1; }
if command -v systemd-analyze >/dev/null 2>&1; then
    systemd-analyze verify /usr/lib/systemd/system/loctrack.service || rc=$?
    systemd-analyze verify /usr/lib/systemd/system/loctrack-serve.service || rc=$?
else
    echo "systemd-analyze not here: the units are not verified"
fi
stream_from_package || rc=1
serve_from_package || rc=1
trips_from_package || rc=1
# shellcheck disable=SC2086 # one package name a word
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get purge -y loctrack ${new:+$new}
exit "$rc"
