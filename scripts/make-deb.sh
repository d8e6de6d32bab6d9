#!/usr/bin/env bash
# The second half of `make deb`: turns the staging folder that `make install
# DESTDIR=$STAGE PREFIX=/usr` filled into loctrack_VERSION_ARCH.deb, then runs lintian.
# See docs/packaging.md for what the package holds and why. The package is for the
# architecture of the system it runs on (dpkg --print-architecture), with that system's strip,
# ldd and dpkg-shlibdeps: make deb-arm64 runs it inside an arm64 Debian root under qemu
# (scripts/arm64/package.sh).
#
#   STAGE       the staging folder (make install's DESTDIR); its DEBIAN/ is written here
#   VERSION     upstream version, the one `loctrack --version` prints (Makefile: HelpText.swift)
#   REVISION    the Debian revision (default 1): the package version is VERSION-REVISION
#   OUTDIR      where the .deb goes (default .)
#   MAINTAINER  "Name <address>" (default: the last commit's author)
#   LINTIAN     yes (default): lintian must report no errors; no: skip it
#   COMMIT      the commit named in the changelog (default: git rev-parse --short HEAD),
#               for a root without git or without this repository's .git
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

: "${STAGE:?}" "${VERSION:?}" "${REVISION:=1}" "${OUTDIR:=.}" "${LINTIAN:=yes}"
: "${MAINTAINER:=$(git log -1 --format='%an <%ae>' 2>/dev/null || echo 'loctrack maintainers <root@localhost>')}"
PACKAGE=loctrack
ARCH=$(dpkg --print-architecture)
DEB_VERSION=$VERSION-$REVISION
DEB=$OUTDIR/${PACKAGE}_${DEB_VERSION}_$ARCH.deb
BINARY=$STAGE/usr/bin/loctrack
SERVER=$STAGE/usr/lib/loctrack/loctrack-serve
TRIPS=$STAGE/usr/lib/loctrack/loctrack-trips
DOCDIR=$STAGE/usr/share/doc/$PACKAGE
# Reproducible: every timestamp is the commit's (dpkg-deb clamps file times to it too).
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}
: "${COMMIT:=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}"

fail() { echo "make deb: $*" >&2; exit 1; }

for program in "$BINARY" "$SERVER" "$TRIPS"; do
    [ -x "$program" ] || fail "$program is missing: run make install DESTDIR=$STAGE PREFIX=/usr first"
    # Each must run without the Swift toolchain: no library from it, no RUNPATH.
    if ldd "$program" | grep -E '/opt/swift|/usr/lib/swift|swift_static|libswift|libFoundation|libdispatch' ; then
        fail "$program needs libraries of the Swift toolchain (above); build it with --static-swift-stdlib"
    fi
    if objdump -p "$program" | grep -E 'RPATH|RUNPATH'; then
        fail "$program has a library search path (above); build it with --disable-local-rpath"
    fi
done
[ "$("$BINARY" --version)" = "loctrack $VERSION" ] || fail "$BINARY --version is not 'loctrack $VERSION'"

# Debian's dh_strip does the same: symbols and debug information go, code and Swift's
# metadata sections stay.
strip --remove-section=.comment --remove-section=.note --strip-unneeded "$BINARY" "$SERVER" "$TRIPS"
gzip -9nf "$STAGE/usr/share/man/man1/loctrack.1"

install -d "$DOCDIR"
cat > "$STAGE/changelog.Debian" <<EOF
$PACKAGE ($DEB_VERSION) unstable; urgency=medium

  * Built by \`make deb\` from git commit $COMMIT; the project's changes are
    its git history.

 -- $MAINTAINER  $(date -R -u -d "@$SOURCE_DATE_EPOCH")
EOF
gzip -9n < "$STAGE/changelog.Debian" > "$DOCDIR/changelog.Debian.gz"
rm "$STAGE/changelog.Debian"
sed "s|@YEAR@|$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y)|; s|@MAINTAINER@|$MAINTAINER|" \
    dist/debian/copyright > "$DOCDIR/copyright"
chmod 0644 "$DOCDIR/copyright" "$DOCDIR/changelog.Debian.gz"

# Dependencies: dpkg-shlibdeps reads the libraries the binaries link (libgps28,
# libmosquitto1, libxml2 for loctrack-trips, libsqlite3-0 for loctrack-serve's charts, libc6,
# libstdc++6, libgcc-s1) with the versions
# their symbols need; the server's page needs Debian's Leaflet (read from
# /usr/share/javascript/leaflet); the Traccar uplink loads libcurl.so.4 with dlopen (so
# dpkg-shlibdeps cannot see it): libcurl4 (every call it makes is in libcurl 7.32 and later,
# so no version is asked for).
# It runs in a source package being built: a debian/control in the current folder (a
# throwaway one will do) and a DEBIAN folder at the root of the package's files.
install -d -m 0755 "$STAGE/DEBIAN"
SHLIBS=$(mktemp -d)
trap 'rm -rf "$SHLIBS"' EXIT
mkdir "$SHLIBS/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$PACKAGE" "$PACKAGE" > "$SHLIBS/debian/control"
BINARY_PATH=$(realpath "$BINARY")
SERVER_PATH=$(realpath "$SERVER")
TRIPS_PATH=$(realpath "$TRIPS")
DEPENDS=$(cd "$SHLIBS" && dpkg-shlibdeps -O "$BINARY_PATH" "$SERVER_PATH" "$TRIPS_PATH" | sed -n 's/^shlibs:Depends=//p')
[ -n "$DEPENDS" ] || fail "dpkg-shlibdeps found no dependencies"
DEPENDS="$DEPENDS, libcurl4, libjs-leaflet"

INSTALLED_SIZE=$(du -sk --exclude=DEBIAN "$STAGE" | cut -f1)
cat > "$STAGE/DEBIAN/control" <<EOF
Package: $PACKAGE
Version: $DEB_VERSION
Architecture: $ARCH
Maintainer: $MAINTAINER
Installed-Size: $INSTALLED_SIZE
Depends: $DEPENDS
Recommends: gpsd
Section: misc
Priority: optional
Description: GPS fixes from gpsd, one per epoch, as JSON, GPX, CSV or GeoJSON
 loctrack reads live fixes from gpsd and writes one per GPS epoch, with gpsd's
 own field names: JSON lines, text, CSV, GPX 1.1, GeoJSON or OwnTracks. It
 records tracks into daily files that stay valid whatever ends the process,
 reports when the receiver enters or leaves named geofences, and publishes to
 an MQTT broker through an on-disk spool that loses nothing. \`loctrack serve\`
 shows the position, the track, the satellites and the receiver's state live
 in a browser, with no internet connection needed. \`loctrack trips\` lists the
 trips in recorded tracks (its own, or GPX from other programs).
 .
 The package includes two systemd units, neither enabled on installation: one
 records daily GPX files in /var/lib/loctrack, the other serves the live map
 to this computer (others with a token).
EOF
# Kept across upgrades when the administrator changed them.
printf '%s\n' /etc/default/loctrack /etc/default/loctrack-serve > "$STAGE/DEBIAN/conffiles"
# Stop on removal, restart a running service after an upgrade; never enable or start.
for script in postinst prerm postrm; do
    install -m 0755 "dist/debian/$script" "$STAGE/DEBIAN/$script"
done
(cd "$STAGE" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) \
    > "$STAGE/DEBIAN/md5sums"
chmod 0644 "$STAGE/DEBIAN/control" "$STAGE/DEBIAN/conffiles" "$STAGE/DEBIAN/md5sums"

mkdir -p "$OUTDIR"
dpkg-deb --build --root-owner-group "$STAGE" "$DEB"
echo "built $DEB: Depends: $DEPENDS"

if [ "$LINTIAN" = yes ]; then
    command -v lintian >/dev/null 2>&1 || fail "lintian is not installed (make deb installs it; LINTIAN=no skips it)"
    echo "lintian $DEB:"
    # Errors fail the build; the warnings left are explained in docs/packaging.md.
    lintian --fail-on error --display-info "$DEB"
fi
