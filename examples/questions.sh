#!/bin/sh
# Questions a reader asks about the example models, answered by tprof runs:
#   (a) MLP, CNN and transformer side by side: heap, FLOPs, where the time goes, what bounds it;
#   (b) attention at sequence length n and 2n: does its n^2 show?
#   (c) naive (direct) against im2col + sgemm convolution, with `tprof diff`.
#
#   examples/questions.sh [--quick] [--keep DIR]
#
# Run it from the build directory (`make questions` does), after `make`. Every run uses
# --step train_step, so that per-step figures exist and the heap's persistent part is what outlives
# its step. (a) runs the programs as they are; (b) and (c) compare timings, so they run OpenBLAS
# on one thread and compare the fastest step of each run: on a shared machine other jobs only ever
# add time, and a BLAS thread waiting for a busy core adds the most. --quick runs fewer steps;
# --keep DIR keeps the JSON reports in DIR. Environment: TPROF_CLI (default ./tprof, a path),
# EXAMPLES_DIR (default ./examples).
set -eu

cli=${TPROF_CLI:-./tprof}
ex=${EXAMPLES_DIR:-./examples}
quick=0
keep=
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 ;;
    --keep) [ $# -ge 2 ] || { echo "questions.sh: --keep needs a directory" >&2; exit 2; }
            keep=$2; shift ;;
    *) echo "questions.sh: unknown argument $1; usage: questions.sh [--quick] [--keep DIR]" >&2
       exit 2 ;;
    esac
    shift
done
for f in "$cli" "$ex/mlp" "$ex/cnn" "$ex/transformer"; do
    [ -x "$f" ] || { echo "questions.sh: $f not found: run make first (from the build directory)" >&2
                     exit 1; }
done
case $cli in /*) ;; *) cli=$(pwd)/$cli ;; esac # the diff runs in the reports' directory
command -v python3 > /dev/null || { echo "questions.sh: needs python3 to read the JSON reports" >&2
                                    exit 1; }
if [ -n "$keep" ]; then
    mkdir -p "$keep"
    out=$keep
else
    out=$(mktemp -d "${TMPDIR:-/tmp}/tprof-questions.XXXXXX")
    trap 'rm -rf "$out"' EXIT
fi

# Steps per run: enough for stable medians, few enough for about a minute in all.
if [ $quick = 1 ]; then s_mlp=10 s_cnn=6 s_tr=6 s_attn=6 s_conv=3
else s_mlp=60 s_cnn=30 s_tr=20 s_attn=20 s_conv=10; fi
n=256

# profile NAME ARGS...: run an example under tprof, its JSON report to $out/NAME.json.
profile() {
    name=$1
    shift
    "$cli" run --step train_step --output none --json "$out/$name.json" -- "$@" > /dev/null ||
        { echo "questions.sh: $* failed under tprof" >&2; exit 1; }
}

profile mlp "$ex/mlp" --steps $s_mlp
profile cnn "$ex/cnn" --steps $s_cnn
profile transformer "$ex/transformer" --steps $s_tr
export OPENBLAS_NUM_THREADS=1
profile attn-n "$ex/transformer" --steps $s_attn --seq $n
profile attn-2n "$ex/transformer" --steps $s_attn --seq $((2 * n))
profile conv-direct "$ex/cnn" --steps $s_conv --conv direct
profile conv-im2col "$ex/cnn" --steps $s_conv --conv im2col

python3 - "$out" "$n" <<'EOF'
import json
import sys

out, n = sys.argv[1], int(sys.argv[2])


def load(name):
    with open(f"{out}/{name}.json") as f:
        r = json.load(f)
    r["by_name"] = {o["name"]: o for o in r["ops"]}
    return r


def mib(b):
    return f"{b / 2**20:.2f} MiB"


def ms(ns):
    return f"{ns / 1e6:.1f} ms" if ns < 1e9 else f"{ns / 1e9:.2f} s"


def pct(x):
    return f"{100 * x:.0f}%"


def flops(r):
    # FLOPs are counted once, at the outermost op that knows them (BLAS, or an annotated op).
    return sum(o["flops"] for o in r["ops"])


def step_p50(r):
    return r["steps"]["latency_ns"]["p50"]


def step_min(r):
    return r["steps"]["latency_ns"]["min"]


def op_min(r, name):
    return r["by_name"][name]["latency_ns"]["min"]


# Self time by kind of op: every nanosecond of the run is in exactly one row.
GROUPS = [("matmul", "matmul (BLAS)"), ("conv", "conv"), ("attention", "attention"),
          ("softmax", "softmax"), ("activation", "activation"), ("norm", "norm"),
          ("pool", "pool"), ("optimizer", "optimizer")]


def split(r):
    # The time outside every op is summed over threads, as the ops' self times are: the rows are
    # shares of the threads' time (the program's in a report without it).
    wall = r["verdict"].get("threads_wall_ns") or r["program"]["wall_ns"]
    rows = {label: 0 for _, label in GROUPS}
    rows["other ops"] = 0
    for o in r["ops"]:
        label = dict(GROUPS).get(o["kind"], "other ops")
        rows[label] += o["self_ns"]
    rows["outside ops"] = r["verdict"]["outside_ops_ns"]
    return {k: v / wall for k, v in rows.items()}


def table(header, rows, width=14):
    # A cell wider than the column (an op name such as maxpool_backward) widens its column, so
    # that neighbouring cells never run together.
    ncol = max(len(header), *(len(cells) for _, cells in rows))
    w = [max([width] + [len(str(c)) + 2 for _, cells in rows for c in cells[i:i + 1]] +
             [len(h) + 2 for h in header[i:i + 1]]) for i in range(ncol)]
    if header:
        print(f"{'':<24}" + "".join(f"{h:>{w[i]}}" for i, h in enumerate(header)))
    for label, cells in rows:
        print(f"{label:<24}" + "".join(f"{c:>{w[i]}}" for i, c in enumerate(cells)))


models = [("mlp", load("mlp")), ("cnn", load("cnn")), ("transformer", load("transformer"))]
print("(a) MLP, CNN and transformer side by side (tprof run --step train_step)\n")
rows = [
    ("steps", [str(r["steps"]["count"]) for _, r in models]),
    ("wall time", [ms(r["program"]["wall_ns"]) for _, r in models]),
    ("step (median)", [ms(step_p50(r)) for _, r in models]),
    ("heap peak", [mib(r["memory"]["peak_bytes"]) for _, r in models]),
    ("  persistent", [mib(r["memory"]["persistent_bytes"]) for _, r in models]),
    ("  transient", [mib(r["memory"]["transient_bytes"]) for _, r in models]),
    ("GFLOP per step", [f"{flops(r) / r['steps']['count'] / 1e9:.2f}" for _, r in models]),
    ("GFLOP/s (whole run)", [f"{flops(r) / r['program']['wall_ns']:.1f}" for _, r in models]),
    ("top op (self time)", [r["verdict"]["op"] for _, r in models]),
    ("  its share", [pct(r["verdict"]["share"]) for _, r in models]),
    ("  bound", [r["verdict"]["bound"] for _, r in models]),
    ("  efficiency", [pct(r["verdict"].get("efficiency", 0)) for _, r in models]),
]
table([name for name, _ in models], rows)
print("time split (self time)")
splits = [split(r) for _, r in models]
table([], [(f"  {k}", [pct(s[k]) for s in splits]) for k in splits[0]
           if any(s[k] >= 0.005 for s in splits)])

a, b = load("attn-n"), load("attn-2n")
att = [op_min(r, "attention_forward") + op_min(r, "attention_backward") for r in (a, b)]
rest = [step_min(r) - t for r, t in zip((a, b), att)]
att_flops = [sum(s["flops"] for s in r["by_name"]["cblas_sgemm"]["shapes"] if 32 in (s["k"], s["n"]))
             / r["steps"]["count"] for r in (a, b)]
print(f"\n(b) Attention at n = {n} and 2n = {2 * n} (transformer --seq; fastest step, "
      "OpenBLAS on one thread)\n")
table([f"n={n}", f"n={2 * n}", "ratio"], [
    ("attention fwd + bwd", [ms(att[0]), ms(att[1]), f"{att[1] / att[0]:.1f}x"]),
    ("  its sgemm GFLOP", [f"{att_flops[0] / 1e9:.3f}", f"{att_flops[1] / 1e9:.3f}",
                           f"{att_flops[1] / att_flops[0]:.1f}x"]),
    ("rest of the step", [ms(rest[0]), ms(rest[1]), f"{rest[1] / rest[0]:.1f}x"]),
    ("attention share", [pct(att[0] / step_min(a)), pct(att[1] / step_min(b)), ""]),
    ("heap peak", [mib(a["memory"]["peak_bytes"]), mib(b["memory"]["peak_bytes"]),
                   f"{b['memory']['peak_bytes'] / a['memory']['peak_bytes']:.1f}x"]),
])
print("n^2 predicts 4x for attention, 2x for the rest (linear in n).")

d, i = load("conv-direct"), load("conv-im2col")
# Both layers' forward convolutions, per step (the mean: the two layers' calls differ, so the
# fastest call would compare one layer in a run with the other in the other). The FLOPs are the
# same either way; conv2d_direct_forward reports them through the annotation API.
fwd = [r["by_name"]["conv_forward"]["total_ns"] / r["steps"]["count"] for r in (d, i)]
conv_flops = d["by_name"]["conv2d_direct_forward"]["flops"] / d["steps"]["count"]
print("\n(c) Direct against im2col + sgemm convolution (cnn --conv; OpenBLAS on one thread;\n"
      "    tprof diff below)\n")
table(["direct", "im2col", "ratio"], [
    ("forward conv per step", [ms(fwd[0]), ms(fwd[1]), f"{fwd[0] / fwd[1]:.1f}x"]),
    ("  GFLOP/s", [f"{conv_flops / fwd[0]:.1f}", f"{conv_flops / fwd[1]:.1f}", ""]),
    ("fastest step", [ms(step_min(d)), ms(step_min(i)), f"{step_min(d) / step_min(i):.1f}x"]),
])
EOF
echo
cd "$out" && "$cli" diff conv-direct.json conv-im2col.json --top 4
