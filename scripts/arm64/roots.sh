#!/usr/bin/env bash
# The three Debian roots make deb-arm64 uses, each made once by scripts/arm64/root.sh and kept
# in /var/cache (outside the repository), plus what the cross build needs in the first:
#   loctrack-arm64-swift    amd64 Debian unstable with Debian's swiftlang (the compiler),
#                           the arm64 Swift runtime of the same version (runtime.sh) and the
#                           Swift SDK (sdk.sh). Unstable: its swiftlang is 6.2.3, the first
#                           that builds Serve/ (its pinned dependencies need swift-tools-version
#                           6.2; trixie's swiftlang is 6.0.3)
#   loctrack-arm64-sysroot  arm64 Debian trixie with the C libraries' -dev packages: the
#                           cross build's sysroot, and where the package is made (make, binutils,
#                           dpkg-dev: arm64's strip and dpkg-shlibdeps, under qemu)
#   loctrack-arm64-run      arm64 Debian trixie with gpsd 3.25, python3-gps and gpsfake
#                           (gpsfake.sh): where the package is installed with apt and run
# The arm64 roots run under qemu-user-static (qemu.sh registers it first).
#
#   ARM64_CACHE  the folder of the roots (default /var/cache)
set -euo pipefail

HERE=$(dirname "$0")
CACHE=${ARM64_CACHE:-/var/cache}
# One maker at a time: two runs would debootstrap into the same folder.
mkdir -p "$CACHE"
exec 9>"$CACHE/loctrack-arm64.lock"
flock 9
bash "$HERE/qemu.sh"
ROOT=$CACHE/loctrack-arm64-swift ARCH=amd64 SUITE=unstable FOREIGN_ARCH=arm64 \
    PACKAGES="swiftlang libc6-dev libstdc++-16-dev git pkg-config" bash "$HERE/root.sh"
SWIFT_ROOT=$CACHE/loctrack-arm64-swift bash "$HERE/runtime.sh"
SWIFT_ROOT=$CACHE/loctrack-arm64-swift bash "$HERE/sdk.sh"
ROOT=$CACHE/loctrack-arm64-sysroot ARCH=arm64 SUITE=trixie \
    PACKAGES="libgps-dev libmosquitto-dev libxml2-dev libcurl4-openssl-dev libsqlite3-dev libc6-dev libgcc-14-dev libstdc++-14-dev zlib1g-dev make dpkg-dev binutils file" \
    bash "$HERE/root.sh"
ROOT=$CACHE/loctrack-arm64-run ARCH=arm64 SUITE=trixie PACKAGES="gpsd python3-gps python3 procps" \
    bash "$HERE/root.sh"
ROOT=$CACHE/loctrack-arm64-run bash "$HERE/gpsfake.sh"
