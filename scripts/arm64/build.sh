#!/usr/bin/env bash
# Cross-build loctrack, loctrack-trips and loctrack-serve for Debian arm64 in the Swift root
# (amd64 Debian unstable with Debian's swiftlang 6.2.3, which the Serve package's
# dependencies need: swift-tools-version 6.2), with the Swift SDK of scripts/arm64/sdk.sh:
# release builds with the Swift runtime linked in (--static-swift-stdlib), as make deb does.
# Output: .build-arm64/root/release/{loctrack,loctrack-trips,loctrack-serve} (aarch64).
#
# In new mount and PID namespaces, bind-mounted into the Swift root: this checkout at
# /src/loctrack, the arm64 sysroot at /sysroot (read-only), and /opt/swift-packages
# (read-only), the local copies that every https://github.com/ package resolves to on this
# machine (the same url.insteadOf as this machine's /etc/gitconfig is written into the root).
# The C libraries are found through the sysroot's own pkg-config files (PKG_CONFIG_PATH,
# PKG_CONFIG_SYSROOT_DIR).
#
#   SWIFT_ROOT    the amd64 root with swiftlang (default /var/cache/loctrack-arm64-swift)
#   SYSROOT       the arm64 trixie root with the -dev packages (default /var/cache/loctrack-arm64-sysroot)
#   SWIFT_FLAGS   the build flags (the Makefile passes DEB_SWIFT_FLAGS)
#   SCRATCH       the scratch path, relative to the checkout (default .build-arm64)
set -euo pipefail

SWIFT_ROOT=${SWIFT_ROOT:-${ARM64_CACHE:-/var/cache}/loctrack-arm64-swift}
SYSROOT=${SYSROOT:-${ARM64_CACHE:-/var/cache}/loctrack-arm64-sysroot}
SWIFT_FLAGS=${SWIFT_FLAGS:---static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now}
SCRATCH=${SCRATCH:-.build-arm64}
PACKAGES_DIR=/opt/swift-packages
REPO=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)

if [ "${1:-}" = --inside ]; then
    mount --make-rprivate /
    mount -t proc proc "$SWIFT_ROOT/proc"
    mount --rbind /dev "$SWIFT_ROOT/dev"
    mount -t tmpfs -o mode=1777 tmp "$SWIFT_ROOT/tmp"
    for pair in "$REPO:/src/loctrack:rw" "$SYSROOT:/sysroot:ro" "$PACKAGES_DIR:$PACKAGES_DIR:ro"; do
        IFS=: read -r from to mode <<<"$pair"
        mkdir -p "$SWIFT_ROOT$to"
        mount --bind "$from" "$SWIFT_ROOT$to"
        [ "$mode" = rw ] || mount -o remount,bind,ro "$SWIFT_ROOT$to"
    done
    # The arm64 Swift runtime where the driver also looks for it, in the sysroot (swiftrt.o:
    # SDK/usr/lib/swift_static/linux/aarch64), as in the SDKs of swift-sdk-generator.
    for dir in swift swift_static clang; do
        mount --bind "$SWIFT_ROOT/opt/swift-arm64/usr/libexec/swift/lib/$dir" "$SWIFT_ROOT/sysroot/usr/lib/$dir"
    done
    sdk=(--swift-sdks-path /opt/loctrack-sdks --swift-sdk loctrack-arm64)
    exec chroot "$SWIFT_ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb TMPDIR=/tmp \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        PKG_CONFIG_PATH=/sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:/sysroot/usr/share/pkgconfig \
        PKG_CONFIG_SYSROOT_DIR=/sysroot \
        bash -euo pipefail -c "
            cd /src/loctrack
            swift --version 2>/dev/null | grep \"Swift version\"
            swift build -c release --product loctrack --scratch-path $SCRATCH/root ${sdk[*]} $SWIFT_FLAGS
            swift build -c release --product loctrack-trips --scratch-path $SCRATCH/root ${sdk[*]} $SWIFT_FLAGS
            swift build -c release --package-path Serve --scratch-path $SCRATCH/serve --product loctrack-serve ${sdk[*]} $SWIFT_FLAGS
            cp $SCRATCH/serve/release/loctrack-serve $SCRATCH/root/release/loctrack-serve
        "
fi

[ "$(id -u)" -eq 0 ] || { echo "arm64 build: needs root (chroot, namespaces)" >&2; exit 1; }
# Every github.com package resolves to this machine's local copies, in the root as here.
git config --system --get-regexp '^url\.' | while read -r key value; do
    git config --file "$SWIFT_ROOT/etc/gitconfig" --replace-all "$key" "$value" "^$(printf '%s' "$value" | sed 's/[.[\*^$]/\\&/g')\$"
done
# Mount points for the Swift runtime in the sysroot (empty folders; nothing is copied there).
mkdir -p "$SYSROOT/usr/lib/swift" "$SYSROOT/usr/lib/swift_static" "$SYSROOT/usr/lib/clang"
start=$SECONDS
unshare --mount --pid --fork --kill-child env SWIFT_ROOT="$SWIFT_ROOT" SYSROOT="$SYSROOT" SWIFT_FLAGS="$SWIFT_FLAGS" \
    SCRATCH="$SCRATCH" bash "$0" --inside
file -L "$REPO/$SCRATCH/root/release/loctrack" "$REPO/$SCRATCH/root/release/loctrack-trips" "$REPO/$SCRATCH/root/release/loctrack-serve" \
    | sed "s|$REPO/||"
echo "arm64 build: $((SECONDS - start)) s"
