#!/usr/bin/env bash
# `make test-stress`: the tests under load, on a fresh clone. Runs `make test` STRESS_TEST_RUNS
# times (default 10) and `make serve-test` STRESS_SERVE_RUNS times (default 5) one after another
# while `stress-ng --cpu STRESS_CPUS` (default: one worker per core) keeps every core busy, and
# fails if any run failed: a test that fails once under load is a defect (docs/testing.md).
#
# The clone: HEAD of this checkout cloned into STRESS_DIR (default a new folder under /tmp), so
# what runs is what is committed, built from nothing, as a newcomer's or CI's machine would.
# The first run of each target builds (under the same load); the later ones reuse that build.
# stress-ng is installed (apt) when missing. Every run's output: STRESS_DIR/out/stress/.
# Prints one line per run (target, run, seconds, result, the tests that failed) and a table.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
SOURCE=$(pwd)
TEST_RUNS=${STRESS_TEST_RUNS:-10}
SERVE_RUNS=${STRESS_SERVE_RUNS:-5}
CPUS=${STRESS_CPUS:-$(nproc)}
DIR=${STRESS_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/loctrack-stress.XXXXXX")}

if ! command -v stress-ng >/dev/null 2>&1; then
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends stress-ng >/dev/null 2>&1 || {
        "${sudo[@]}" apt-get update >/dev/null
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends stress-ng
    }
fi

if [ ! -d "$DIR/.git" ]; then
    git clone --quiet "$SOURCE" "$DIR"
fi
git -C "$DIR" log --oneline -1
LOGS=$DIR/out/stress
mkdir -p "$LOGS"

stress-ng --cpu "$CPUS" --timeout 0 --quiet &
STRESS_PID=$!
trap 'kill "$STRESS_PID" 2>/dev/null || true; wait "$STRESS_PID" 2>/dev/null || true' EXIT
echo "stress-ng --cpu $CPUS running (pid $STRESS_PID); load: $(cut -d' ' -f1-3 /proc/loadavg)"

ROWS=()
FAILED=0
run() {
    local target=$1 index=$2 log start rc=0 seconds failures
    log="$LOGS/$target-$index.log"
    start=$(date +%s.%N)
    make -C "$DIR" --no-print-directory "$target" > "$log" 2>&1 < /dev/null || rc=$?
    seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
    if [ "$rc" -eq 0 ]; then
        ROWS+=("$target $index ${seconds}s passed")
    else
        FAILED=$((FAILED + 1))
        # swift-testing marks a failed test with ✘, the Python suites with FAIL.
        failures=$(grep -E '✘ Test .* failed|^FAIL|  FAIL ' "$log" | head -n 5 | tr '\n' ' ' || true)
        ROWS+=("$target $index ${seconds}s FAILED (exit $rc): ${failures:-see $log}")
    fi
    echo "${ROWS[-1]}   (load $(cut -d' ' -f1 /proc/loadavg))"
}

for index in $(seq 1 "$TEST_RUNS"); do run test "$index"; done
for index in $(seq 1 "$SERVE_RUNS"); do run serve-test "$index"; done

echo
echo "== test-stress: $TEST_RUNS x make test, $SERVE_RUNS x make serve-test beside stress-ng --cpu $CPUS, clone $DIR"
printf '   %s\n' "${ROWS[@]}"
total=$((TEST_RUNS + SERVE_RUNS))
echo "test-stress: $((total - FAILED)) passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
