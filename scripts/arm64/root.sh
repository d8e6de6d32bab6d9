#!/usr/bin/env bash
# Make (once) and keep one Debian root for the arm64 package (make deb-arm64 uses three:
# scripts/arm64/roots.sh names them). Same pattern as scripts/trixie/root.sh, with the
# architecture, the suite and the packages as parameters; a foreign-architecture root
# (arm64 here) is debootstrapped through qemu-user-static's binfmt handler
# (scripts/arm64/qemu.sh registers it).
#
#   ROOT      where the root lives (kept between runs, e.g. /var/cache/loctrack-arm64-*)
#   ARCH      amd64 or arm64
#   SUITE     trixie, unstable, ...
#   PACKAGES  the packages to install (space-separated)
#   FOREIGN_ARCH  an architecture added to dpkg in the root (optional), so that apt-get
#             download can fetch that architecture's packages
#   MIRROR    the Debian archive (default: the first Debian URI of this machine's apt sources)
#
# Idempotent: a root whose stamp lists the same suite, architecture and packages is left as it
# is. A half-made root (no stamp) is made again from scratch. Needs root (debootstrap, chroot).
set -euo pipefail

: "${ROOT:?}" "${ARCH:?}" "${SUITE:?}" "${PACKAGES:?}" "${FOREIGN_ARCH:=}"
NAME=$(basename "$ROOT")
STAMP=$ROOT/.loctrack-root
WANT="$SUITE $ARCH ${FOREIGN_ARCH:++$FOREIGN_ARCH }$(printf '%s\n' $PACKAGES | sort | tr '\n' ' ')"

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ]; then
    echo "$NAME: $ROOT (cached)"
    exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "$NAME: needs root (debootstrap, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || apt-get install -y debootstrap >/dev/null

mirror=${MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
        | grep -E '^(URIs:|deb )' | grep -oE 'https?://[^ ]+/debian/?' | head -n1 || true)
fi
[ -n "$mirror" ] || { echo "$NAME: no Debian mirror in this machine's apt sources; set MIRROR" >&2; exit 1; }

start=$SECONDS
if [ ! -x "$ROOT/usr/bin/apt-get" ] || [ ! -f "$ROOT/.debootstrap-done" ]; then
    if grep -q " $ROOT/" /proc/mounts; then
        echo "$NAME: something is still mounted under $ROOT; unmount it first" >&2; exit 1
    fi
    rm -rf "$ROOT"
    mkdir -p "$(dirname "$ROOT")"
    echo "$NAME: debootstrap $SUITE ($ARCH) into $ROOT from $mirror"
    debootstrap --arch="$ARCH" --variant=minbase "$SUITE" "$ROOT" "$mirror" >"$ROOT.debootstrap.log" 2>&1 \
        || { echo "$NAME: debootstrap failed, see $ROOT.debootstrap.log" >&2; exit 1; }
    touch "$ROOT/.debootstrap-done"
    echo "$NAME: debootstrap took $((SECONDS - start)) s"
fi

printf 'deb %s %s main\n' "$mirror" "$SUITE" >"$ROOT/etc/apt/sources.list"
# Services must not start inside the root when packages install (gpsd).
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
chmod +x "$ROOT/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf" 2>/dev/null || true
# The archive this machine reaches can be a copy whose Release files are past their
# Valid-Until (seen here for unstable: "is expired (invalid since 22d)"); they are still
# signed and checked, only their age is not.
echo 'Acquire::Check-Valid-Until "false";' >"$ROOT/etc/apt/apt.conf.d/99loctrack-no-valid-until"
[ -z "$FOREIGN_ARCH" ] || chroot "$ROOT" dpkg --add-architecture "$FOREIGN_ARCH"

t=$SECONDS
chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive LC_ALL=C apt-get update -q >/dev/null
# shellcheck disable=SC2086 # PACKAGES is a list
chroot "$ROOT" env DEBIAN_FRONTEND=noninteractive LC_ALL=C \
    apt-get install -y -q --no-install-recommends $PACKAGES >"$ROOT.apt.log" 2>&1 \
    || { echo "$NAME: apt-get install failed, see $ROOT.apt.log" >&2; exit 1; }
chroot "$ROOT" apt-get clean
echo "$NAME: packages installed in $((SECONDS - t)) s"
echo "$WANT" >"$STAMP"
echo "$NAME: ready in $((SECONDS - start)) s"
