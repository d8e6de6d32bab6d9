#!/usr/bin/env bash
# `make check-unit`: systemd-analyze verify on each unit in dist/systemd (loctrack.service,
# loctrack-serve.service), which must print nothing at all (every warning counts). Skipped,
# with a note, where systemd-analyze is not installed: the check needs no running systemd,
# only the tool.
#
# verify also checks that ExecStart's program exists and that Documentation='s man page
# can be shown, so each unit is checked as installed: a copy whose ExecStart names a built
# loctrack (LOCTRACK, default .build/release/loctrack, else /bin/true for the syntax alone),
# with MANPATH holding docs/loctrack.1.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

UNITS=(dist/systemd/loctrack.service dist/systemd/loctrack-serve.service)

if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "check-unit: systemd-analyze not installed, ${UNITS[*]} not checked"
    exit 0
fi

LOCTRACK=${LOCTRACK:-.build/release/loctrack}
[ -x "$LOCTRACK" ] && LOCTRACK=$(realpath "$LOCTRACK") || LOCTRACK=/bin/true
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/units" "$WORK/man/man1"
cp docs/loctrack.1 "$WORK/man/man1/"

failed=0
for unit in "${UNITS[@]}"; do
    copy=$WORK/units/$(basename "$unit")
    sed "s|/usr/bin/loctrack|$LOCTRACK|g" "$unit" > "$copy"
    rc=0
    output=$(MANPATH=$WORK/man systemd-analyze verify "$copy" 2>&1) || rc=$?
    if [ "$rc" -ne 0 ] || [ -n "$output" ]; then
        echo "check-unit: systemd-analyze verify $unit (exit $rc):" >&2
        echo "$output" >&2
        failed=1
    else
        echo "check-unit: systemd-analyze verify $unit: clean ($(systemd-analyze --version | head -1))"
    fi
done
exit "$failed"
