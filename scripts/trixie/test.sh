#!/usr/bin/env bash
# Run a make target (default: test) of this repository inside the trixie root that
# scripts/trixie/root.sh makes, against trixie's gpsd 3.25 and libgps 3.25, with this
# machine's swift.org toolchain (/opt/swift, built for Debian 12) bind-mounted read-only.
#
#   TRIXIE_ROOT    the root (default /var/cache/loctrack-trixie)
#   TRIXIE_SWIFT   the toolchain folder to mount at /opt/swift (default /opt/swift)
#   TRIXIE_TARGETS the make targets (default: test), e.g. "demo test"
#   GPSD_LOGS      gpsd's recordings for `make conformance` and `make fuzz` (default
#                  ../shared/gpsd-logs beside this checkout, when it exists): mounted read-only
#                  at /src/shared/gpsd-logs, which is ../shared/gpsd-logs of the root's clone, so
#                  the targets find them as they do on the host. Nothing is mounted without them
#                  (make test does not need them).
#
# The sources: a clone kept in the root at /src/loctrack (its .build is kept, so a second run
# builds incrementally), set to this checkout's HEAD plus its uncommitted changes and new files
# (not those git ignores). Everything runs in new mount, IPC, PID and network namespaces (loopback only): the
# mounts (proc, sys, dev, a new devpts, /tmp, the toolchain) vanish with the namespaces when
# the run ends however it ends, gpsd's SysV shared memory and the tests' ports are the root's
# own, and no process outlives the run.
set -euo pipefail

ROOT=${TRIXIE_ROOT:-/var/cache/loctrack-trixie}
TOOLCHAIN=${TRIXIE_SWIFT:-/opt/swift}
TARGETS=${TRIXIE_TARGETS:-test}
REPO=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
LOGS=${GPSD_LOGS:-$REPO/../shared/gpsd-logs}

if [ "${1:-}" = --inside ]; then
    # In the new namespaces (PID 1 here): mounts are private to them.
    mount --make-rprivate /
    mount -t proc proc "$ROOT/proc"
    mount -t sysfs sys "$ROOT/sys"
    mount -t tmpfs -o mode=755 dev "$ROOT/dev"
    for node in null zero full random urandom tty; do
        touch "$ROOT/dev/$node"
        mount --bind "/dev/$node" "$ROOT/dev/$node"
    done
    mkdir -p "$ROOT/dev/pts" "$ROOT/dev/shm"
    mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$ROOT/dev/pts"
    ln -s pts/ptmx "$ROOT/dev/ptmx"
    mount -t tmpfs shm "$ROOT/dev/shm"
    ln -s /proc/self/fd "$ROOT/dev/fd"
    mount -t tmpfs -o mode=1777 tmp "$ROOT/tmp"
    mkdir -p "$ROOT/opt/swift"
    mount --bind "$TOOLCHAIN" "$ROOT/opt/swift"
    mount -o remount,bind,ro "$ROOT/opt/swift"
    if [ -d "$LOGS" ]; then
        mkdir -p "$ROOT/src/shared/gpsd-logs"
        mount --bind "$LOGS" "$ROOT/src/shared/gpsd-logs"
        mount -o remount,bind,ro "$ROOT/src/shared/gpsd-logs"
    fi
    ip link set lo up
    exec chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb TMPDIR=/tmp \
        PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        ${CI:+CI=$CI} bash -c "cd /src/loctrack && swift --version 2>&1 | head -n1 && time make $TARGETS"
fi

[ "$(id -u)" -eq 0 ] || { echo "trixie test: needs root (chroot, namespaces)" >&2; exit 1; }
bash "$(dirname "$0")/root.sh"
[ -x "$TOOLCHAIN/usr/bin/swift" ] || { echo "trixie test: no toolchain at $TOOLCHAIN" >&2; exit 1; }

# The sources: HEAD of this checkout, then its uncommitted changes.
SRC=$ROOT/src/loctrack
head=$(git -C "$REPO" rev-parse HEAD)
[ -d "$SRC/.git" ] || git clone -q --no-checkout "$REPO" "$SRC"
git -C "$SRC" fetch -q "$REPO" "$head"
git -C "$SRC" checkout -q --force --detach "$head"
git -C "$SRC" clean -q -fdx -e /.build -e /Serve/.build
git -C "$REPO" diff --binary HEAD | git -C "$SRC" apply --allow-empty
# and its new files that git does not ignore
git -C "$REPO" ls-files -z --others --exclude-standard | (cd "$REPO" && tar --null -T - -cf -) | tar -xf - -C "$SRC"
echo "trixie test: $(git -C "$SRC" log -1 --format='%h %s') $(git -C "$REPO" diff --quiet HEAD || echo '+ uncommitted changes')"

# Serve/ builds against packages from GitHub, and no Package.resolved is committed: a target that
# builds it (make deb, serve, serve-unit) gets them resolved here, with this machine's network and
# toolchain, into the clone's Serve/.build, as the namespaces below have loopback only.
if [[ " $TARGETS " =~ \ (deb|serve|serve-unit|serve-test)\  ]]; then
    "$TOOLCHAIN/usr/bin/swift" package resolve --package-path "$SRC/Serve" --scratch-path "$SRC/Serve/.build"
fi

unshare --mount --ipc --pid --net --uts --fork --kill-child env TRIXIE_ROOT="$ROOT" TRIXIE_SWIFT="$TOOLCHAIN" \
    TRIXIE_TARGETS="$TARGETS" GPSD_LOGS="$LOGS" bash "$0" --inside &
namespaces=$!
# unshare ignores SIGINT and SIGTERM while it waits: a stopped run kills the namespaces' first
# process instead, and the kernel then ends every process in them and drops their mounts.
trap 'pkill -KILL -P "$namespaces"; wait "$namespaces"; exit 130' INT TERM
wait "$namespaces"
