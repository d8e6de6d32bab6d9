#!/usr/bin/env bash
# `make install` and `make uninstall` (the Makefile sets the variables; `make deb` runs
# install into a staging folder). Usage: install.sh install|uninstall
#
#   DESTDIR, PREFIX     as usual; BINDIR, MANDIR, DOCDIR, ZSHDIR derive from PREFIX
#   BIN                 the built loctrack
#   COMPLETIONS         the folder holding the generated completion scripts
#                       (loctrack.bash, _loctrack, loctrack.fish: `make completions`)
#   SYSTEMD_UNIT        yes, no or auto: whether the unit and /etc/default/loctrack are
#                       installed. auto: where systemd is (/lib/systemd/system exists) and
#                       the install is a system-wide one (as root, or into a DESTDIR); a
#                       user's `make install PREFIX=$HOME/.local` gets neither
#   ENV_FILE_MODE       keep (default: an existing /etc/default/loctrack is left as it
#                       is, it may hold the user's options) or replace (make deb)
#
# What goes where ($PREFIX=/usr/local by default; the environment file is /etc/default/loctrack
# whatever PREFIX is, because that is the path the unit reads):
#   $BINDIR/loctrack, $MANDIR/man1/loctrack.1
#   $PREFIX/share/bash-completion/completions/loctrack
#   $ZSHDIR/_loctrack      (share/zsh/vendor-completions for /usr, else share/zsh/site-functions)
#   $PREFIX/share/fish/vendor_completions.d/loctrack.fish
#   $PREFIX/lib/systemd/system/loctrack.service   (ExecStart pointing at $BINDIR/loctrack)
#   $DESTDIR/etc/default/loctrack
#   $DOCDIR/README.md, $DOCDIR/docs/*  (the same layout as the source, so links work)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

: "${PREFIX:=/usr/local}" "${DESTDIR:=}" "${INSTALL:=install}"
: "${BINDIR:=$PREFIX/bin}" "${MANDIR:=$PREFIX/share/man}" "${DOCDIR:=$PREFIX/share/doc/loctrack}"
: "${BIN:=.build/release/loctrack}" "${COMPLETIONS:=.build/completions}"
: "${SYSTEMD_UNIT:=auto}" "${ENV_FILE_MODE:=keep}"
if [ -z "${ZSHDIR:-}" ]; then
    # Debian's zsh reads packages' completions from /usr/share/zsh/vendor-completions and
    # the local administrator's from /usr/local/share/zsh/site-functions.
    if [ "$PREFIX" = /usr ]; then ZSHDIR=$PREFIX/share/zsh/vendor-completions; else ZSHDIR=$PREFIX/share/zsh/site-functions; fi
fi
BASHDIR=$PREFIX/share/bash-completion/completions
FISHDIR=$PREFIX/share/fish/vendor_completions.d
UNITDIR=$PREFIX/lib/systemd/system
ENVFILE=/etc/default/loctrack

# Files installed as they are: source, then destination (below DESTDIR).
plain_files() {
    printf '%s\n' "$BIN" "$BINDIR/loctrack" \
        docs/loctrack.1 "$MANDIR/man1/loctrack.1" \
        "$COMPLETIONS/loctrack.bash" "$BASHDIR/loctrack" \
        "$COMPLETIONS/_loctrack" "$ZSHDIR/_loctrack" \
        "$COMPLETIONS/loctrack.fish" "$FISHDIR/loctrack.fish" \
        README.md "$DOCDIR/README.md"
    local doc
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
        [ -f "$source" ] || { echo "install: $source is missing (make build completions)" >&2; exit 1; }
        mode=0644
        [ "$target" = "$BINDIR/loctrack" ] && mode=0755
        "$INSTALL" -d "$DESTDIR$(dirname "$target")"
        echo "$INSTALL -m $mode $source $DESTDIR$target"
        "$INSTALL" -m "$mode" "$source" "$DESTDIR$target"
    done < <(plain_files)

    if ! wants_unit; then
        echo "note: loctrack.service and $ENVFILE not installed (no systemd, or not a system-wide install; SYSTEMD_UNIT=yes installs them)"
        return 0
    fi
    # The unit names the binary by its installed path.
    "$INSTALL" -d "$DESTDIR$UNITDIR"
    echo "sed 's|/usr/bin/loctrack|$BINDIR/loctrack|' dist/systemd/loctrack.service > $DESTDIR$UNITDIR/loctrack.service"
    sed "s|/usr/bin/loctrack|$BINDIR/loctrack|g" dist/systemd/loctrack.service > "$DESTDIR$UNITDIR/loctrack.service"
    chmod 0644 "$DESTDIR$UNITDIR/loctrack.service"
    if [ -z "$DESTDIR" ] && command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
        systemctl daemon-reload || true
    fi

    if [ -e "$DESTDIR$ENVFILE" ] && [ "$ENV_FILE_MODE" = keep ]; then
        echo "note: $DESTDIR$ENVFILE exists, left as it is (the new one is dist/systemd/loctrack.env)"
    else
        "$INSTALL" -d "$DESTDIR$(dirname "$ENVFILE")"
        echo "$INSTALL -m 0644 dist/systemd/loctrack.env $DESTDIR$ENVFILE"
        "$INSTALL" -m 0644 dist/systemd/loctrack.env "$DESTDIR$ENVFILE"
    fi
}

do_uninstall() {
    local source target
    while read -r source && read -r target; do
        rm -f "$DESTDIR$target"
    done < <(plain_files)
    rm -f "$DESTDIR$UNITDIR/loctrack.service"
    rmdir "$DESTDIR$DOCDIR/docs/figures" "$DESTDIR$DOCDIR/docs" "$DESTDIR$DOCDIR" 2>/dev/null || true
    # The environment file goes only if it is still the one installed: it may hold options.
    if cmp -s dist/systemd/loctrack.env "$DESTDIR$ENVFILE"; then
        rm -f "$DESTDIR$ENVFILE"
    elif [ -e "$DESTDIR$ENVFILE" ]; then
        echo "note: $DESTDIR$ENVFILE was changed, left in place"
    fi
}

case ${1:-} in
    install) do_install ;;
    uninstall) do_uninstall ;;
    *) echo "usage: $0 install|uninstall" >&2; exit 64 ;;
esac
