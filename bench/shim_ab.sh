#!/bin/bash
# tprof's allocation cost against the forwarding shim (bench/fwdshim.c), the floor of any
# interposer: bench/churn native, under the shim, and under libtprof.so in each configuration
# given, on mixed sizes (64 B - 4 MiB) and small blocks (64 B - 4 KiB), 1 and 2 threads. The
# variants run round-robin, one run of each per round, so load on a shared machine hits them
# alike; each figure is CPU time (user + system, all threads), the median and the best of REPS
# rounds, and its ratio to the shim's.
#
# Usage: bench/shim_ab.sh BUILD_DIR [CONFIG...]   (each CONFIG a space-separated list of
# environment assignments for a tprof run, e.g. "TPROF_STACK=1"; default: one run at the defaults)
# Environment: REPS (default 9), OPS_MIXED (default 1000000), OPS_SMALL (default 10000000),
# THREADS (default "1 2").
set -u
die() { echo "shim_ab: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: bench/shim_ab.sh BUILD_DIR [CONFIG...]"
B=$(cd "$1" && pwd) || die "$1: not a directory"
shift
[ $# -gt 0 ] || set -- ""
SRC=$(cd "$(dirname "$0")/.." && pwd)
SO=$B/.libs/libtprof.so
CHURN=$B/bench/churn
{ [ -f "$SO" ] && [ -x "$CHURN" ]; } || die "build first: make && make bench/churn"
REPS=${REPS:-9}
OPS_MIXED=${OPS_MIXED:-1000000}
OPS_SMALL=${OPS_SMALL:-10000000}
THREADS=${THREADS:-1 2}
W=$(mktemp -d /tmp/tprof-shimab.XXXXXX) || die "cannot make a temporary directory"
trap 'rm -rf "$W"' EXIT
cc -O2 -shared -fPIC -o "$W/fwdshim.so" "$SRC/bench/fwdshim.c" -ldl || die "cannot build the shim"

once() { # key workload threads env...
    local key=$1 wl=$2 t=$3 args
    shift 3
    case $wl in
    mixed) args="--ops $OPS_MIXED" ;;
    small) args="--ops $OPS_SMALL --min 64 --max 4096" ;;
    esac
    # shellcheck disable=SC2086
    /usr/bin/time -f "%U %S" -o "$W/cpu" env "$@" "$CHURN" --threads "$t" $args > /dev/null \
        2> "$W/err" || die "$key failed: $(head -3 "$W/err")"
    awk '{ printf "%.3f\n", $1 + $2 }' "$W/cpu" >> "$W/$key.$wl.$t"
}

echo "bench/churn, CPU time, $REPS interleaved rounds; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for _ in $(seq "$REPS"); do
    for wl in mixed small; do
        for t in $THREADS; do
            once native "$wl" "$t" TPROF_UNUSED=1
            once shim "$wl" "$t" LD_PRELOAD="$W/fwdshim.so"
            i=0
            for c in "$@"; do
                i=$((i + 1))
                # shellcheck disable=SC2086
                once "tp$i" "$wl" "$t" LD_PRELOAD="$SO" TPROF_OUTPUT=none $c
            done
        done
    done
done
med() { sort -n "$W/$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
best() { sort -n "$W/$1" | head -1; }
printf "%-28s %-6s %3s %9s %7s %9s %7s\n" variant sizes thr "median s" "/shim" "best s" "/shim"
for wl in mixed small; do
    for t in $THREADS; do
        sm=$(med "shim.$wl.$t") sb=$(best "shim.$wl.$t")
        row() { # label key
            awk -v l="$1" -v w="$wl" -v t="$t" -v m="$(med "$2.$wl.$t")" -v b="$(best "$2.$wl.$t")" \
                -v sm="$sm" -v sb="$sb" \
                'BEGIN { printf "%-28s %-6s %3s %9.3f %6.2fx %9.3f %6.2fx\n", l, w, t, m, m / sm, b, b / sb }'
        }
        row native native
        row shim shim
        i=0
        for c in "$@"; do
            i=$((i + 1))
            row "tprof ${c:-(defaults)}" "tp$i"
        done
    done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
