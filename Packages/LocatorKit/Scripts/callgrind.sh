#!/usr/bin/env bash
# Instruction counts per operation for LocatorKit and Swinject 2.10.0, from one release build.
#
#   Packages/LocatorKit/Scripts/callgrind.sh [N] [scenario ...]
#
# Each scenario runs under `valgrind --tool=callgrind` with N and 2N iterations; the difference divided by N is the
# cost of one operation, with start-up and set-up cancelled out. Needs valgrind.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
scratch="$root/.build-bench-locator"
n="${1:-20000}"
shift || true
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then
    scenarios=(
        locator.singleton swinject.singleton swinject.singleton.synchronized locator.singleton.frozen
        locator.named swinject.named locator.key locator.child swinject.child
        locator.transient swinject.transient locator.transient2 swinject.transient2 locator.miss swinject.miss
        locator.singleton.10 locator.singleton.10000
    )
fi
(cd "$root/Benchmarks" && swift build -c release --scratch-path "$scratch" --product LocatorKitCallgrind >/dev/null)
binary="$scratch/release/LocatorKitCallgrind"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
count() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" "$binary" "$1" "$2" >/dev/null 2>"$tmp/log"
    grep -E '^summary:' "$tmp/out" | awk '{print $2}'
}
printf '%-34s %12s\n' scenario instructions/op
for scenario in "${scenarios[@]}"; do
    one="$(count "$scenario" "$n")"
    two="$(count "$scenario" "$((n * 2))")"
    printf '%-34s %12d\n' "$scenario" "$(((two - one) / n))"
done
