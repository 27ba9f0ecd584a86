#!/bin/bash
# What the ops-by-name hooks cost, measured side by side in one run:
#   - a -finstrument-functions program making 2*10^7 tiny calls of a function that is not an op:
#     natively (no instrumentation), instrumented without tprof (glibc's no-op hooks), under
#     tprof, and under `uftrace record` (Debian package uftrace) on the same binary;
#   - 2*10^6 tiny calls of an op (a *gemm* function) natively and under tprof;
#   - 2*10^6 calls of a shared library's op through the PLT (the uninstrumented binary; tprof hooks
#     the GOT entry) natively and under tprof.
# Each figure is the best of REPS runs, configurations interleaved (other load on the machine only
# adds time). ns/call is measured by the program around its loop only, so start-up and the report
# are not in it. Then PASS or MISS against the targets: <= 5 ns added per non-op call, <= 60 ns
# per op call.
#
# Usage: bench/run_cyg.sh [BUILD_DIR]     (or `make bench-cyg` in the build directory)
# Environment: REPS (default 5), CALLS (non-op calls, default 20000000).
set -u

die() { echo "bench: $*" >&2; exit 2; }

if [ $# -gt 1 ]; then
    die "usage: bench/run_cyg.sh [BUILD_DIR]"
elif [ $# -eq 1 ]; then
    B=$1
elif [ -f .libs/libtprof.so ]; then
    B=.
else
    B=$(cd "$(dirname "$0")/.." && pwd)
fi
[ -d "$B" ] || die "$B: not a directory"
B=$(cd "$B" && pwd)
SO=$B/.libs/libtprof.so
[ -f "$SO" ] || die "$SO not found: build first (make), or pass the build directory"
if [ ! -x "$B/bench/cyg_storm" ] || [ ! -x "$B/bench/cyg_storm_native" ]; then
    make -C "$B" bench/libcygstorm.so bench/cyg_storm bench/cyg_storm_native > /dev/null ||
        die "cannot build bench/cyg_storm in $B"
fi
S=$B/bench/cyg_storm
N=$B/bench/cyg_storm_native
REPS=${REPS:-5}
CALLS=${CALLS:-20000000}
for v in REPS CALLS; do
    case ${!v} in '' | *[!0-9]*) die "$v=${!v}: expected a whole number" ;; esac
    [ "${!v}" -gt 0 ] || die "$v=${!v}: expected a positive number"
done
OPCALLS=$((CALLS / 10))

W=$(mktemp -d /tmp/tprof-bench.XXXXXX) || die "cannot make a temporary directory"
trap 'rm -rf "$W"' EXIT
UFTRACE=$(command -v uftrace || true)

# One run: its ns/call appended to $W/<key>. A run that does not print the expected line is a
# failure of the configuration, not a number.
run() { # key cmd...
    local key=$1 line
    shift
    line=$("$@" 2>"$W/err" | tail -1)
    case $line in
        *" ns/call") echo "$line" | awk '{print $4}' >> "$W/$key" ;;
        *) die "$key: unexpected output '$line': $(head -3 "$W/err")" ;;
    esac
}
best() { sort -g "$W/$1" | head -1; }

configs="native noop tprof uftrace op_native op_tprof plt_native plt_tprof"
for r in $(seq "$REPS"); do
    run native "$N" nonop "$CALLS"
    run noop "$S" nonop "$CALLS"
    run tprof env LD_PRELOAD="$SO" TPROF_OUTPUT=none "$S" nonop "$CALLS"
    if [ -n "$UFTRACE" ]; then
        rm -rf "$W/uftrace.data"
        run uftrace "$UFTRACE" record -d "$W/uftrace.data" "$S" nonop "$OPCALLS"
    fi
    run op_native "$N" op "$OPCALLS"
    run op_tprof env LD_PRELOAD="$SO" TPROF_OUTPUT=none "$S" op "$OPCALLS"
    run plt_native "$N" plt "$OPCALLS"
    run plt_tprof env LD_PRELOAD="$SO" TPROF_OUTPUT=none "$N" plt "$OPCALLS"
done

# The op runs must really have recorded the op (else the figure measures nothing).
env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_JSON="$W/op.json" "$S" op 1000 > /dev/null
env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_JSON="$W/plt.json" "$N" plt 1000 > /dev/null
python3 - "$W/op.json" "$W/plt.json" <<'PY' || die "the op was not recorded"
import json, sys
op = {o["name"]: o for o in json.load(open(sys.argv[1]))["ops"]}
plt = {o["name"]: o for o in json.load(open(sys.argv[2]))["ops"]}
assert op["tiny_gemm"]["calls"] == 2000 and op["tiny_gemm"]["source"] == "instrumented", op
assert plt["storm_gemm"]["calls"] == 2000 and plt["storm_gemm"]["source"] == "plt", plt
PY

native=$(best native) noop=$(best noop) tprof=$(best tprof)
awk -v n="$native" -v z="$noop" -v t="$tprof" -v u="${UFTRACE:+$(best uftrace)}" \
    -v on="$(best op_native)" -v ot="$(best op_tprof)" \
    -v pn="$(best plt_native)" -v pt="$(best plt_tprof)" -v calls="$CALLS" -v opcalls="$OPCALLS" '
function row(what, ns, base) { printf "%-62s %9.2f %9.2f\n", what, ns, ns - base }
BEGIN {
    printf "%-62s %9s %9s\n", "configuration (best of runs)", "ns/call", "added"
    row(sprintf("non-op: native (%d calls)", calls), n, n)
    row("non-op: -finstrument-functions, no tprof", z, n)
    row("non-op: -finstrument-functions, tprof", t, n)
    if (u != "") row(sprintf("non-op: -finstrument-functions, uftrace record (%d calls)", opcalls), u, n)
    row(sprintf("op: native (%d calls)", opcalls), on, on)
    row("op: -finstrument-functions, tprof", ot, on)
    row(sprintf("PLT op: native (%d calls)", opcalls), pn, pn)
    row("PLT op: hooked GOT entry, tprof", pt, pn)
    printf "tprof adds %.2f ns per non-op call (%.2f over the no-op hooks) (target <= 5): %s\n",
        t - n, t - z, (t - n <= 5 ? "PASS" : "MISS")
    printf "tprof adds %.2f ns per op call (target <= 60): %s\n", ot - on, (ot - on <= 60 ? "PASS" : "MISS")
    printf "tprof adds %.2f ns per PLT op call\n", pt - pn
    if (u != "") printf "uftrace record adds %.2f ns per call: %.0fx tprof'"'"'s\n", u - n, (u - n) / (t - n)
}'
