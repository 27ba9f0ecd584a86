#!/bin/bash
# What tprof costs, side by side with heaptrack and uftrace, in one run and one table. Rows are workloads, columns the tools; every figure is measured in this
# run: the native time, then each tool's time as a ratio to it.
#
#   rows:    allocation churn with 1 and 2 threads (bench/churn), an sgemm-bound MLP
#            (bench/mlp_blas), a storm of instrumented calls (bench/cyg_storm), and the three
#            examples (examples/mlp, cnn, transformer);
#   columns: native, tprof (default depth), tprof TPROF_STACK=1, heaptrack, uftrace record.
#
# Each figure is the best of REPS runs, with every row's configurations run round-robin, one run
# of each per round: load from other work on the machine only ever adds time, and the best run is
# the steadiest estimate of a configuration's own cost. Then tprof's bytes per live allocation,
# its own RSS, its RSS growth under churn, the exit-report time at 10^5 call sites, and a PASS or
# MISS line per target. docs/bench.md says what each figure means; bench/RESULTS.md has results.
#
# Usage: bench/run.sh [BUILD_DIR]     (or `make bench` in the build directory)
# BUILD_DIR defaults to the current directory if it holds .libs/libtprof.so, else to the tree
# this script is in. Environment (defaults in brackets, QUICK=1 ones after the slash):
#   REPS [5/1] runs per configuration     OPS [1000000/200000] churn pairs per thread
#   LIVE [1000000/100000] live blocks for the bytes-per-allocation figure
#   CALLS [20000000/2000000] storm calls   BLAS_STEPS [40/10] mlp_blas steps
#   EX_STEPS ["mlp=40 cnn=12 transformer=12" / "mlp=10 cnn=3 transformer=3"]
#   SITES [100000] call sites of the exit-report program (at most 100000)
#   QUICK=1: the smaller defaults, a check that everything runs (about a minute), not figures.
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
SRC=$(cd "$(dirname "$0")/.." && pwd)
SO=$B/.libs/libtprof.so
[ -f "$SO" ] || die "$SO not found: build first (make), or pass the build directory"

QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then
    REPS=${REPS:-1} OPS=${OPS:-200000} LIVE=${LIVE:-100000} CALLS=${CALLS:-2000000}
    BLAS_STEPS=${BLAS_STEPS:-10} EX_STEPS=${EX_STEPS:-mlp=10 cnn=3 transformer=3}
else
    REPS=${REPS:-5} OPS=${OPS:-1000000} LIVE=${LIVE:-1000000} CALLS=${CALLS:-20000000}
    BLAS_STEPS=${BLAS_STEPS:-40} EX_STEPS=${EX_STEPS:-mlp=40 cnn=12 transformer=12}
fi
SITES=${SITES:-100000}
for v in REPS OPS LIVE CALLS BLAS_STEPS SITES; do
    case ${!v} in '' | *[!0-9]*) die "$v=${!v}: expected a whole number" ;; esac
    [ "${!v}" -gt 0 ] || die "$v=${!v}: expected a positive number"
done
[ "$LIVE" -gt 1 ] || die "LIVE=$LIVE: expected at least 2"
[ "$SITES" -le 100000 ] || die "SITES=$SITES: bench/sites makes at most 100000"
steps_of() { # example -> its --steps from EX_STEPS
    local kv
    for kv in $EX_STEPS; do
        [ "${kv%%=*}" = "$1" ] && { echo "${kv#*=}"; return; }
    done
    die "EX_STEPS=\"$EX_STEPS\": no steps for $1"
}
for e in mlp cnn transformer; do
    s=$(steps_of $e)
    case $s in '' | *[!0-9]* | 0) die "EX_STEPS: $e=$s: expected a positive number" ;; esac
done

# The programs: the benchmarks are built on demand; mlp_blas and the examples need OpenBLAS and
# their rows say so when they are missing.
need=()
for p in bench/churn bench/sites bench/cyg_storm bench/mlp_blas; do
    [ -x "$B/$p" ] || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
    make -C "$B" "${need[@]}" > /dev/null 2>&1 ||
        for p in "${need[@]}"; do make -C "$B" "$p" > /dev/null 2>&1; done
fi
for p in bench/churn bench/sites bench/cyg_storm; do
    [ -x "$B/$p" ] || die "cannot build $p in $B"
done

W=$(mktemp -d /tmp/tprof-bench.XXXXXX) || die "cannot make a temporary directory"
trap 'rm -rf "$W"' EXIT
HEAPTRACK=$(command -v heaptrack || true)
UFTRACE=$(command -v uftrace || true)

# ---- the rows ----

ROWS="churn1 churn2 blas storm ex_mlp ex_cnn ex_transformer"
CONFIGS="native tprof tprof1 heaptrack uftrace"
# Every run of every row: one BLAS thread (a pool of spinning threads on a small machine makes
# the BLAS rows measure the scheduler), and fixed machine peaks for tprof (without them, and
# without a `tprof calibrate` cache, a BLAS program's first report measures the machine at exit
# for about a quarter of a second, which is not the cost of profiling).
export OPENBLAS_NUM_THREADS=1
TP=(env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_PEAK_GFLOPS=100 TPROF_PEAK_GBPS=20)

label() {
    case $1 in
    churn1) echo "alloc churn, 1 thread" ;;
    churn2) echo "alloc churn, 2 threads" ;;
    blas) echo "sgemm-bound MLP" ;;
    storm) echo "instrumented-call storm" ;;
    ex_*) echo "examples/${1#ex_}" ;;
    esac
}
unit() {
    case $1 in
    churn*) echo "s wall" ;;
    blas) echo "s loop" ;;
    storm) echo "ns/call" ;;
    ex_*) echo "s wall" ;;
    esac
}
# Why a tool has no figure for a row (empty: it has one).
na() { # row config
    case $2 in
    heaptrack) [ -n "$HEAPTRACK" ] || { echo "h"; return; } ;;
    uftrace)
        [ -n "$UFTRACE" ] || { echo "u"; return; }
        case $1 in churn* | blas) echo "i"; return ;; esac ;;
    esac
    case $1 in
    blas) [ -x "$B/bench/mlp_blas" ] || echo "b" ;;
    ex_*) [ -x "$B/examples/${1#ex_}" ] || echo "b" ;;
    esac
}
cmd_of() { # row -> the program and its arguments, one per line
    case $1 in
    churn1) printf '%s\n' "$B/bench/churn" --ops "$OPS" --threads 1 ;;
    churn2) printf '%s\n' "$B/bench/churn" --ops "$OPS" --threads 2 ;;
    blas) printf '%s\n' "$B/bench/mlp_blas" "$BLAS_STEPS" 128 512 1 ;;
    storm) printf '%s\n' "$B/bench/cyg_storm" nonop "$CALLS" ;;
    ex_*) printf '%s\n' "$B/examples/${1#ex_}" --steps "$(steps_of "${1#ex_}")" ;;
    esac
}

# One run of a row under a configuration: its figure appended to $W/<row>.<config>, and what
# the program said that must not change under a tool to $W/<row>.<config>.out. A run that fails
# or prints something else is an error, not a measurement.
run_one() { # row config
    local row=$1 c=$2 cmd s e rc fig
    mapfile -t cmd < <(cmd_of "$row")
    # uftrace writes a record per call: the storm makes a tenth of the calls under it (the figure
    # is per call).
    [ "$row.$c" = storm.uftrace ] && cmd[2]=$((CALLS / 10))
    local pre=()
    case $c in
    tprof) pre=("${TP[@]}") ;;
    tprof1) pre=("${TP[@]}" TPROF_STACK=1) ;;
    heaptrack) pre=("$HEAPTRACK" -o "$W/ht") ;;
    uftrace) rm -rf "$W/uft"; pre=("$UFTRACE" record -d "$W/uft") ;;
    esac
    s=$EPOCHREALTIME
    "${pre[@]}" "${cmd[@]}" > "$W/out" 2> "$W/err"
    rc=$?
    e=$EPOCHREALTIME
    rm -rf "$W"/ht.* "$W/uft"
    case $row in
    churn*) fig=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f", e - s }')
        grep -qx "$((OPS * ${row#churn})) operations" "$W/out" && echo ok > "$W/what" ;;
    blas) fig=$(awk '/ steps in / { print $4 }' "$W/out")
        grep '^loss ' "$W/out" > "$W/what" ;;
    storm) fig=$(awk '/ ns\/call$/ { print $4 }' "$W/out")
        [ -n "$fig" ] && echo ok > "$W/what" ;;
    ex_*) fig=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f", e - s }')
        grep '^step ' "$W/out" | tail -1 > "$W/what" ;;
    esac
    if [ $rc -ne 0 ] || [ -z "$fig" ] || [ ! -s "$W/what" ]; then
        echo "bench: $(label "$row") under $c: exit status $rc, unexpected output; stderr:" >&2
        head -5 "$W/err" >&2
        exit 1
    fi
    echo "$fig" >> "$W/$row.$c"
    mv "$W/what" "$W/$row.$c.out.$(wc -l < "$W/$row.$c")"
}
best() { sort -g "$W/$1" | head -1; }
median() { sort -g "$W/$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

commit=$(git -C "$SRC" rev-parse --short HEAD 2> /dev/null || echo unknown)
[ "$commit" != unknown ] && ! git -C "$SRC" diff --quiet HEAD -- preload src 2> /dev/null &&
    commit="$commit+changes"
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
echo "tprof overhead, side by side: $(nproc) cores, ${cpu:-unknown CPU}, Linux $(uname -r)"
echo "commit $commit, $(date -u '+%Y-%m-%d %H:%M UTC'), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "best of $REPS runs per cell, configurations interleaved; OPENBLAS_NUM_THREADS=1 everywhere"
[ "$OPS" -ge 500000 ] || echo "(OPS=$OPS: runs this short are dominated by start-up, exit and noise; the ratios mean little)"

for r in $(seq "$REPS"); do
    for row in $ROWS; do
        for c in $CONFIGS; do
            [ -z "$(na "$row" "$c")" ] && run_one "$row" "$c"
        done
    done
done

# A tool must not change what the program computes: its last loss line is the native one.
for row in $ROWS; do
    [ -f "$W/$row.native" ] || continue
    for c in $CONFIGS; do
        [ -f "$W/$row.$c" ] || continue
        if [ "$(cat "$W/$row.$c".out.* | sort -u | wc -l)" != 1 ] ||
            ! cmp -s "$W/$row.native.out.1" "$W/$row.$c.out.1"; then
            die "$(label "$row"): the program's output differs under $c"
        fi
    done
done

# ---- the table ----
declare -A RATIO
echo
printf "%-26s %-8s %9s %8s %10s %10s %10s\n" "workload" "measure" "native" "tprof" "tprof S=1" \
    "heaptrack" "uftrace"
notes=""
for row in $ROWS; do
    printf "%-26s %-8s" "$(label "$row")" "$(unit "$row")"
    if [ -n "$(na "$row" native)" ]; then
        printf " %9s %8s %10s %10s %10s\n" "n/a (b)" - - - -
        notes="$notes b"
        continue
    fi
    n=$(best "$row.native")
    awk -v n="$n" 'BEGIN { printf " %9s", (n < 10 ? sprintf("%.3f", n) : sprintf("%.1f", n)) }'
    for c in tprof tprof1 heaptrack uftrace; do
        w=8
        [ $c = tprof ] || w=10
        why=$(na "$row" "$c")
        if [ -n "$why" ]; then
            printf " %${w}s" "n/a ($why)"
            notes="$notes $why"
            continue
        fi
        RATIO[$row.$c]=$(awk -v s="$(best "$row.$c")" -v n="$n" 'BEGIN { printf "%.2f", s / n }')
        printf " %${w}s" "${RATIO[$row.$c]}x"
    done
    echo
done
# The churn ratios depend on how fast the machine's allocator and kernel are (native churn of
# these sizes is mostly page faults and glibc walking its free lists); the time added per pair
# is what to compare across machines.
echo
for t in 1 2; do
    row=churn$t
    n=$(best "$row.native")
    line="churn, $t thread(s), ns per malloc/free pair: native $(awk -v n="$n" -v p="$((OPS * t))" 'BEGIN { printf "%.0f", n * 1e9 / p }')"
    for c in tprof tprof1 heaptrack; do
        [ -f "$W/$row.$c" ] || continue
        case $c in tprof) l="tprof" ;; tprof1) l="tprof S=1" ;; heaptrack) l="heaptrack" ;; esac
        line="$line, $l $(awk -v s="$(best "$row.$c")" -v n="$n" -v p="$((OPS * t))" 'BEGIN { printf "%+.0f", (s - n) * 1e9 / p }')"
    done
    echo "$line"
done
echo "measure: s wall = the process's wall time; s loop = the training loop's time as the program"
echo "  prints it; ns/call = the program's own time per call around its loop."
echo "alloc churn: bench/churn --ops $OPS, malloc/free pairs per thread, 1,024 live blocks per thread,"
echo "  sizes 64 B - 4 MiB log-uniform. sgemm-bound MLP: bench/mlp_blas $BLAS_STEPS 128 512, 8 cblas_sgemm"
echo "  per step, activations allocated per step. storm: bench/cyg_storm nonop $CALLS, built with"
echo "  -finstrument-functions; its native time is the same binary without a tool (glibc's empty"
echo "  hooks); uftrace records $((CALLS / 10)) calls. examples: --steps, $EX_STEPS (-finstrument-functions)."
echo "tprof: TPROF_OUTPUT=none (the report is still built at exit), fixed machine peaks; heaptrack -o"
echo "  (recorder, interpreter and compressor, as users run it; no heaptrack_print); uftrace record."
for why in $(echo "$notes" | tr ' ' '\n' | sort -u); do
    case $why in
    i) echo "(i) uftrace records functions built with -pg or -finstrument-functions: churn and mlp_blas are not," \
        "so it would record none of their work" ;;
    h) echo "(h) heaptrack is not installed (BENCH=1 scripts/setup.sh, or apt-get install heaptrack)" ;;
    u) echo "(u) uftrace is not installed (BENCH=1 scripts/setup.sh, or apt-get install uftrace)" ;;
    b) echo "(b) not built: mlp_blas and the examples need OpenBLAS (apt-get install libopenblas-dev, then configure)" ;;
    esac
done

# ---- memory ----
# (1) Peak RSS of churn holding LIVE small blocks at once, and holding one: the slope is what each
# live allocation costs, the rest is tprof's own fixed RSS. (2) The churn of the table (1 thread,
# 1,024 live blocks) against the same working set with no churn: what tprof's RSS grows by with
# the number of allocations made rather than with the blocks live. churn --rss prints the peak
# RSS as main's last act, before any exit-time work of a preloaded profiler.
peak_rss() { awk '$1 == "peak_rss_kb" { v = $2 } END { if (v == "") exit 1; print v }'; }
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
        "${pre[@]}" "$B/bench/churn" "$@" --rss > /dev/null 2> "$W/err" || die "churn $* failed under: ${pre[*]}"
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
rss mem_native_churn -- --ops "$OPS"
rss mem_tprof_churn "${tp[@]}" -- --ops "$OPS"
nb=$(median mem_native_big) n1=$(median mem_native_one)
tb=$(median mem_tprof_big) t1=$(median mem_tprof_one)
PER_LIVE=$(awk -v nb="$nb" -v n1="$n1" -v tb="$tb" -v t1="$t1" -v l="$LIVE" 'BEGIN {
    printf "%.1f", ((tb - nb) - (t1 - n1)) * 1024 / (l - 1) }')
RAW_PER_LIVE=$(awk -v nb="$nb" -v tb="$tb" -v l="$LIVE" 'BEGIN { printf "%.1f", (tb - nb) * 1024 / l }')
OWN_MB=$(awk -v n1="$n1" -v t1="$t1" 'BEGIN { printf "%.1f", (t1 - n1) / 1024 }')
ns=$(median mem_native_still) ts=$(median mem_tprof_still)
nc=$(median mem_native_churn) tc=$(median mem_tprof_churn)
GROWTH_KB=$((tc - nc - (ts - ns)))
CHURN_PER_LIVE=$((GROWTH_KB > 0 ? GROWTH_KB : 0)) # kB over 1,024 blocks = bytes per block
echo
echo "memory (the program's peak RSS before exit, median of 3):"
echo "  $LIVE live blocks of 16-63 B: native $((nb / 1024)) MiB, tprof $((tb / 1024)) MiB;" \
    "tprof's own RSS (one live block): $OWN_MB MiB"
echo "  bytes per live allocation: $PER_LIVE above that fixed part ($RAW_PER_LIVE with it)"
echo "  churn (1 thread, 1,024 live blocks): tprof adds $(((tc - nc) / 1024)) MiB after $OPS pairs," \
    "$(((ts - ns) / 1024)) MiB with no churn: $CHURN_PER_LIVE bytes per live block grown"

# ---- exit report ----
# The program prints CLOCK_REALTIME as its last act; the shell notes the time when the process
# has been reaped (command substitution returns after wait).
exit_ms() { # key cmd-prefix...
    local key=$1
    shift
    for r in $(seq "$REPS"); do
        local out e
        out=$("$@" "$B/bench/sites" "$SITES" 2> /dev/null) || die "bench/sites failed under: $*"
        e=$EPOCHREALTIME
        [ "$(echo "$out" | head -1)" = "$SITES allocations" ] || die "bench/sites: unexpected output"
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

# ---- targets ----
verdict() { # description value comparison(awk) limit
    local ok
    ok=$(awk -v v="$2" -v l="$4" "BEGIN { print ((v $3 l) ? \"PASS\" : \"MISS\") }")
    printf "  %-4s %s\n" "$ok" "$1"
}
echo
echo "targets:"
for t in 1 2; do
    row=churn$t
    verdict "churn, $t thread(s): tprof at the default depth ${RATIO[$row.tprof]}x native (<= 1.30)" \
        "${RATIO[$row.tprof]}" "<=" 1.30
    verdict "churn, $t thread(s): tprof at TPROF_STACK=1 ${RATIO[$row.tprof1]}x native (<= 1.10)" \
        "${RATIO[$row.tprof1]}" "<=" 1.10
    if [ -n "${RATIO[$row.heaptrack]:-}" ]; then
        f=$(awk -v a="${RATIO[$row.tprof]}" -v h="${RATIO[$row.heaptrack]}" 'BEGIN { if (h > 1) printf "%.2f", (a - 1) / (h - 1) }')
        if [ -n "$f" ]; then
            verdict "churn, $t thread(s): tprof adds $f of the time heaptrack adds (<= 0.20)" "$f" "<=" 0.20
        else
            printf "  %-4s %s\n" "n/a" "churn, $t thread(s): heaptrack added no measurable time (too few OPS?)"
        fi
    fi
done
if [ -n "${RATIO[blas.tprof]:-}" ]; then
    verdict "sgemm-bound MLP: tprof ${RATIO[blas.tprof]}x native (<= 1.02)" "${RATIO[blas.tprof]}" "<=" 1.02
else
    printf "  %-4s %s\n" "n/a" "sgemm-bound MLP: not built (no OpenBLAS)"
fi
verdict "$PER_LIVE bytes per live allocation, $LIVE live blocks (<= 32)" "$PER_LIVE" "<=" 32
verdict "$CHURN_PER_LIVE bytes per live allocation grown by $OPS pairs of churn (<= 32)" "$CHURN_PER_LIVE" "<=" 32
verdict "exit report at $SITES call sites: $EXIT_MS ms (<= 100)" "$EXIT_MS" "<=" 100
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit 0
