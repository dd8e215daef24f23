#!/usr/bin/env bash
# Instruction counts per operation for LocatorKit and Swinject 2.10.0, from one release build.
#
#   Packages/LocatorKit/Scripts/callgrind.sh [N] [scenario ...]
#
# Each scenario runs under `valgrind --tool=callgrind` with N and 2N iterations; the difference divided by N is the
# cost of one operation, with start-up and set-up cancelled out. Needs valgrind. With no scenarios it runs the
# full table, then the transient scenarios again in a build without cycle detection
# (-DLOCATORKIT_NO_CYCLE_DETECTION, scratch path .build-bench-locator-nocycle) to report what detection costs.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
scratch="$root/.build-bench-locator"
n="${1:-20000}"
shift || true
scenarios=("$@")
full=0
if [ ${#scenarios[@]} -eq 0 ]; then
    full=1
    scenarios=(
        locator.singleton swinject.singleton swinject.singleton.synchronized locator.singleton.frozen
        locator.named swinject.named locator.key locator.child swinject.child
        locator.transient swinject.transient locator.transient2 swinject.transient2 locator.miss swinject.miss
        locator.singleton.10 locator.singleton.10000 locator.params locator.params.existential
    )
fi
build() {
    local log
    if ! log="$(cd "$root/Benchmarks" && swift build -c release --scratch-path "$1" --product LocatorKitCallgrind "${@:2}" 2>&1)"; then
        echo "$log" >&2
        exit 1
    fi
}
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
count() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$1" "$2" "$3" >/dev/null 2>"$tmp/log"
    grep -E '^summary:' "$tmp/out" | awk '{print $2}'
}
per_op() {
    local one two
    one="$(count "$1" "$2" "$n")"
    two="$(count "$1" "$2" "$((n * 2))")"
    echo $(((two - one) / n))
}
build "$scratch"
printf '%-34s %12s\n' scenario instructions/op
for scenario in "${scenarios[@]}"; do
    printf '%-34s %12d\n' "$scenario" "$(per_op "$scratch/release/LocatorKitCallgrind" "$scenario")"
done
if [ "$full" -eq 1 ]; then
    build "$root/.build-bench-locator-nocycle" -Xswiftc -DLOCATORKIT_NO_CYCLE_DETECTION
    for scenario in locator.transient locator.transient2; do
        with="$(per_op "$scratch/release/LocatorKitCallgrind" "$scenario")"
        without="$(per_op "$root/.build-bench-locator-nocycle/release/LocatorKitCallgrind" "$scenario")"
        printf '%-34s %12d  (with detection %d: +%d%%)\n' "$scenario (no cycle detection)" "$without" "$with" \
            "$(((with - without) * 100 / without))"
    done
fi
