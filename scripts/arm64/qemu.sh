#!/usr/bin/env bash
# Let this amd64 machine run arm64 programs: Debian's qemu-user-static, registered with the
# kernel's binfmt_misc with the F flag (the interpreter is opened once, at registration), so
# that arm64 programs start inside chroots that have no qemu of their own (debootstrap's second
# stage, apt and dpkg in the arm64 roots, strip, dpkg-shlibdeps, gpsd and loctrack).
# Idempotent; needs root.
set -euo pipefail

if [ -r /proc/sys/fs/binfmt_misc/qemu-aarch64 ] && grep -q '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 \
    && grep -q '^flags: .*F' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
    exit 0
fi
[ "$(id -u)" -eq 0 ] || { echo "qemu: needs root (apt-get, binfmt_misc)" >&2; exit 1; }
if ! dpkg-query -W -f='${Status}' qemu-user-static binfmt-support 2>/dev/null | grep -q '^install ok installed.*install ok installed$'; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q qemu-user-static binfmt-support >/dev/null
fi
# A container's /proc may come without binfmt_misc mounted.
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
update-binfmts --enable qemu-aarch64
grep -q '^flags: .*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 \
    || { echo "qemu: qemu-aarch64 is registered without the F flag; arm64 chroots cannot run" >&2; exit 1; }
echo "qemu: $(grep '^interpreter' /proc/sys/fs/binfmt_misc/qemu-aarch64) ($(grep '^flags' /proc/sys/fs/binfmt_misc/qemu-aarch64))"
