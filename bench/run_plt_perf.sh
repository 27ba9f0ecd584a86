#!/bin/bash
# The sibling of bench/run_adapt.sh's darknet part for Debian's own libdarknet.so (no rebuild of
# the library): darknet's command line built against /usr/lib/darknet/libdarknet.so
# (scripts/darknet-cli.sh OUTDIR), `speed` on yolov3-tiny, one pass, under tprof with no TPROF_*
# setting, against `perf record -e cpu-clock -F 999` of the native run. Debian's library has no
# frame pointers; perf's figures are given two ways: SELF shares (`perf report --no-children
# --sort dso,sym`, the leaf function of each sample) and each sample given to the innermost op on
# its stack (`--call-graph dwarf`, which unwinds through the library's .eh_frame). tprof's are each
# op's self time over the run's wall time (the base of the report's self%; the ops all run on the
# main thread).
# A leaf function that tprof does not time as an op of its own has its time in an op's self time:
# gemm_cpu and gemm_nn (no ops of their own in tprof's report of this library) in gemm's, the demoted
# im2col_get_pixel in im2col_cpu's and activate in activate_array's. perf's samples of those are
# added to that op's (the "folded" column says which). Everything else perf samples (the
# kernel included) is outside every op.
# "outside" is given twice for tprof: the report's figure (summed over the threads, a share of
# their summed wall time) and the main thread's alone, (wall - time in ops) / wall, which is what
# perf's samples measure when the other threads are idle.
# Usage: bench/run_plt_perf.sh BUILD_DIR DARKNET_OUTDIR   Environment: PASSES (default 1).
set -u
die() { echo "bench: $*" >&2; exit 2; }
B=$(cd "${1:?usage: bench/run_plt_perf.sh BUILD_DIR DARKNET_OUTDIR}" && pwd) || die "no build dir"
OUT=${2:?usage: bench/run_plt_perf.sh BUILD_DIR DARKNET_OUTDIR}
SO=$B/.libs/libtprof.so
[ -f "$SO" ] || die "$SO missing: build first"
command -v perf > /dev/null || die "perf is not installed"
S=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
PASSES=${PASSES:-1}
X=$("$S/../scripts/darknet-cli.sh" "$OUT") || die "darknet build failed"
CFG=/usr/share/darknet/cfg/yolov3-tiny.cfg
env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_JSON="$T/dn.json" "$X" speed "$CFG" "$PASSES" \
    > /dev/null 2>&1 || die "tprof run failed"
perf record -q -e cpu-clock -F 999 --call-graph dwarf,16384 -o "$T/perf.data" "$X" speed "$CFG" "$PASSES" \
    > /dev/null 2>&1 || die "perf record failed"
perf report -i "$T/perf.data" --no-children --sort dso,sym --stdio -q -n -g none 2> /dev/null > "$T/perf.txt"
perf script -i "$T/perf.data" -F ip,sym 2> /dev/null > "$T/chains.txt"
echo "darknet-cli (Debian's libdarknet.so) speed yolov3-tiny $PASSES, $(date -u +%F), load average $(cut -d' ' -f1 /proc/loadavg)"
python3 - "$T/dn.json" "$T/perf.txt" "$T/chains.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
fold = {"gemm_cpu": "gemm", "gemm_nn": "gemm", "im2col_get_pixel": "im2col_cpu",
        "activate": "activate_array"}
ops = {o["name"]: o for o in d["ops"]}
OUT = "(outside every op)"
# 1. self: each sample to its leaf function, folded as above.
leaf, n, top = {}, 0, []
for line in open(sys.argv[2]):
    m = re.match(r"\s*([\d.]+)%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(\S+)", line)
    if not m:
        continue
    cnt, sym = int(m.group(2)), m.group(5).split(".")[0]
    n += cnt
    top.append("%s %s%%" % (m.group(5), m.group(1)))
    op = fold.get(sym, sym)
    op = op if op in ops and not ops[op].get("demoted") else OUT
    leaf[op] = leaf.get(op, 0) + cnt
# 2. stack: each sample to the innermost frame (DWARF unwinding through .eh_frame) that tprof
# times as an op (a demoted op's time is its caller's; gemm's own frame never shows on the stacks,
# gemm_nn's caller reads as forward_convolutional_layer: the fold map names it). Samples under
# _dl_start (the dynamic linker relocating, before any constructor, so before tprof starts its
# clock) are counted apart.
stack, ns, early, chain = {}, 0, 0, []
def flush():
    global ns, early
    if not chain:
        return
    ns += 1
    if "_dl_start" in chain or "_dl_start_final" in chain:
        early += 1
        return
    op = OUT
    for f in chain:
        f = fold.get(f, f)
        if f in ops and not ops[f].get("demoted"):
            op = f
            break
    stack[op] = stack.get(op, 0) + 1
for line in open(sys.argv[3]):
    f = line.split()
    if not f:
        flush()
        chain = []
    elif len(f) >= 2:
        chain.append(f[1].split(".")[0])
flush()
wall = d["program"]["wall_ns"]
lp = lambda k: 100.0 * leaf.get(k, 0) / max(n, 1)
sp = lambda k: 100.0 * stack.get(k, 0) / max(ns - early, 1)
sm = d.get("samples") or {}
own = sm["in_tprof"] / sm["total"] if sm.get("total") else 0.0
print("| op (tprof: self time / wall time) | tprof %% | perf self %% | diff | perf stack %% | diff | tprof %% less tprof's own %.1f%% | diff to stack | perf self folds in |" % (100 * own))
print("|---|---|---|---|---|---|---|---|---|")
for o in sorted(d["ops"], key=lambda o: -o["self_ns"])[:8]:
    t = 100.0 * o["self_ns"] / wall
    f = ", ".join(k for k, v in fold.items() if v == o["name"])
    r = t / (1 - own)
    print("| %s | %.1f | %.1f | %+.1f | %.1f | %+.1f | %.1f | %+.1f | %s |" % (o["name"], t, lp(o["name"]),
          t - lp(o["name"]), sp(o["name"]), t - sp(o["name"]), r, r - sp(o["name"]), f))
main = 100.0 * (wall - d["program"]["in_ops_ns"]) / wall
print("| %s, main thread: (wall - in ops) / wall | %.1f | %.1f | %+.1f | %.1f | %+.1f | | | |"
      % (OUT, main, lp(OUT), main - lp(OUT), sp(OUT), main - sp(OUT)))
if sm.get("total"):
    t = 100.0 * sm["outside_ops"] / sm["total"]
    print("| %s, tprof's own CPU samples (%d of %d at %d Hz; %d in tprof's code) | %.1f | %.1f | %+.1f | %.1f | %+.1f | | | |"
          % (OUT, sm["outside_ops"], sm["total"], sm["hz"], sm["in_tprof"], t, lp(OUT), t - lp(OUT), sp(OUT), t - sp(OUT)))
v = d["verdict"]
rep = 100.0 * v["outside_ops_ns"] / (v.get("threads_wall_ns") or wall)
print("| %s, the report's figure (summed over %d threads, share of their summed wall time) | %.1f | %.1f | %+.1f | %.1f | %+.1f | | | |"
      % (OUT, d["program"]["threads"], rep, lp(OUT), rep - lp(OUT), sp(OUT), rep - sp(OUT)))
print()
print("perf: %d samples; the stack column leaves out %d under _dl_start (%.1f%% of them: relocation before tprof starts)"
      % (n, early, 100.0 * early / max(ns, 1)))
print("tprof: wall %.2f s, in ops %.2f s, tprof's hooks %.0f ms (%.1f%%), threads on a CPU %.2f s, waiting for one %.2f s"
      % (wall / 1e9, d["program"]["in_ops_ns"] / 1e9, d["program"].get("hooks_ns", 0) / 1e6,
         100.0 * d["program"].get("hooks_ns", 0) / wall, d["program"]["cpu_ns"] / 1e9,
         d["program"]["runq_ns"] / 1e9))
print("perf's top self symbols:", ", ".join(top[:12]))
PY
