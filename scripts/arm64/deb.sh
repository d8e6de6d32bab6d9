#!/usr/bin/env bash
# make deb-arm64: the stages in order, each timed, the times printed at the end and kept in
# .build-arm64/times.txt:
#   roots    the three Debian roots (roots.sh; cached after the first run)
#   build    the cross build (build.sh)
#   package  loctrack_VERSION-REVISION_arm64.deb in the arm64 root (package.sh)
#   run      apt install and the checks in a clean arm64 trixie under qemu (run.sh)
#
#   VERSION, REVISION, MAINTAINER, LINTIAN, SWIFT_FLAGS   from the Makefile
set -euo pipefail

HERE=$(dirname "$0")
: "${VERSION:?}" "${REVISION:=1}"
REPO=$(git -C "$HERE/../.." rev-parse --show-toplevel)
mkdir -p "$REPO/.build-arm64"
TIMES=$REPO/.build-arm64/times.txt
: >"$TIMES"

timed() {
    local name=$1 start=$SECONDS
    shift
    echo "== deb-arm64: $name ($(date -u +%H:%M:%S) UTC)"
    "$@"
    printf '%-8s %5d s\n' "$name" $((SECONDS - start)) >>"$TIMES"
}
timed roots bash "$HERE/roots.sh"
timed build bash "$HERE/build.sh"
timed package env VERSION="$VERSION" REVISION="$REVISION" bash "$HERE/package.sh"
timed run env DEB="$REPO/loctrack_$VERSION-${REVISION}_arm64.deb" bash "$HERE/run.sh"
echo "== deb-arm64: loctrack_$VERSION-${REVISION}_arm64.deb built, installed and run; times:"
cat "$TIMES"
