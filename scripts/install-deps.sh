#!/usr/bin/env bash
# Install what loctrack needs from the system, and only what is missing, by purpose:
# each make target asks for the groups it needs, so `make demo` on a fresh machine
# installs the five packages that show a fix and nothing a test needs.
#
#   build   libgps-dev        libgps headers + libgps.pc (pulls in pkg-config), for `swift build`
#           libmosquitto-dev  the C client library loctrack publishes MQTT with
#           libxml2-dev       the XML parser `loctrack trips` reads GPX with (loctrack-trips only)
#           libcurl4-openssl-dev
#                             libcurl's headers, for the Traccar uplink (libcurl itself is
#                             loaded when an uplink starts; libcurl4 comes with them)
#           libsqlite3-dev    SQLite, which `loctrack serve --tiles-file` reads MBTiles charts
#                             with (only loctrack-serve links it)
#   demo    gpsd, gpsd-clients  the daemon, gpsfake and gpspipe: `make demo` replays a drive
#           libjs-leaflet     Leaflet for `loctrack serve`'s page (/usr/share/javascript/leaflet)
#   test    mosquitto, mosquitto-clients
#                             the MQTT broker the publishing tests start, and its clients
#           zsh, fish         the completion tests check the zsh and fish scripts with the
#                             shells themselves (5 small packages, about 8 MB, no daemons)
#           sqlite3           the chart tests make their MBTiles files with SQLite's own tool
#   deb     dpkg-dev, lintian `make deb`: dpkg-shlibdeps computes the package's dependencies,
#                             lintian checks the package
#   venv    python3-venv      `make ha-test` and `make serve-test` make virtual environments
#                             (Debian's python3 has no venv module without it)
#   browser chromium, chromium-driver, python3-selenium
#                             `make serve-test` and the bench's page part drive a real
#                             headless browser
#   bench   wrk, nginx-light  the bench's serve-tiles part: wrk loads `loctrack serve --tiles-file`
#                             and nginx serving the same tiles as files (started by the bench
#                             with its own configuration; installing nginx-light also starts
#                             Debian's own nginx service on port 80 where systemd runs, which
#                             the bench does not use)
#   figures graphviz          `make figures` and `make figures-check` draw the architecture
#                             figure with dot
#   trixie  debootstrap       `make trixie-root` makes a Debian 13 root with it (scripts/trixie/)
#           iproute2, procps  `make trixie-test` brings up the loopback of its network namespace
#                             (ip) and ends the namespaces when stopped (pkill): a minimal
#                             Debian 12 may lack either
#
# Usage: install-deps.sh GROUP...   (no group: build and demo, which is `make deps`)
# Debian/Ubuntu only (apt-get), any architecture. Uses sudo when not run as root.
# Does nothing, quickly, when everything asked for is already installed.
set -euo pipefail

group_packages() {
    case $1 in
        build) echo libgps-dev libmosquitto-dev libxml2-dev libcurl4-openssl-dev libsqlite3-dev ;;
        demo) echo gpsd gpsd-clients libjs-leaflet ;;
        test) echo mosquitto mosquitto-clients zsh fish sqlite3 ;;
        traccar) echo openssl ;;
        deb) echo dpkg-dev lintian ;;
        venv) echo python3-venv ;;
        browser) echo chromium chromium-driver python3-selenium ;;
        bench) echo wrk nginx-light ;;
        figures) echo graphviz ;;
        trixie) echo debootstrap iproute2 procps ;;
        *) echo "deps: no group '$1' (build, demo, test, traccar, deb, venv, browser, bench, figures, trixie)" >&2; return 1 ;;
    esac
}

GROUPS_WANTED=("$@")
[ ${#GROUPS_WANTED[@]} -gt 0 ] || GROUPS_WANTED=(build demo)
PACKAGES=()
for group in "${GROUPS_WANTED[@]}"; do
    listed=$(group_packages "$group") || exit 64
    read -r -a listed <<<"$listed"
    PACKAGES+=("${listed[@]}")
done

installed() { # dpkg's view when there is a dpkg, else look for the files themselves
    local pkg=$1
    if command -v dpkg-query >/dev/null 2>&1; then
        [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" = "install ok installed" ]
        return
    fi
    case $pkg in
        libgps-dev) pkg-config --exists libgps 2>/dev/null ;;
        gpsd) command -v gpsd >/dev/null 2>&1 || [ -x /usr/sbin/gpsd ] ;;
        gpsd-clients) command -v gpsfake >/dev/null 2>&1 && command -v gpspipe >/dev/null 2>&1 ;;
        mosquitto) command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] ;;
        mosquitto-clients) command -v mosquitto_pub >/dev/null 2>&1 ;;
        libmosquitto-dev) pkg-config --exists libmosquitto 2>/dev/null ;;
        libxml2-dev) pkg-config --exists libxml-2.0 2>/dev/null ;;
        libcurl4-openssl-dev) pkg-config --exists libcurl 2>/dev/null ;;
        libsqlite3-dev) pkg-config --exists sqlite3 2>/dev/null ;;
        dpkg-dev) command -v dpkg-shlibdeps >/dev/null 2>&1 ;;
        lintian | zsh | fish | openssl | sqlite3) command -v "$pkg" >/dev/null 2>&1 ;;
        python3-venv) python3 -c 'import ensurepip, venv' >/dev/null 2>&1 ;;
        libjs-leaflet) [ -f /usr/share/javascript/leaflet/leaflet.js ] ;;
        chromium) command -v chromium >/dev/null 2>&1 ;;
        chromium-driver) command -v chromedriver >/dev/null 2>&1 ;;
        python3-selenium) /usr/bin/python3 -c 'import selenium' >/dev/null 2>&1 ;;
        wrk) command -v wrk >/dev/null 2>&1 ;;
        nginx-light) command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] ;;
        debootstrap) command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] ;;
    esac
}

missing=()
for pkg in "${PACKAGES[@]}"; do
    installed "$pkg" || missing+=("$pkg")
done

if [ ${#missing[@]} -eq 0 ]; then
    echo "deps: ${PACKAGES[*]} already installed"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: missing ${missing[*]}, and there is no apt-get here." >&2
    echo "deps: install gpsd, its clients (gpsfake, gpspipe) and libgps headers by hand." >&2
    exit 1
fi

SUDO=()
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=(sudo)
    else
        echo "deps: need root to install ${missing[*]}, and sudo is not installed." >&2
        exit 1
    fi
fi

echo "deps: installing ${missing[*]}"
"${SUDO[@]}" apt-get update
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"

for pkg in "${missing[@]}"; do
    if ! installed "$pkg"; then
        echo "deps: $pkg still missing after apt-get install" >&2
        exit 1
    fi
done
echo "deps: installed ${missing[*]}"
