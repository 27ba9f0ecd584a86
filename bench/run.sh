#!/bin/bash
# What tprof costs, measured side by side in one run (issue 2 "Speed", issue 6 item 4):
#   - allocation churn (bench/churn, 64 B - 4 MiB) natively, under tprof (TPROF_STACK=8, the
#     default, and TPROF_STACK=1) and under heaptrack, with 1 and 2 threads: wall seconds (best
#     of REPS runs, configurations interleaved), ratio to native, added ns per malloc/free pair;
#   - tprof's memory (the program's peak RSS before exit, from churn --rss): bytes per live
#     allocation (10^6 live small blocks against one, with and without tprof), its own fixed RSS,
#     and how much its RSS grows with churn alone (1,024 live blocks, OPS pairs against none);
#   - the exit-report time of a program with 10^5 distinct call sites (bench/sites) with
#     TPROF_JSON on: from the program's last instruction to the moment it has been reaped.
# Then PASS or MISS for each target of the issues.
#
# Usage: bench/run.sh [BUILD_DIR]     (or `make bench` in the build directory)
# BUILD_DIR defaults to the current directory if it holds .libs/libtprof.so, else to the tree
# this script is in. Environment: OPS (pairs per thread, default 1000000), REPS (default 5),
# LIVE (live blocks for the memory figure, default 1000000).
set -u

die() { echo "bench: $*" >&2; exit 2; }

if [ $# -gt 1 ]; then
    die "usage: bench/run.sh [BUILD_DIR]"
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
if [ ! -x "$B/bench/churn" ] || [ ! -x "$B/bench/sites" ]; then
    make -C "$B" bench/churn bench/sites > /dev/null || die "cannot build bench/churn and bench/sites in $B"
fi
CHURN=$B/bench/churn
SITES=$B/bench/sites

OPS=${OPS:-1000000}
REPS=${REPS:-5}
LIVE=${LIVE:-1000000}
for v in OPS REPS LIVE; do
    case ${!v} in '' | *[!0-9]*) die "$v=${!v}: expected a whole number" ;; esac
    [ "${!v}" -gt 0 ] || die "$v=${!v}: expected a positive number"
done

W=$(mktemp -d /tmp/tprof-bench.XXXXXX) || die "cannot make a temporary directory"
trap 'rm -rf "$W"' EXIT

HEAPTRACK=$(command -v heaptrack || true)

# Wall seconds of one run, appended to $W/<key>, and the program's peak RSS in kB (churn --rss:
# its high-water mark while it ran, before any exit-time work) to $W/rss.<key>. Fails loudly if
# the program's output is not the one expected: a profiler that changes the program's work is not
# measured, it is broken.
timed() { # key expected-stdout-line cmd...
    local key=$1 want=$2
    shift 2
    local s e rc
    s=$EPOCHREALTIME
    "$@" > "$W/out" 2> "$W/err"
    rc=$?
    e=$EPOCHREALTIME
    if [ $rc -ne 0 ] || ! grep -qx "$want" "$W/out"; then
        echo "bench: $key: exit status $rc, expected \"$want\" on stdout; stderr:" >&2
        head -5 "$W/err" >&2
        exit 1
    fi
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f\n", e - s }' >> "$W/$key"
    peak_rss < "$W/err" >> "$W/rss.$key"
}

# The figure churn --rss wrote on stderr.
peak_rss() { awk '$1 == "peak_rss_kb" { v = $2 } END { if (v == "") exit 1; print v }'; }

median() { sort -n "$W/$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
best() { sort -n "$W/$1" | head -1; }

CONFIGS="native tprof8 tprof1"
[ -n "$HEAPTRACK" ] && CONFIGS="$CONFIGS heaptrack heaptrack_raw"

run_config() { # config threads
    local c=$1 t=$2 want
    want="$((OPS * t)) operations"
    local args=(--ops "$OPS" --threads "$t" --rss)
    case $c in
    native) timed "$c.$t" "$want" "$CHURN" "${args[@]}" ;;
    tprof8) timed "$c.$t" "$want" env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_STACK=8 "$CHURN" "${args[@]}" ;;
    tprof1) timed "$c.$t" "$want" env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_STACK=1 "$CHURN" "${args[@]}" ;;
    heaptrack) timed "$c.$t" "$want" "$HEAPTRACK" -o "$W/ht" "$CHURN" "${args[@]}" ;;
    heaptrack_raw) timed "$c.$t" "$want" "$HEAPTRACK" -r -o "$W/htr" "$CHURN" "${args[@]}" ;;
    esac
    rm -f "$W"/ht*.zst "$W"/ht*.gz
}

label() {
    case $1 in
    native) echo "native" ;;
    tprof8) echo "tprof (TPROF_STACK=8)" ;;
    tprof1) echo "tprof (TPROF_STACK=1)" ;;
    heaptrack) echo "heaptrack" ;;
    heaptrack_raw) echo "heaptrack -r (raw)" ;;
    esac
}

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "tprof overhead benchmark: $(nproc) cores, ${cpu:-unknown CPU}, $(uname -r)"
echo "allocation churn: $OPS malloc/free pairs per thread, 1024 live blocks per thread,"
echo "sizes 64 B - 4 MiB log-uniform; wall time, best of $REPS runs (configurations interleaved:"
echo "other load on the machine only ever adds time)"
[ -n "$HEAPTRACK" ] || echo "(heaptrack not installed: its rows are skipped; apt-get install heaptrack)"
[ "$OPS" -ge 500000 ] || echo "(OPS=$OPS: runs this short are dominated by start-up, exit and noise; the ratios mean little)"

for r in $(seq "$REPS"); do
    for t in 1 2; do
        for c in $CONFIGS; do
            run_config "$c" "$t"
        done
    done
done

# The table; SEC and ADD keep the figures for the target lines.
declare -A SEC ADD
echo
printf "%-24s %7s %9s %9s %14s %9s\n" "configuration" "threads" "seconds" "x native" "ns/pair added" "peak RSS"
for t in 1 2; do
    n=$(best "native.$t")
    for c in $CONFIGS; do
        s=$(best "$c.$t")
        SEC[$c.$t]=$s
        ADD[$c.$t]=$(awk -v s="$s" -v n="$n" -v p="$((OPS * t))" 'BEGIN { printf "%.1f", (s - n) * 1e9 / p }')
        rss="$(($(median "rss.$c.$t") / 1024)) MiB"
        awk -v l="$(label "$c")" -v t="$t" -v s="$s" -v n="$n" -v a="${ADD[$c.$t]}" -v r="$rss" 'BEGIN {
            printf "%-24s %7d %9.3f %8.2fx %14.0f %9s\n", l, t, s, s / n, a, r }'
    done
done

# Memory. (1) Peak RSS of churn holding LIVE small blocks at once, and holding one: the slope is
# what each live allocation costs, the rest is tprof's own fixed RSS. (2) The same churn as the
# table (1 thread, 1,024 live blocks) against the same working set with no churn: what tprof's
# RSS grows by with the number of allocations made rather than with the blocks live.
echo
rss() { # key cmd-prefix... -- churn-args...
    local key=$1
    shift
    local pre=()
    while [ "$1" != -- ]; do
        pre+=("$1")
        shift
    done
    shift
    for r in 1 2 3; do
        "${pre[@]}" "$CHURN" "$@" --rss > /dev/null 2> "$W/err" || die "churn $* failed under: ${pre[*]}"
        peak_rss < "$W/err" >> "$W/$key" || die "churn $* wrote no peak_rss_kb"
    done
}
tp=(env LD_PRELOAD="$SO" TPROF_OUTPUT=none)
small=(--ops 0 --min 16 --max 64)
rss mem_native_big -- "${small[@]}" --live "$LIVE"
rss mem_native_one -- "${small[@]}" --live 1
rss mem_tprof_big "${tp[@]}" -- "${small[@]}" --live "$LIVE"
rss mem_tprof_one "${tp[@]}" -- "${small[@]}" --live 1
rss mem_native_still -- --ops 0
rss mem_tprof_still "${tp[@]}" -- --ops 0
nb=$(median mem_native_big) n1=$(median mem_native_one)
tb=$(median mem_tprof_big) t1=$(median mem_tprof_one)
PER_LIVE=$(awk -v nb="$nb" -v n1="$n1" -v tb="$tb" -v t1="$t1" -v l="$LIVE" 'BEGIN {
    printf "%.1f", ((tb - nb) - (t1 - n1)) * 1024 / (l - 1) }')
RAW_PER_LIVE=$(awk -v nb="$nb" -v tb="$tb" -v l="$LIVE" 'BEGIN { printf "%.1f", (tb - nb) * 1024 / l }')
OWN_MB=$(awk -v n1="$n1" -v t1="$t1" 'BEGIN { printf "%.1f", (t1 - n1) / 1024 }')
ns=$(median mem_native_still) ts=$(median mem_tprof_still)
nc=$(median rss.native.1) tc=$(median rss.tprof8.1)
GROWTH_KB=$((tc - nc - (ts - ns)))
CHURN_PER_LIVE=$((GROWTH_KB > 0 ? GROWTH_KB : 0)) # kB over 1,024 blocks = bytes per block
echo "memory (the program's peak RSS before exit, median of 3):"
echo "  $LIVE live blocks of 16-63 B: native $((nb / 1024)) MiB, tprof $((tb / 1024)) MiB;" \
    "with one live block tprof adds $OWN_MB MiB"
echo "  bytes per live allocation: $PER_LIVE above that fixed part ($RAW_PER_LIVE with it)"
echo "  churn (1 thread, 1,024 live blocks): tprof adds $(((tc - nc) / 1024)) MiB after $OPS pairs," \
    "$(((ts - ns) / 1024)) MiB with no churn: $CHURN_PER_LIVE bytes per live block grown"

# Exit report: the program prints CLOCK_REALTIME as its last act; the shell notes the time when
# the process has been reaped (command substitution returns after wait).
exit_ms() { # key cmd-prefix...
    local key=$1
    shift
    for r in $(seq "$REPS"); do
        local out e
        out=$("$@" "$SITES" 2> /dev/null) || die "bench/sites failed under: $*"
        e=$EPOCHREALTIME
        [ "$(echo "$out" | head -1)" = "100000 allocations" ] || die "bench/sites: unexpected output"
        awk -v e="${e/./}" -v last="$(echo "$out" | tail -1)" 'BEGIN { printf "%.2f\n", (e * 1000 - last) / 1e6 }' >> "$W/$key"
    done
}
exit_ms exit_native
exit_ms exit_tprof env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_JSON="$W/sites.json"
EXIT_MS=$(median exit_tprof)
nsites=$(grep -o '"nsites_total": *[0-9]*' "$W/sites.json" | grep -o '[0-9]*$')
echo
echo "exit report (TPROF_JSON on) of a program with ${nsites:-?} call sites: $EXIT_MS ms (median of $REPS;" \
    "native exit $(median exit_native) ms)"

# Targets.
verdict() { # description value comparison(awk) limit
    local ok
    ok=$(awk -v v="$2" -v l="$4" "BEGIN { print ((v $3 l) ? \"PASS\" : \"MISS\") }")
    printf "  %-4s %s\n" "$ok" "$1"
}
echo
echo "targets:"
for t in 1 2; do
    if [ -n "$HEAPTRACK" ]; then
        for h in heaptrack heaptrack_raw; do
            f=$(awk -v a="${ADD[tprof8.$t]}" -v h="${ADD[$h.$t]}" 'BEGIN { if (h > 0) printf "%.2f", a / h }')
            if [ -z "$f" ]; then
                printf "  %-4s %s\n" "n/a" "$t thread(s): $(label $h) added no measurable time (too few OPS?)"
                continue
            fi
            verdict "$t thread(s): tprof default adds $f of $(label $h)'s ns/pair (<= 0.20)" "$f" "<=" 0.20
        done
    fi
    r8=$(awk -v s="${SEC[tprof8.$t]}" -v n="${SEC[native.$t]}" 'BEGIN { printf "%.2f", s / n }')
    r1=$(awk -v s="${SEC[tprof1.$t]}" -v n="${SEC[native.$t]}" 'BEGIN { printf "%.2f", s / n }')
    verdict "$t thread(s): churn at TPROF_STACK=8 is ${r8}x native (<= 1.30)" "$r8" "<=" 1.30
    verdict "$t thread(s): churn at TPROF_STACK=1 is ${r1}x native (<= 1.10)" "$r1" "<=" 1.10
done
verdict "$PER_LIVE bytes per live allocation, $LIVE live blocks (<= 32)" "$PER_LIVE" "<=" 32
verdict "$CHURN_PER_LIVE bytes per live allocation grown by $OPS pairs of churn (<= 32)" "$CHURN_PER_LIVE" "<=" 32
verdict "exit report at 10^5 call sites: $EXIT_MS ms (<= 100)" "$EXIT_MS" "<=" 100
exit 0
