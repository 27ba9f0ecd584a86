#!/bin/bash
# What tprof costs where users feel it: real programs beside the allocation churn, each run
# natively, under tprof at its defaults and under heaptrack, all in one run with the configurations interleaved round by round (load from other
# work on the machine hits them alike).
#
#   rows: bench/churn with 1 and 2 threads; examples/mlp, cnn, transformer; darknet's CLI linked
#         to Debian's libdarknet.so, and rebuilt with -finstrument-functions (both
#         scripts/darknet-cli.sh, `speed yolov3-tiny.cfg`); python3 with numpy, a matmul loop.
#
# Each cell is the ratio of the configuration's median wall time to the native median, and the
# spread of that ratio over the rounds (each round's run over the same round's native run: the
# smallest and largest). Usage: bench/run_real.sh BUILD_DIR DARKNET_OUTDIR
# Environment: REPS (default 7), OPS (churn pairs per thread, default 1000000), ROWS (default all), DK_ITERS (darknet speed iterations, default 1), NP_ITERS (default 1500),
# EX_STEPS (default "mlp=60 cnn=40 transformer=40", about a second each), PY (default
# /usr/bin/python3: the system's, with Debian's python3-numpy; a pyenv shim would be a shell),
# CHURN_SIZES (default "--min 64 --max 4194304", churn's own: "--min 64 --max 4096" for small
# blocks only),
# CMP (another libtprof.so, e.g. main's: a column "tprof CMP" at its defaults beside this
# build's, in the same rounds), CONFIGS (default "native tprof heaptrack", with CMP
# "native cmp tprof heaptrack"; native must be in it).
set -u
die() { echo "bench: $*" >&2; exit 2; }
B=$(cd "${1:?usage: bench/run_real.sh BUILD_DIR DARKNET_OUTDIR}" && pwd) || die "no build dir"
DK=${2:?usage: bench/run_real.sh BUILD_DIR DARKNET_OUTDIR}
SO=$B/.libs/libtprof.so
[ -f "$SO" ] || die "$SO missing: build first"
S=$(cd "$(dirname "$0")/.." && pwd)
REPS=${REPS:-7} OPS=${OPS:-1000000}
CHURN_SIZES=${CHURN_SIZES:---min 64 --max 4194304}
DK_ITERS=${DK_ITERS:-1} NP_ITERS=${NP_ITERS:-1500} PY=${PY:-/usr/bin/python3}
EX_STEPS=${EX_STEPS:-mlp=60 cnn=40 transformer=40}
steps_of() { local kv; for kv in $EX_STEPS; do [ "${kv%%=*}" = "$1" ] && echo "${kv#*=}"; done; }
ROWS=${ROWS:-churn1 churn2 ex_mlp ex_cnn ex_transformer darknet darknet_instr numpy}
CMP=${CMP:-}
[ -z "$CMP" ] || [ -f "$CMP" ] || die "CMP=$CMP: no such file"
CONFIGS=${CONFIGS:-native ${CMP:+cmp }tprof heaptrack}
W=$(mktemp -d /tmp/tprof-real.XXXXXX) || die "no temporary directory"
trap 'rm -rf "$W"' EXIT
HEAPTRACK=${HEAPTRACK-$(command -v heaptrack || true)} # HEAPTRACK= (empty): no heaptrack column
export OPENBLAS_NUM_THREADS=1
CFG=/usr/share/darknet/cfg/yolov3-tiny.cfg

DKX= DKI=
case " $ROWS " in *" darknet "*)
    DKX=$("$S/scripts/darknet-cli.sh" "$DK") || die "cannot build darknet (scripts/darknet-cli.sh)" ;;
esac
case " $ROWS " in *" darknet_instr "*)
    DKI=$("$S/scripts/darknet-cli.sh" --instrument "$DK") || die "cannot build darknet --instrument" ;;
esac
cat > "$W/np.py" <<EOF
import numpy as np
rng = np.random.default_rng(1)
a = rng.standard_normal((256, 256), dtype=np.float32)
x = a
for i in range($NP_ITERS):
    x = np.tanh(x @ a / 16.0)  # a new array per step: the allocator is exercised too
print("sum %.3f" % float(x.sum()))
EOF

cmd_of() { # row -> the program and its arguments, one per line
    case $1 in
    # shellcheck disable=SC2086 # CHURN_SIZES: flags and their values, split on spaces
    churn1) printf '%s\n' "$B/bench/churn" --ops "$OPS" --threads 1 $CHURN_SIZES ;;
    # shellcheck disable=SC2086
    churn2) printf '%s\n' "$B/bench/churn" --ops "$OPS" --threads 2 $CHURN_SIZES ;;
    ex_*) printf '%s\n' "$B/examples/${1#ex_}" --steps "$(steps_of "${1#ex_}")" ;;
    darknet) printf '%s\n' "$DKX" speed "$CFG" "$DK_ITERS" ;;
    darknet_instr) printf '%s\n' "$DKI" speed "$CFG" "$DK_ITERS" ;;
    numpy) printf '%s\n' "$PY" "$W/np.py" ;;
    esac
}

run_one() { # row config
    local row=$1 c=$2 cmd pre=() s e
    mapfile -t cmd < <(cmd_of "$row")
    case $c in
    tprof) pre=(env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_PEAK_GFLOPS=100 TPROF_PEAK_GBPS=20) ;;
    heaptrack) pre=("$HEAPTRACK" -o "$W/ht") ;;
    cmp) pre=(env LD_PRELOAD="$CMP" TPROF_OUTPUT=none TPROF_PEAK_GFLOPS=100 TPROF_PEAK_GBPS=20) ;;
    esac
    s=$EPOCHREALTIME
    /usr/bin/time -f "%U %S" -o "$W/cpu" "${pre[@]}" "${cmd[@]}" > "$W/out" 2> "$W/err" || {
        echo "bench: $row under $c failed: $(head -3 "$W/err")" >&2
        exit 1
    }
    e=$EPOCHREALTIME
    rm -f "$W"/ht.*
    awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f\n", e - s }' >> "$W/$row.$c"
    awk '{ printf "%.3f\n", $1 + $2 }' "$W/cpu" >> "$W/$row.$c.cpu"
}

echo "tprof on real programs: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "commit $(git -C "$S" rev-parse --short HEAD 2> /dev/null || echo unknown), $(date -u '+%Y-%m-%d %H:%M UTC'), load average at start $(cut -d' ' -f1-3 /proc/loadavg)"
echo "REPS=$REPS rounds, configurations interleaved; OPENBLAS_NUM_THREADS=1"
for r in $(seq "$REPS"); do
    for row in $ROWS; do
        for c in $CONFIGS; do
            [ $c = heaptrack ] && [ -z "$HEAPTRACK" ] && continue
            run_one "$row" "$c"
        done
    done
done

median() { sort -g "$1" | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
cell() { # row config suffix -> "1.02 (0.99-1.05)"
    local n
    n=$(median "$W/$1.native$3")
    paste "$W/$1.$2$3" "$W/$1.native$3" | awk -v m="$(median "$W/$1.$2$3")" -v n="$n" '
        { r = $1 / $2; if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r }
        END { printf "%.2f (%.2f-%.2f)", m / n, lo, hi }'
}
title() {
    case $1 in
    tprof) echo tprof ;; cmp) echo "tprof CMP" ;; *) echo "$1" ;;
    esac
}
table() { # "" for wall time, .cpu for CPU time
    local k=$1 c line
    echo
    line=$(printf "| %-28s | %9s |" "program" "native s")
    for c in $CONFIGS; do [ $c = native ] || line="$line$(printf " %-18s |" "$(title $c)")"; done
    echo "$line"
    line="|------------------------------|-----------:|"
    for c in $CONFIGS; do [ $c = native ] || line="$line--------------------|"; done
    echo "$line"
    for row in $ROWS; do
        case $row in
        churn1) l="churn, 1 thread" ;; churn2) l="churn, 2 threads" ;;
        ex_*) l="examples/${row#ex_}" ;; darknet) l="darknet (libdarknet.so)" ;;
        darknet_instr) l="darknet -finstrument-functions" ;; numpy) l="python3 numpy matmul" ;;
        esac
        line=$(printf "| %-28s | %9.3f |" "$l" "$(median "$W/$row.native$k")")
        for c in $CONFIGS; do
            [ $c = native ] && continue
            v="n/a"
            [ -f "$W/$row.$c$k" ] && v=$(cell "$row" "$c" "$k")
            line="$line$(printf " %-18s |" "$v")"
        done
        echo "$line"
    done
}
echo
echo "wall time (what the user waits for; on a loaded machine it includes waiting for a core):"
table ""
echo
echo "CPU time, user + system, all threads and children (waiting for a core is not in it):"
table .cpu
echo
echo "cells: median time over the native median (the smallest and largest of the rounds' own"
echo "ratios). churn: --ops $OPS $CHURN_SIZES; examples: --steps, $EX_STEPS; darknet:"
echo "speed $CFG $DK_ITERS; numpy: $NP_ITERS steps of a 256x256 float32 matmul and tanh."
[ -z "$CMP" ] || echo "tprof CMP: $CMP"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
