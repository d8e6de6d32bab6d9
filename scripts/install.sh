#!/usr/bin/env bash
# `make install` and `make uninstall` (the Makefile sets the variables; `make deb` runs
# install into a staging folder). Usage: install.sh install|uninstall
#
#   DESTDIR, PREFIX     as usual; BINDIR, MANDIR, DOCDIR, ZSHDIR derive from PREFIX
#   BIN                 the built loctrack
#   SERVE_BIN           the built loctrack-serve (make serve), the server `loctrack serve` runs
#   TRIPS_BIN           the built loctrack-trips (make build), the program `loctrack trips` runs
#   COMPLETIONS         the folder holding the generated completion scripts
#                       (loctrack.bash, _loctrack, loctrack.fish: `make completions`)
#   SYSTEMD_UNIT        yes, no or auto: whether the units and their /etc/default files are
#                       installed. auto: where systemd is (/lib/systemd/system exists) and
#                       the install is a system-wide one (as root, or into a DESTDIR); a
#                       user's `make install PREFIX=$HOME/.local` gets neither
#   ENV_FILE_MODE       keep (default: an existing /etc/default/loctrack or loctrack-serve is
#                       left as it is, it may hold the user's options) or replace (make deb)
#
# What goes where ($PREFIX=/usr/local by default; the environment files are in /etc/default
# whatever PREFIX is, because that is the path the units read):
#   $BINDIR/loctrack, $MANDIR/man1/loctrack.1
#   $PREFIX/lib/loctrack/loctrack-serve   (where `loctrack serve` looks: ../lib/loctrack/ from
#                                          loctrack's folder)
#   $PREFIX/lib/loctrack/loctrack-trips   (where `loctrack trips` looks, the same way)
#   $PREFIX/share/loctrack/web/           index.html, the page's ES modules (app.js, store.js, …),
#                                          app.css, openapi.json: the page's files, the fixed list
#                                          the server reads (the server
#                                          finds them as ../../share/loctrack/web from its folder;
#                                          Leaflet comes from Debian's libjs-leaflet)
#   $PREFIX/share/bash-completion/completions/loctrack
#   $ZSHDIR/_loctrack      (share/zsh/vendor-completions for /usr, else share/zsh/site-functions)
#   $PREFIX/share/fish/vendor_completions.d/loctrack.fish
#   $PREFIX/lib/systemd/system/loctrack.service, loctrack-serve.service
#                                          (ExecStart pointing at $BINDIR/loctrack)
#   $DESTDIR/etc/default/loctrack, $DESTDIR/etc/default/loctrack-serve
#   $DOCDIR/README.md, $DOCDIR/docs/*  (the same layout as the source, so links work)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

: "${PREFIX:=/usr/local}" "${DESTDIR:=}" "${INSTALL:=install}"
: "${BINDIR:=$PREFIX/bin}" "${MANDIR:=$PREFIX/share/man}" "${DOCDIR:=$PREFIX/share/doc/loctrack}"
: "${BIN:=.build/release/loctrack}" "${SERVE_BIN:=$(dirname "$BIN")/loctrack-serve}" "${COMPLETIONS:=.build/completions}"
: "${TRIPS_BIN:=$(dirname "$BIN")/loctrack-trips}"
: "${SYSTEMD_UNIT:=auto}" "${ENV_FILE_MODE:=keep}"
if [ -z "${ZSHDIR:-}" ]; then
    # Debian's zsh reads packages' completions from /usr/share/zsh/vendor-completions and
    # the local administrator's from /usr/local/share/zsh/site-functions.
    if [ "$PREFIX" = /usr ]; then ZSHDIR=$PREFIX/share/zsh/vendor-completions; else ZSHDIR=$PREFIX/share/zsh/site-functions; fi
fi
BASHDIR=$PREFIX/share/bash-completion/completions
FISHDIR=$PREFIX/share/fish/vendor_completions.d
UNITDIR=$PREFIX/lib/systemd/system
SERVEDIR=$PREFIX/lib/loctrack
WEBDIR=$PREFIX/share/loctrack/web
# Each unit and the environment file it reads (dist/systemd/NAME.service and NAME.env).
UNITS=(loctrack loctrack-serve)
# The page's files: the list LocTrackWeb's AssetCatalog reads from the web folder (the server
# refuses to start when one is missing). Its ES modules are web/modules.txt's lines, the one
# list of them (its # lines are comments), read here rather than written out again.
mapfile -t WEB_MODULES < <(grep -v -e '^#' -e '^[[:space:]]*$' web/modules.txt)
[ "${#WEB_MODULES[@]}" -gt 0 ] || { echo "install.sh: web/modules.txt lists no module" >&2; exit 1; }
WEB_FILES=(index.html "${WEB_MODULES[@]}" app.css openapi.json)

# Files installed as they are: source, then destination (below DESTDIR).
plain_files() {
    printf '%s\n' "$BIN" "$BINDIR/loctrack" \
        "$SERVE_BIN" "$SERVEDIR/loctrack-serve" \
        "$TRIPS_BIN" "$SERVEDIR/loctrack-trips" \
        docs/loctrack.1 "$MANDIR/man1/loctrack.1" \
        "$COMPLETIONS/loctrack.bash" "$BASHDIR/loctrack" \
        "$COMPLETIONS/_loctrack" "$ZSHDIR/_loctrack" \
        "$COMPLETIONS/loctrack.fish" "$FISHDIR/loctrack.fish" \
        README.md "$DOCDIR/README.md"
    local doc file
    for file in "${WEB_FILES[@]}"; do
        printf '%s\n' "web/$file" "$WEBDIR/$file"
    done
    for doc in docs/*.md docs/*.json docs/figures/*; do
        printf '%s\n' "$doc" "$DOCDIR/$doc"
    done
}

wants_unit() {
    case $SYSTEMD_UNIT in
        yes) return 0 ;;
        no) return 1 ;;
        *) { [ -d /lib/systemd/system ] || [ -d /usr/lib/systemd/system ]; } && { [ -n "$DESTDIR" ] || [ "$(id -u)" -eq 0 ]; } ;;
    esac
}

do_install() {
    local source target mode
    while read -r source && read -r target; do
        [ -f "$source" ] || { echo "install: $source is missing (make build serve completions)" >&2; exit 1; }
        mode=0644
        case $target in "$BINDIR/loctrack" | "$SERVEDIR/loctrack-serve" | "$SERVEDIR/loctrack-trips") mode=0755 ;; esac
        "$INSTALL" -d "$DESTDIR$(dirname "$target")"
        echo "$INSTALL -m $mode $source $DESTDIR$target"
        "$INSTALL" -m "$mode" "$source" "$DESTDIR$target"
    done < <(plain_files)

    if ! wants_unit; then
        echo "note: the systemd units and /etc/default/{loctrack,loctrack-serve} not installed (no systemd, or not a system-wide install; SYSTEMD_UNIT=yes installs them)"
        return 0
    fi
    local unit envfile
    "$INSTALL" -d "$DESTDIR$UNITDIR"
    for unit in "${UNITS[@]}"; do
        # The unit names the binary by its installed path.
        echo "sed 's|/usr/bin/loctrack|$BINDIR/loctrack|' dist/systemd/$unit.service > $DESTDIR$UNITDIR/$unit.service"
        sed "s|/usr/bin/loctrack|$BINDIR/loctrack|g" "dist/systemd/$unit.service" > "$DESTDIR$UNITDIR/$unit.service"
        chmod 0644 "$DESTDIR$UNITDIR/$unit.service"

        envfile=/etc/default/$unit
        if [ -e "$DESTDIR$envfile" ] && [ "$ENV_FILE_MODE" = keep ]; then
            echo "note: $DESTDIR$envfile exists, left as it is (the new one is dist/systemd/$unit.env)"
        else
            "$INSTALL" -d "$DESTDIR$(dirname "$envfile")"
            echo "$INSTALL -m 0644 dist/systemd/$unit.env $DESTDIR$envfile"
            "$INSTALL" -m 0644 "dist/systemd/$unit.env" "$DESTDIR$envfile"
        fi
    done
    if [ -z "$DESTDIR" ] && command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
        systemctl daemon-reload || true
    fi
}

do_uninstall() {
    local source target
    while read -r source && read -r target; do
        rm -f "$DESTDIR$target"
    done < <(plain_files)
    rmdir "$DESTDIR$DOCDIR/docs/figures" "$DESTDIR$DOCDIR/docs" "$DESTDIR$DOCDIR" 2>/dev/null || true
    rmdir "$DESTDIR$WEBDIR" "$DESTDIR$(dirname "$WEBDIR")" "$DESTDIR$SERVEDIR" 2>/dev/null || true
    local unit envfile
    for unit in "${UNITS[@]}"; do
        rm -f "$DESTDIR$UNITDIR/$unit.service"
        # The environment file goes only if it is still the one installed: it may hold options.
        envfile=/etc/default/$unit
        if cmp -s "dist/systemd/$unit.env" "$DESTDIR$envfile"; then
            rm -f "$DESTDIR$envfile"
        elif [ -e "$DESTDIR$envfile" ]; then
            echo "note: $DESTDIR$envfile was changed, left in place"
        fi
    done
}

case ${1:-} in
    install) do_install ;;
    uninstall) do_uninstall ;;
    *) echo "usage: $0 install|uninstall" >&2; exit 64 ;;
esac
