#!/bin/sh
# How much `tprof calibrate` moves from run to run on this machine (issue 27: "five times on a
# quiet machine: within 10%"). RUNS calibrations, each with an empty cache (so each measures and
# records its conditions), one after the other; per run: the load average just before, the
# figures, the conditions; then the spread (max/min) of each figure over all runs and over the
# quiet ones. Not run by make check: it measures the machine.
#
# With KEEP=1 the cache is kept between runs (each run with --force): what is then shown per run
# is the cache after it, each quiet run keeping each figure's best (what every later profile
# reads), and the spread is that of the figures a report would have used after each run.
#
# Usage: bench/calibrate_spread.sh [BUILD_DIR] [calibrate options, e.g. --quick]
# Environment: RUNS (default 5), KEEP (default 0).
set -u
B=${1:-$(cd "$(dirname "$0")/.." && pwd)}
B=$(cd "$B" && pwd)
[ $# -gt 0 ] && shift
[ -x "$B/tprof" ] || { echo "bench: $B/tprof not built" >&2; exit 2; }
RUNS=${RUNS:-5}
KEEP=${KEEP:-0}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
if [ "$KEEP" = 1 ]; then
    set -- "$@" --force
    echo "command: tprof calibrate $* (the cache kept between runs: the figures are the cache's)"
else
    echo "command: tprof calibrate $* (each run with an empty cache)"
fi
printf "%-4s %6s %10s %10s %8s  %s\n" run load GFLOP/s 1t_GFLOP/s GB/s conditions
for i in $(seq "$RUNS"); do
    load=$(cut -d' ' -f1 /proc/loadavg)
    [ "$KEEP" = 1 ] || rm -rf "$W/xdg"
    XDG_CACHE_HOME="$W/xdg" "$B/tprof" calibrate "$@" >"$W/out" 2>"$W/err"
    rc=$?
    [ $rc -eq 0 ] || [ $rc -eq 3 ] || { echo "bench: calibrate exited $rc: $(cat "$W/err")" >&2; exit 1; }
    # with KEEP=1 the run's own figures, before the cache kept the best of them
    own=$(sed -n 's/^this calibration: *\([0-9.]*\) GFLOP\/s all threads, \([0-9.]*\) one thread, \([0-9.]*\) GB\/s$/\1 \2 \3/p' "$W/out")
    [ -n "$own" ] && echo "     run $i measured: $own (GFLOP/s all threads, one thread, GB/s)"
    g=$(sed -n 's/^peak GFLOP\/s, all threads: *\([0-9.]*\).*/\1/p' "$W/out")
    g1=$(sed -n 's/^peak GFLOP\/s, one thread: *\([0-9.]*\).*/\1/p' "$W/out")
    b=$(sed -n 's/^memory bandwidth GB\/s: *\([0-9.]*\).*/\1/p' "$W/out")
    c=$(sed -n 's/^conditions: *\(.*\); load average.*/\1/p' "$W/out")
    printf "%-4s %6s %10s %10s %8s  %s\n" "$i" "$load" "$g" "$g1" "$b" "$c" | tee -a "$W/rows"
done
spread() { # $1 = column, $2 = label, $3 = only quiet rows (1) or all (0)
    awk -v col="$1" -v label="$2" -v quiet="$3" '
        quiet && $6 != "quiet" { next }
        { n++; if (min == "" || $col < min) min = $col; if ($col > max) max = $col }
        END { if (n) printf "%s over %d %s: %s-%s, max/min %.3f\n", label, n,
                  quiet ? "quiet runs" : "runs", min, max, max / min
              else printf "%s: no %s\n", label, quiet ? "quiet run" : "run" }' "$W/rows"
}
for q in 0 1; do
    spread 3 "GFLOP/s, all threads" $q
    spread 4 "GFLOP/s, one thread" $q
    spread 5 "GB/s" $q
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
