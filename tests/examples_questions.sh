#!/bin/sh
# examples/questions.sh --quick answers its three questions from real runs: the side-by-side
# table shows each model's own report, attention grows more than linearly from n to 2n, and the
# diff of direct against im2col convolution shows one op removed, one added. Which one is
# faster depends on the machine and its load, so only what is exact is asserted: calls, FLOPs,
# the ops each run has, and that the printed answers are the reports' own.
. "$TS/lib.sh"
EX="$TB/../examples"
[ -x "$EX/cnn" ] || { echo "SKIP: the examples were not built (configure found no OpenBLAS)"; exit 77; }
TPROF_CLI="$TPROF_CLI" EXAMPLES_DIR="$EX" sh "$TS/../examples/questions.sh" --quick --keep "$WORK/q" \
  > "$WORK/out" 2> "$WORK/err" || fail "questions.sh failed: $(cat "$WORK/err")"
[ -s "$WORK/err" ] && fail "questions.sh wrote to stderr: $(cat "$WORK/err")"
o="$WORK/out"
for want in "(a) MLP, CNN and transformer" "(b) Attention at n = 256 and 2n = 512" \
            "(c) Direct against im2col" "tprof diff: before "; do
  grep -qF "$want" "$o" || fail "no '$want' in the output: $(cat "$o")"
done
# the diff shows the direct convolution gone; in JSON: the im2col one is new
grep -q "^conv2d_direct_forward .*(removed)" "$o" ||
  fail "the diff does not show the direct convolution removed: $(cat "$o")"
"$TPROF_CLI" diff --format json "$WORK/q/conv-direct.json" "$WORK/q/conv-im2col.json" > "$WORK/diff.json" ||
  fail "tprof diff --format json failed"
python3 -c "
import json, sys
ops = {o['name']: o for o in json.load(open(sys.argv[1]))['ops']}
sys.exit(not (ops['conv2d_im2col_forward']['status'] == 'added' and ops['conv2d_direct_forward']['status'] == 'removed'
              and ops['conv_forward']['calls']['delta'] == 0))
" "$WORK/diff.json" || fail "diff: $(cat "$WORK/diff.json")"
# The printed figures come from the reports it kept: the top ops are the verdicts' ops, and
# attention's FLOPs grow exactly 4x from n to 2n.
python3 - "$WORK/q" "$o" <<'PY' || fail "questions.sh output: $(cat "$o")"
import json
import sys

q, out = sys.argv[1], open(sys.argv[2]).read().splitlines()


def report(name):
    with open(f"{q}/{name}.json") as f:
        r = json.load(f)
    r["by_name"] = {o["name"]: o for o in r["ops"]}
    return r


bad = []
top = next(line for line in out if line.startswith("top op (self time)")).split()[4:]
verdicts = [report(m)["verdict"]["op"] for m in ("mlp", "cnn", "transformer")]
if top != verdicts:
    bad.append(f"top ops {top} != {verdicts}")
a, b = report("attn-n"), report("attn-2n")
if b["program"]["argv"][-2:] != ["--seq", "512"] or a["program"]["argv"][-2:] != ["--seq", "256"]:
    bad.append("sequence lengths")
flops = [sum(s["flops"] for s in r["by_name"]["cblas_sgemm"]["shapes"] if 32 in (s["k"], s["n"]))
         for r in (a, b)]
if flops[1] != 4 * flops[0]:
    bad.append(f"attention FLOPs {flops}")
for why in bad:
    print("FAIL:", why)
sys.exit(1 if bad else 0)
PY
exit 0
