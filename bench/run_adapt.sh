#!/bin/bash
# What tprof's defaults cost on programs full of short calls, and whether the time split it
# reports agrees with sampling. Two programs, each run natively and under tprof with no
# TPROF_* setting, interleaved, best of REPS wall times (other load on the machine only adds):
#   - bench/storm30.c: N calls (default 3*10^7) of tile_matmul, ~30 ns each, named like an op;
#   - darknet rebuilt with -finstrument-functions (scripts/darknet-cli.sh --instrument), `speed`
#     on yolov3-tiny: each op's share of the time under tprof against `perf record` (cpu-clock)
#     of the native run, both shares of the program's whole run.
# Usage: bench/run_adapt.sh BUILD_DIR [DARKNET_OUTDIR]   Environment: REPS (default 3), N.
# bench/run_plt_perf.sh does the darknet part for Debian's own libdarknet.so (no rebuild).
set -u
die() { echo "bench: $*" >&2; exit 2; }
B=$(cd "${1:?usage: bench/run_adapt.sh BUILD_DIR [DARKNET_OUTDIR]}" && pwd) || die "no build dir"
SO=$B/.libs/libtprof.so
[ -f "$SO" ] || die "$SO missing: build first"
REPS=${REPS:-3}
N=${N:-30000000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
S=$(cd "$(dirname "$0")" && pwd)

best() { # best wall seconds of REPS runs of "$@" (stdout discarded)
    local b=
    for _ in $(seq "$REPS"); do
        local s e
        s=$(date +%s.%N)
        "$@" > /dev/null 2>&1 || die "failed: $*"
        e=$(date +%s.%N)
        b=$(echo "$s $e ${b:-1e9}" | awk '{ d = $2 - $1; print (d < $3 ? d : $3) }')
    done
    echo "$b"
}

gcc -O2 -g -finstrument-functions "$S/storm30.c" -o "$T/storm30" || die "cannot build storm30"
nat=$(best "$T/storm30" "$N")
tp=$(best env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_JSON="$T/storm.json" "$T/storm30" "$N")
echo "storm30 ($N calls of ~30 ns named *matmul*): native ${nat}s, tprof ${tp}s, ratio $(echo "$tp $nat" | awk '{printf "%.2f", $1 / $2}')"
python3 - "$T/storm.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for o in d["ops"]:
    print("  op %-12s calls %d counted %d demoted %s self %.3fs" % (o["name"], o["calls"], o.get("counted_calls", 0), o.get("demoted"), o["self_ns"] / 1e9))
PY

OUT=${2:-}
[ -n "$OUT" ] || exit 0
X=$("$S/../scripts/darknet-cli.sh" --instrument "$OUT") || die "darknet build failed"
CFG=/usr/share/darknet/cfg/yolov3-tiny.cfg
nat=$(best "$X" speed "$CFG" 1)
tp=$(best env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_JSON="$T/dn.json" "$X" speed "$CFG" 1)
echo "darknet -finstrument-functions speed yolov3-tiny 1: native ${nat}s, tprof ${tp}s, ratio $(echo "$tp $nat" | awk '{printf "%.2f", $1 / $2}')"
command -v perf > /dev/null || exit 0
perf record -q -e cpu-clock -F 1000 --call-graph dwarf,16384 -o "$T/perf.data" "$X" speed "$CFG" 1 \
    > /dev/null 2>&1 || die "perf record failed"
perf script -i "$T/perf.data" -F ip,sym 2> /dev/null > "$T/perf.txt"
# Each sample goes to the innermost frame (inlined frames included) that tprof calls an op: that
# op's self time as sampling sees it, to set against tprof's self time of the same op.
python3 - "$T/dn.json" "$T/perf.txt" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ops = {o["name"] for o in d["ops"]}
got, n, chain = {}, 0, []
def flush():
    global n
    if chain:
        n += 1
        op = next((f for f in chain if f in ops), "(outside every op)")
        got[op] = got.get(op, 0) + 1
for line in open(sys.argv[2]):
    f = line.split()
    if not f:
        flush()
        chain = []
    elif len(f) >= 2:
        chain.append(f[1].split(".")[0])  # gemm_cpu.localalias, f.isra.0: the function
flush()
wall = d["program"]["wall_ns"]
print("  %-28s %8s %8s %6s" % ("op (self)", "tprof%", "perf%", "diff"))
for o in sorted(d["ops"], key=lambda o: -o["self_ns"])[:10]:
    t = 100.0 * o["self_ns"] / wall
    p = 100.0 * got.get(o["name"], 0) / max(n, 1)
    print("  %-28s %8.1f %8.1f %+6.1f%s" % (o["name"], t, p, t - p, "  (demoted)" if o.get("demoted") else ""))
# gemm_nn is inlined into gemm_cpu at -Ofast: its hooks still run (tprof times it apart), but
# perf sees one function; the family is compared as one.
fam = [o for o in d["ops"] if o["name"].startswith("gemm")]
t = 100.0 * sum(o["self_ns"] for o in fam) / wall
p = 100.0 * sum(got.get(o["name"], 0) for o in fam) / max(n, 1)
print("  %-28s %8.1f %8.1f %+6.1f" % ("gemm* together", t, p, t - p))
# summed over threads when the report has their figures: a share of their time, as the report's
out = 100.0 * d["verdict"]["outside_ops_ns"] / (d["verdict"].get("threads_wall_ns") or wall)
print("  %-28s %8.1f %8.1f %+6.1f" % ("(outside every op)", out, 100.0 * got.get("(outside every op)", 0) / max(n, 1), out - 100.0 * got.get("(outside every op)", 0) / max(n, 1)))
print("  (%d perf samples)" % n)
PY
