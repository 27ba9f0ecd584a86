#!/bin/bash
# The real programs of bench/run_real.sh counted by callgrind instead of timed: instructions of
# the whole process (every thread, start-up and exit included) natively and under each
# libtprof.so given, at its defaults with the text report off (TPROF_OUTPUT=none, as in
# run_real.sh). Counts do not depend on the machine's load, so they compare builds on a shared
# machine where times cannot. The CPU sampler is off (TPROF_SAMPLE_HZ=0): its SIGPROF timer ends
# the process under valgrind; at 100 Hz it costs nothing these counts could show. The hooks' cost
# is fixed (TPROF_HOOK_NS=$HOOK_NS, default 1000): whether an op is demoted to a count compares
# its first calls with it, and both are measured in time, which under valgrind depends on the
# load (one run of darknet -finstrument-functions demoted its tiny functions, another did not:
# 10.5G and 26.3G instructions); with it fixed, every op shorter than TPROF_DEMOTE x 1 us under
# valgrind (natively the tiny ones are) is demoted in every run.
#
#   bench/callgrind_real.sh BUILD_DIR DARKNET_OUTDIR [LIB.so ...]
#
# BUILD_DIR has the examples (and .libs/libtprof.so, the library used when none is given);
# DARKNET_OUTDIR as for run_real.sh. Environment: ROWS (default "ex_mlp ex_cnn ex_transformer
# darknet darknet_instr numpy"), EX_STEPS, DK_ITERS, NP_ITERS (default 300: a tenth of a run
# costs minutes under callgrind), PY as in run_real.sh, HOOK_NS (above), NATIVE=0 to leave the
# native runs out (counted once, they do not change between builds).
set -u
die() { echo "bench: $*" >&2; exit 2; }
B=$(cd "${1:?usage: bench/callgrind_real.sh BUILD_DIR DARKNET_OUTDIR [LIB.so ...]}" && pwd) ||
  die "no build dir"
DK=${2:?usage: bench/callgrind_real.sh BUILD_DIR DARKNET_OUTDIR [LIB.so ...]}
shift 2
[ $# -gt 0 ] || set -- "$B/.libs/libtprof.so"
for so in "$@"; do [ -f "$so" ] || die "$so missing"; done
command -v valgrind > /dev/null || die "valgrind is not installed"
S=$(cd "$(dirname "$0")/.." && pwd)
ROWS=${ROWS:-ex_mlp ex_cnn ex_transformer darknet darknet_instr numpy}
EX_STEPS=${EX_STEPS:-mlp=60 cnn=40 transformer=40}
DK_ITERS=${DK_ITERS:-1} NP_ITERS=${NP_ITERS:-300} PY=${PY:-/usr/bin/python3}
HOOK_NS=${HOOK_NS:-1000} NATIVE=${NATIVE:-1}
steps_of() { local kv; for kv in $EX_STEPS; do [ "${kv%%=*}" = "$1" ] && echo "${kv#*=}"; done; }
W=$(mktemp -d /tmp/tprof-cgreal.XXXXXX) || die "no temporary directory"
trap 'rm -rf "$W"' EXIT
export OPENBLAS_NUM_THREADS=1
CFG=/usr/share/darknet/cfg/yolov3-tiny.cfg
DKX= DKI=
case " $ROWS " in *" darknet "*)
    DKX=$("$S/scripts/darknet-cli.sh" "$DK") || die "cannot build darknet" ;;
esac
case " $ROWS " in *" darknet_instr "*)
    DKI=$("$S/scripts/darknet-cli.sh" --instrument "$DK") || die "cannot build darknet --instrument" ;;
esac
cat > "$W/np.py" <<PYEOF
import numpy as np
rng = np.random.default_rng(1)
a = rng.standard_normal((256, 256), dtype=np.float32)
x = a
for i in range($NP_ITERS):
    x = np.tanh(x @ a / 16.0)
print("sum %.3f" % float(x.sum()))
PYEOF
cmd_of() {
    case $1 in
    ex_*) printf '%s\n' "$B/examples/${1#ex_}" --steps "$(steps_of "${1#ex_}")" ;;
    darknet) printf '%s\n' "$DKX" speed "$CFG" "$DK_ITERS" ;;
    darknet_instr) printf '%s\n' "$DKI" speed "$CFG" "$DK_ITERS" ;;
    numpy) printf '%s\n' "$PY" "$W/np.py" ;;
    esac
}
count() { # so|native row -> instructions
    local cmd pre=()
    mapfile -t cmd < <(cmd_of "$2")
    [ "$1" = native ] || pre=(LD_PRELOAD="$1" TPROF_OUTPUT=none TPROF_SAMPLE_HZ=0
        TPROF_HOOK_NS="$HOOK_NS" TPROF_PEAK_GFLOPS=100 TPROF_PEAK_GBPS=20)
    env "${pre[@]}" valgrind --tool=callgrind --callgrind-out-file="$W/cg.out" "${cmd[@]}" \
        > /dev/null 2> "$W/log" || { echo "bench: $2 failed: $(tail -3 "$W/log")" >&2; exit 1; }
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$W/log" | tail -1
}
echo "callgrind, whole process; commit $(git -C "$S" rev-parse --short HEAD 2> /dev/null || echo unknown), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "examples: --steps, $EX_STEPS; darknet: speed yolov3-tiny.cfg $DK_ITERS; numpy: $NP_ITERS steps; TPROF_HOOK_NS=$HOOK_NS"
for row in $ROWS; do
    n=-
    [ "$NATIVE" = 0 ] || n=$(count native "$row")
    line="$row native $n"
    for so in "$@"; do
        t=$(count "$so" "$row")
        line="$line | $so $t"
        [ "$n" = - ] || line="$line $(awk -v t="$t" -v n="$n" 'BEGIN { printf "%.3fx", t / n }')"
    done
    echo "$line"
done
