#!/usr/bin/env bash
# Package the arm64 build (scripts/arm64/build.sh) as loctrack_VERSION-REVISION_arm64.deb with
# the arm64 root's own tools: in the arm64 trixie root (the build's sysroot, which has the C
# libraries, make, binutils and dpkg-dev), run through qemu-user-static, this checkout (at
# /src/loctrack) is staged by make install, as make deb does, and packaged by
# scripts/make-deb.sh, whose ldd, strip, dpkg-shlibdeps and dpkg --print-architecture are
# then arm64's. lintian is not in that root (and would be slow under qemu): LINTIAN=yes (the
# Makefile's default) runs this machine's lintian on the package afterwards, errors failing,
# as make deb does.
#
#   SYSROOT   the arm64 trixie root (default /var/cache/loctrack-arm64-sysroot)
#   VERSION, REVISION, MAINTAINER   as for scripts/make-deb.sh (the Makefile passes them)
#   SCRATCH   the build's scratch path (default .build-arm64)
#   LINTIAN   yes or no (default)
set -euo pipefail

SYSROOT=${SYSROOT:-${ARM64_CACHE:-/var/cache}/loctrack-arm64-sysroot}
SCRATCH=${SCRATCH:-.build-arm64}
: "${VERSION:?}" "${REVISION:=1}" "${LINTIAN:=no}"
REPO=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel)
: "${MAINTAINER:=$(git -C "$REPO" log -1 --format='%an <%ae>')}"
SOURCE_DATE_EPOCH=$(git -C "$REPO" log -1 --format=%ct)
COMMIT=$(git -C "$REPO" rev-parse --short HEAD)

if [ "${1:-}" = --inside ]; then
    mount --make-rprivate /
    mount -t proc proc "$SYSROOT/proc"
    mount --rbind /dev "$SYSROOT/dev"
    mount -t tmpfs -o mode=1777 tmp "$SYSROOT/tmp"
    mkdir -p "$SYSROOT/src/loctrack"
    mount --bind "$REPO" "$SYSROOT/src/loctrack"
    exec chroot "$SYSROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb TMPDIR=/tmp \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        STAGE="$SCRATCH/stage" VERSION="$VERSION" REVISION="$REVISION" LINTIAN=no \
        MAINTAINER="$MAINTAINER" SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" COMMIT="$COMMIT" \
        bash -euo pipefail -c "
            cd /src/loctrack
            echo \"packaging on \$(dpkg --print-architecture): \$(uname -m), \$(strip --version | head -n1)\"
            rm -rf $SCRATCH/stage
            make --no-print-directory install DESTDIR=/src/loctrack/$SCRATCH/stage PREFIX=/usr \
                BIN=$SCRATCH/root/release/loctrack SYSTEMD_UNIT=yes >/dev/null
            bash scripts/make-deb.sh
        "
fi

[ "$(id -u)" -eq 0 ] || { echo "arm64 package: needs root (chroot, namespaces)" >&2; exit 1; }
start=$SECONDS
unshare --mount --pid --fork --kill-child env SYSROOT="$SYSROOT" SCRATCH="$SCRATCH" VERSION="$VERSION" \
    REVISION="$REVISION" MAINTAINER="$MAINTAINER" bash "$0" --inside
DEB=$REPO/loctrack_$VERSION-${REVISION}_arm64.deb
[ -f "$DEB" ] || { echo "arm64 package: $DEB was not made" >&2; exit 1; }
if [ "$LINTIAN" = yes ]; then
    echo "lintian (this machine's) $(basename "$DEB"):"
    lintian --fail-on error --display-info "$DEB"
fi
echo "arm64 package: $(basename "$DEB") in $((SECONDS - start)) s"
