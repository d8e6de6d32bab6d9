#!/usr/bin/env bash
# Install the arm64 package with apt in an arm64 Debian trixie root under qemu-user-static and
# use it there against trixie's gpsd 3.25 fed by gpsfake with the demo drive:
#   1 apt-get install ./loctrack_VERSION-REVISION_arm64.deb (its Depends come from trixie)
#   2 loctrack stream: the demo (scripts/demo.sh with LOCTRACK=/usr/bin/loctrack)
#   3 loctrack serve: the page and leaflet.js (as .ci/run's serve_from_package), and
#     /api/fix while gpsfake replays the drive
#   4 loctrack trips: a GPX of two points (as .ci/run's trips_from_package)
# The root (scripts/arm64/roots.sh: gpsd, gpsd-clients, python3) is never changed: the run
# works on an overlay of it whose changes live in a tmpfs of new mount, IPC and PID namespaces
# and vanish with them, so each run installs the package into the same clean trixie. This
# checkout is mounted read-only at /src/loctrack (the demo's recording and script). The
# network is this machine's (apt needs the archive); ports are free ones on 127.0.0.1.
#
#   RUN_ROOT  the arm64 trixie root (default /var/cache/loctrack-arm64-run)
#   DEB       the package (default ./loctrack_VERSION-1_arm64.deb from the Makefile)
#   CYCLE     gpsfake -c for the demo (default 0.05: gpsd, gpsfake and loctrack all run
#             emulated)
set -euo pipefail

RUN_ROOT=${RUN_ROOT:-${ARM64_CACHE:-/var/cache}/loctrack-arm64-run}
: "${DEB:?}" "${CYCLE:=0.05}"
REPO=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
DEB=$(realpath "$DEB")

if [ "${1:-}" = --inside ]; then
    mount --make-rprivate /
    layers=$RUN_ROOT.overlay
    mount -t tmpfs layers "$layers"
    mkdir "$layers/upper" "$layers/work" "$layers/merged"
    mount -t overlay overlay -o "lowerdir=$RUN_ROOT,upperdir=$layers/upper,workdir=$layers/work" "$layers/merged"
    R=$layers/merged
    mount -t proc proc "$R/proc"
    mount --rbind /dev "$R/dev"
    mount -t tmpfs -o mode=1777 tmp "$R/tmp"
    mkdir -p "$R/src/loctrack"
    mount --bind "$REPO" "$R/src/loctrack"
    mount -o remount,bind,ro "$R/src/loctrack"
    cp "$DEB" "$R/tmp/"
    exec chroot "$R" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb TMPDIR=/tmp \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        DEB="/tmp/$(basename "$DEB")" CYCLE="$CYCLE" bash "/src/loctrack/scripts/arm64/run-inside.sh"
fi

[ "$(id -u)" -eq 0 ] || { echo "arm64 run: needs root (chroot, namespaces)" >&2; exit 1; }
[ -f "$DEB" ] || { echo "arm64 run: no $DEB" >&2; exit 1; }
# The overlay's mount point (empty; its tmpfs exists only in the namespaces).
mkdir -p "$RUN_ROOT.overlay"
start=$SECONDS
unshare --mount --ipc --pid --uts --fork --kill-child env RUN_ROOT="$RUN_ROOT" DEB="$DEB" CYCLE="$CYCLE" \
    bash "$0" --inside
echo "arm64 run: $((SECONDS - start)) s"
