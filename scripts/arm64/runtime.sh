#!/usr/bin/env bash
# The arm64 Swift runtime and modules the cross compiler links against: Debian's own arm64
# packages of the same swiftlang version as the compiler in the Swift root (a compiler reads
# only modules of its own version), unpacked with dpkg -x into the Swift root at
# /opt/swift-arm64 (not installed: an amd64 root cannot install them, and only their
# lib/swift (modules) and lib/swift_static (static libraries) are used, by the Swift SDK that
# scripts/arm64/sdk.sh writes).
#
#   SWIFT_ROOT  the amd64 root with swiftlang and dpkg's arm64 architecture added
#               (scripts/arm64/roots.sh makes it)
#
# Idempotent: kept while its stamp names the compiler's version.
set -euo pipefail

: "${SWIFT_ROOT:?}"
DEST=$SWIFT_ROOT/opt/swift-arm64
STAMP=$DEST/.loctrack-runtime
version=$(chroot "$SWIFT_ROOT" dpkg-query -W -f='${Version}' swiftlang)

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$version" ]; then
    echo "arm64 Swift runtime: $DEST (cached, $version)"
    exit 0
fi
start=$SECONDS
rm -rf "$DEST" "$SWIFT_ROOT/tmp/arm64-debs"
mkdir -p "$SWIFT_ROOT/tmp/arm64-debs"
chroot "$SWIFT_ROOT" sh -c "cd /tmp/arm64-debs && apt-get download -q swiftlang:arm64=$version libswiftlang:arm64=$version" >/dev/null
for deb in "$SWIFT_ROOT"/tmp/arm64-debs/*.deb; do
    dpkg-deb -x "$deb" "$DEST"
done
rm -rf "$SWIFT_ROOT/tmp/arm64-debs"
# What the SDK uses; the rest (arm64 programs) is of no use on this machine.
rm -rf "$DEST/usr/libexec/swift/bin" "$DEST/usr/bin" "$DEST/usr/share"
[ -d "$DEST/usr/libexec/swift/lib/swift_static/linux" ] || { echo "arm64 Swift runtime: no swift_static in the packages" >&2; exit 1; }
echo "$version" >"$STAMP"
echo "arm64 Swift runtime: swiftlang $version (arm64) unpacked into $DEST in $((SECONDS - start)) s"
