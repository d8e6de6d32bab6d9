#!/usr/bin/env bash
# Make (once) and keep a Debian 13 "trixie" root (amd64) in which loctrack is built and tested
# against trixie's gpsd 3.25 and libgps 3.25, with the swift.org toolchain of this machine
# bind-mounted (scripts/trixie/test.sh runs make test there).
#
#   TRIXIE_ROOT  where the root lives (default /var/cache/loctrack-trixie; kept between runs,
#                outside the repository and its build folders)
#   TRIXIE_MIRROR  the Debian archive to debootstrap from (default: the first Debian URI of
#                this machine's own apt sources)
#
# Idempotent: a root whose stamp lists the same packages is left as it is (about a second).
# A half-made root (no stamp) is made again from scratch. Needs root (debootstrap, chroot).
set -euo pipefail

ROOT=${TRIXIE_ROOT:-/var/cache/loctrack-trixie}
# What `make deps`, `make test-deps` and `make deb` install (scripts/install-deps.sh build demo
# test deb), and the swift.org toolchain's documented prerequisites for Debian, with trixie's
# gcc 14.
PACKAGES=(
    libgps-dev libmosquitto-dev libxml2-dev libcurl4-openssl-dev libsqlite3-dev
    gpsd gpsd-clients libjs-leaflet
    mosquitto mosquitto-clients zsh fish sqlite3
    dpkg-dev lintian
    binutils gcc g++ git gnupg2 libc6-dev libedit2 libgcc-14-dev libpython3-dev libsqlite3-0
    libstdc++-14-dev libz3-dev pkg-config python3 tzdata unzip zlib1g-dev make ca-certificates
    procps iproute2
)
STAMP=$ROOT/.loctrack-trixie-root
WANT=$(printf '%s\n' "${PACKAGES[@]}" | sort | tr '\n' ' ')

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then
    echo "trixie root: $ROOT (cached)"
    exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "trixie root: needs root (debootstrap, chroot)" >&2; exit 1; }
bash "$(dirname "$0")/../install-deps.sh" trixie >/dev/null

mirror=${TRIXIE_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
        | grep -E '^(URIs:|deb )' | grep -oE 'https?://[^ ]+/debian/?' | head -n1 || true)
fi
[ -n "$mirror" ] || { echo "trixie root: no Debian mirror in this machine's apt sources; set TRIXIE_MIRROR" >&2; exit 1; }

start=$SECONDS
if [ ! -x "$ROOT/usr/bin/apt-get" ] || [ ! -f "$ROOT/.debootstrap-done" ]; then
    # A root left half-made by an interrupted run: nothing mounted in it may remain.
    if grep -q " $ROOT/" /proc/mounts; then
        echo "trixie root: something is still mounted under $ROOT; unmount it first" >&2; exit 1
    fi
    rm -rf "$ROOT"
    mkdir -p "$(dirname "$ROOT")"
    echo "trixie root: debootstrap trixie into $ROOT from $mirror"
    debootstrap --arch=amd64 --variant=minbase trixie "$ROOT" "$mirror" >"$ROOT.debootstrap.log" 2>&1 \
        || { echo "trixie root: debootstrap failed, see $ROOT.debootstrap.log" >&2; exit 1; }
    touch "$ROOT/.debootstrap-done"
    echo "trixie root: debootstrap took $((SECONDS - start)) s"
fi

printf 'deb %s trixie main\n' "$mirror" >"$ROOT/etc/apt/sources.list"
# Services must not start inside the root when packages install (gpsd, mosquitto).
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
chmod +x "$ROOT/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true

t=$SECONDS
chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get update -q >/dev/null
chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive LC_ALL=C \
    apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" >"$ROOT.apt.log" 2>&1 \
    || { echo "trixie root: apt-get install failed, see $ROOT.apt.log" >&2; exit 1; }
echo "trixie root: packages installed in $((SECONDS - t)) s"
chroot "$ROOT" dpkg-query -W -f='trixie root: ${Package} ${Version}\n' gpsd libgps-dev fish
echo "$WANT" >"$STAMP"
echo "trixie root: ready in $((SECONDS - start)) s"
