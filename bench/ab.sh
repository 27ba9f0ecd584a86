#!/bin/bash
# A/B of tprof builds on the allocation churn: each libtprof.so given runs bench/churn at
# TPROF_STACK=8 and 1, with 1 and 2 threads, interleaved with native runs, REPS rounds; prints the
# best wall time and the best CPU time (user + system, all threads) of each, and their ratios to
# native. This is how a hot-path change is judged on a shared machine: the builds being compared
# run in the same minutes, so load hits them alike; and CPU time does not count the time a run
# waited for a core, which wall time does when the machine has more work than cores.
#
# Usage: bench/ab.sh CHURN SO... (CHURN: the bench/churn binary of a build; each SO a copy of a
# .libs/libtprof.so, e.g. saved before and after a change)
# Environment: REPS (default 7), OPS (pairs per thread, default 1000000), ARGS (more churn flags,
# e.g. "--min 64 --max 4096" for small blocks), THREADS (default "1 2"), STACKS (default "8 1").
set -u
die() { echo "ab: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: bench/ab.sh CHURN SO..."
CHURN=$1
shift
[ -x "$CHURN" ] || die "$CHURN: not executable"
for so in "$@"; do [ -f "$so" ] || die "$so: no such file"; done
REPS=${REPS:-7}
OPS=${OPS:-1000000}
ARGS=${ARGS:-}
THREADS=${THREADS:-1 2}
STACKS=${STACKS:-8 1}
W=$(mktemp -d /tmp/tprof-ab.XXXXXX) || die "cannot make a temporary directory"
trap 'rm -rf "$W"' EXIT

once() { # key cmd...
    local key=$1 s e
    shift
    s=$EPOCHREALTIME
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S" -o "$W/cpu" "$@" "$CHURN" --ops "$OPS" --threads "$t" $ARGS > /dev/null 2> "$W/err" || {
        echo "ab: $key failed: $(head -3 "$W/err")" >&2
        exit 1
    }
    e=$EPOCHREALTIME
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f\n", e - s }' >> "$W/$key"
    awk '{ printf "%.3f\n", $1 + $2 }' "$W/cpu" >> "$W/$key.cpu"
}

echo "churn --ops $OPS $ARGS; best of $REPS, interleaved; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$REPS"); do
    for t in $THREADS; do
        once "native.$t" env
        i=0
        for so in "$@"; do
            i=$((i + 1))
            for d in $STACKS; do
                once "so$i.$d.$t" env LD_PRELOAD="$so" TPROF_OUTPUT=none TPROF_STACK="$d"
            done
        done
    done
done
best() { sort -n "$W/$1" | head -1; }
printf "%-40s %7s %6s %8s %7s %8s %7s\n" "build" "threads" "stack" "wall s" "ratio" "cpu s" "ratio"
for t in $THREADS; do
    n=$(best "native.$t") nc=$(best "native.$t.cpu")
    printf "%-40s %7s %6s %8.3f %6.2fx %8.3f %6.2fx\n" native "$t" - "$n" 1 "$nc" 1
    i=0
    for so in "$@"; do
        i=$((i + 1))
        for d in $STACKS; do
            s=$(best "so$i.$d.$t") c=$(best "so$i.$d.$t.cpu")
            awk -v l="$so" -v t="$t" -v d="$d" -v s="$s" -v n="$n" -v c="$c" -v nc="$nc" \
                'BEGIN { printf "%-40s %7s %6s %8.3f %6.2fx %8.3f %6.2fx\n", l, t, d, s, s / n, c, c / nc }'
        done
    done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
