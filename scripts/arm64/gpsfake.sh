#!/usr/bin/env bash
# gpsfake alone, for the arm64 run root: Debian's gpsd-clients, the package that holds it,
# depends on GTK and python3-matplotlib (for xgps and gpsplot), whose byte-compilation under
# qemu took over half an hour here (scipy, sympy) and was stopped. gpsfake itself is one
# Python script that needs only python3-gps (gps.fake), which the root has; it is taken from
# the root's own gpsd-clients package (apt-get download, the same version as its gpsd) into
# /usr/local/bin.
#
#   ROOT  the arm64 root (gpsd and python3-gps installed)
# Idempotent: kept while the root has it.
set -euo pipefail

: "${ROOT:?}"
[ -x "$ROOT/usr/local/bin/gpsfake" ] && exit 0
version=$(chroot "$ROOT" dpkg-query -W -f='${Version}' gpsd)
rm -rf "$ROOT/tmp/gpsfake"
mkdir -p "$ROOT/tmp/gpsfake"
chroot "$ROOT" sh -c "cd /tmp/gpsfake && apt-get download -q gpsd-clients=$version" >/dev/null 2>&1
dpkg-deb --fsys-tarfile "$ROOT"/tmp/gpsfake/gpsd-clients_*.deb | tar -xf - -C "$ROOT/tmp/gpsfake" ./usr/bin/gpsfake
install -m 0755 "$ROOT/tmp/gpsfake/usr/bin/gpsfake" "$ROOT/usr/local/bin/gpsfake"
rm -rf "$ROOT/tmp/gpsfake"
echo "gpsfake: from gpsd-clients $version into $ROOT/usr/local/bin"
