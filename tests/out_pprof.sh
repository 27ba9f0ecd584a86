#!/bin/sh
# The pprof profiles of real runs (TPROF_PPROF, TPROF_PPROF_TIME), read three ways: by
# tests/pprofread.py (a decoder of the wire format that shares nothing with tprof's encoder),
# by `go tool pprof` (golang-go; that part is skipped, with the reason, without it) and by
# speedscope's importer (npm, headless in Chromium; skipped likewise). What is known is asserted
# exactly: every total is the JSON report's (peak_space its peak bytes, alloc_space the bytes
# requested, self the ops' self times plus the time outside ops), an op's samples add up to its
# calls, FLOPs and self time (a demoted op's counted calls under a root of their own), the FLOPs
# TPROF_WORK gives each stack, an inline chain as one
# location's lines with files and lines, the CPU samples outside ops as their own root, and the
# same files from `tprof report --pprof` on the JSON report.
. "$TS/lib.sh"
T="$TPROF_CLI"
V="$TB/victims/v_trace"
OPS='*matmul*,*forward*,*conv*'
LINE=$(grep -n 'malloc(1 << 20)' "$TS/victims/v_trace.c" | cut -d: -f1)
[ -n "$LINE" ] || fail "the activation's malloc line not found in v_trace.c"
pp() { python3 - "$@" << 'EOF' || fail "pprof assertions"
import json, os, sys
sys.path.insert(0, os.environ["TS"])
import pprofread
exec(sys.argv[1])
EOF
}
export TS

# 20 steps: step k allocates 1 MiB and calls small_matmul(a, 16) k+1 times under layer_forward
# (210 calls of 2*16*16 FLOPs); the loader thread's 10 conv_layer calls each call small_matmul(a, 8).
out=$(tp TPROF_OPS="$OPS" TPROF_WORK='small_matmul: flops=2*n*n' TPROF_JSON="$WORK/r.json" \
      TPROF_PPROF="$WORK/h.pb.gz" TPROF_PPROF_TIME="$WORK/t.pb.gz" TPROF_OUTPUT="$WORK/r.txt" \
      LD_PRELOAD="$TPROF_SO" "$V" 20 1) || fail "victim failed"
[ "$out" = "steps 20 inner 1 done" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" "d['outputs']['pprof'] == '$WORK/h.pb.gz'" \
  "d['outputs']['pprof_time'] == '$WORK/t.pb.gz'" \
  "sorted((tuple(s['ops']), s['calls'], s['flops']) for s in d['op_stacks']) == [(('conv_layer',), 10, 0), (('conv_layer', 'small_matmul'), 10, 1280), (('layer_forward',), 20, 0), (('layer_forward', 'small_matmul'), 210, 107520)]"
tr -s ' \n' '  ' < "$WORK/r.txt" > "$WORK/r1.txt"
grep -qF "heap profile (pprof): $WORK/h.pb.gz (peak_space, leak_space, alloc_space, alloc_objects per call site; go tool pprof -http=: $WORK/h.pb.gz)" "$WORK/r1.txt" ||
  fail "OUTPUTS line of the heap profile: $(grep -A1 'heap profile' "$WORK/r.txt")"
grep -qF "op-time profile (pprof): $WORK/t.pb.gz (self ns, calls, flops per op stack; go tool pprof -http=: $WORK/t.pb.gz)" "$WORK/r1.txt" ||
  fail "OUTPUTS line of the op-time profile: $(grep -A1 'op-time profile' "$WORK/r.txt")"
# the short report names them on its "written:" line
tp TPROF_DETAIL=short TPROF_OPS="$OPS" TPROF_PPROF="$WORK/hs.pb.gz" TPROF_PPROF_TIME="$WORK/ts.pb.gz" \
   TPROF_OUTPUT="$WORK/s.txt" LD_PRELOAD="$TPROF_SO" "$V" 2 1 > /dev/null || fail "victim failed (short)"
tr -s ' \n' '  ' < "$WORK/s.txt" | grep -qF "written: heap pprof $WORK/hs.pb.gz, op-time pprof $WORK/ts.pb.gz" ||
  fail "short report's written line: $(grep -A1 written "$WORK/s.txt")"

pp "
d = json.load(open('$WORK/r.json')); m = d['memory']
h = pprofread.read('$WORK/h.pb.gz')
assert h.types == [('alloc_objects', 'count'), ('alloc_space', 'bytes'), ('leak_space', 'bytes'), ('peak_space', 'bytes')], h.types
assert h.default == 'peak_space' and h.period_type == ('space', 'bytes') and h.period == 1
assert (h.total('peak_space'), h.total('alloc_space'), h.total('alloc_objects'), h.total('leak_space')) == (m['peak_bytes'], m['bytes_allocated'], m['allocs'], m['live_at_exit_bytes']), (h.total('peak_space'), m['peak_bytes'])
assert h.time_nanos == d['program']['start_unix_ns'] and h.duration_nanos == d['program']['wall_ns']
assert h.comments[0] == 'tprof %s: heap profile of %s 20 1' % (d['tprof_version'], '$V'), h.comments
assert h.comments[1] == 'pid %d on %s, wall time %d ns' % (d['program']['pid'], d['program']['host'], d['program']['wall_ns'])
# the step's activation: 20 blocks of 1 MiB, one live at the peak, from train_step's line
act = [x for x in h.samples if h.stack(x)[-2:] == ['main', 'train_step']]
assert len(act) == 1 and act[0]['values'] == [20, 20 << 20, 0, 1 << 20], [x['values'] for x in act]
(fn, src, ln), = h.lines(act[0]['locations'][0])
assert fn == 'train_step' and src.endswith('v_trace.c') and ln == $LINE, (fn, src, ln)
assert act[0]['labels'] == {'program': d['program']['exe'], 'pid': (d['program']['pid'], '')}, act[0]['labels']
params = [x for x in h.samples if h.stack(x)[-1] == 'main']
assert len(params) == 1 and params[0]['values'] == [3, 3 << 16, 0, 3 << 16]
# mappings: the executable first, with its build-id; every frame's address inside its mapping
exe = d['modules'][0]
mp = list(h.mappings.values())
assert mp[0]['filename'] == exe['path'] and mp[0]['build_id'] == exe['build_id'], mp[0]
assert mp[0]['memory_start'] == exe['lo'] and mp[0]['memory_limit'] == exe['hi']
assert all(m2['has_functions'] and m2['has_filenames'] and m2['has_line_numbers'] and m2['has_inline_frames'] for m2 in mp)
for x in h.samples:
    for loc in x['locations']:
        if loc['mapping_id']:
            mm = h.mappings[loc['mapping_id']]
            assert mm['memory_start'] <= loc['address'] < mm['memory_limit'], (loc, mm)
assert act[0]['locations'][0]['address'] == exe['base'] + [f for s in m['sites'] for f in s['frames'] if f['function'] == 'train_step'][0]['offset']

t = pprofread.read('$WORK/t.pb.gz')
assert t.types == [('calls', 'count'), ('flops', 'count'), ('self', 'nanoseconds')] and t.default == 'self'
assert t.period_type == ('self', 'nanoseconds')
ops = {o['name']: o for o in d['ops']}
per = {}
for x in t.samples:
    leaf = t.stack(x)[-1]
    c = per.setdefault(leaf, [0, 0, 0])
    for i in range(3):
        c[i] += x['values'][i]
    if leaf in ops:
        assert x['labels']['kind'] == ops[leaf]['kind'], x['labels']
for name, o in ops.items():
    assert per[name] == [o['calls'], o['flops'], o['self_ns']], (name, per[name], o)
assert t.by_stack('flops') == {'layer_forward': 0, 'conv_layer': 0, 'layer_forward;small_matmul': 107520, 'conv_layer;small_matmul': 1280, '[outside ops]': 0}, t.by_stack('flops')
assert t.by_stack('calls')['layer_forward;small_matmul'] == 210
outside = sum(x['values'][2] for x in t.samples if t.stack(x)[0] == '[outside ops]')
assert outside == d['verdict']['outside_ops_ns'], (outside, d['verdict'])
assert t.total('self') == sum(o['self_ns'] for o in d['ops']) + d['verdict']['outside_ops_ns']
"

# An inline chain (v_inline, -O2): grab, inlined into build at two lines, is one location each
# with both lines, innermost first; and file:line on each.
line() { grep -nw "MARK:$1" "$TS/victims/v_inline.c" | cut -d: -f1; }
G=$(line grab); F=$(line first); S=$(line second); M=$(line main)
TPROF_OUTPUT=none TPROF_JSON="$WORK/c.json" TPROF_PPROF="$WORK/c.pb.gz" \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_inline" > /dev/null || fail "v_inline failed"
pp "
h = pprofread.read('$WORK/c.pb.gz')
def chain(x):
    return [(f, os.path.basename(s), l) for f, s, l in h.lines(x['locations'][0])]
got = sorted((chain(x), x['values'][1]) for x in h.samples if x['locations'] and h.lines(x['locations'][0])[0][0] == 'grab')
want = sorted([([('grab', 'v_inline.c', $G), ('build', 'v_inline.c', $F)], 1000), ([('grab', 'v_inline.c', $G), ('build', 'v_inline.c', $S)], 3000)])
assert got == want, got
x = [x for x in h.samples if x['values'][1] == 3000][0]
assert [(f, l) for f, _, l in h.lines(x['locations'][1])] == [('main', $M)], h.lines(x['locations'][1])
m = json.load(open('$WORK/c.json'))['memory']
assert h.total('peak_space') == m['peak_bytes'] and h.total('alloc_space') == m['bytes_allocated']
"

# The CPU samples outside every op (v_hot: 300 ms of CPU in crunch, no op but setup_table) are
# the root "[outside ops]", crunch under it with its samples as a label.
TPROF_OPS=setup_table TPROF_OUTPUT=none TPROF_JSON="$WORK/hot.json" TPROF_PPROF_TIME="$WORK/hot.pb.gz" \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_hot" > /dev/null || fail "v_hot failed"
pp "
d = json.load(open('$WORK/hot.json'))
t = pprofread.read('$WORK/hot.pb.gz')
crunch = [x for x in t.samples if t.stack(x) == ['[outside ops]', 'crunch']]
fn = [f for f in d['outside_ops'] if f['name'] == 'crunch'][0]
assert len(crunch) == 1 and crunch[0]['labels']['cpu_samples'] == (fn['samples'], 'count'), crunch
assert crunch[0]['values'][2] == d['verdict']['outside_ops_ns'] * fn['samples'] // max(d['samples']['outside_ops'], sum(f['samples'] for f in d['outside_ops']))
assert sum(x['values'][2] for x in t.samples if t.stack(x)[0] == '[outside ops]') == d['verdict']['outside_ops_ns']
assert t.by_stack('self')['setup_table'] == [o for o in d['ops'] if o['name'] == 'setup_table'][0]['self_ns']
"

# A demoted op (v_adapt: tiny_norm's first 65 calls timed, the other 935 counted): its counted
# calls are one sample under "[calls off the stacks]", with why, so that its calls add up.
TPROF_OPS='*norm*,*conv*' TPROF_HOOK_NS=10000 TPROF_DEMOTE=100 TPROF_OUTPUT=none \
  TPROF_JSON="$WORK/dem.json" TPROF_PPROF_TIME="$WORK/dem.pb.gz" LD_PRELOAD="$TPROF_SO" \
  "$TB/victims/v_adapt" tiny > /dev/null || fail "v_adapt failed"
pp "
d = json.load(open('$WORK/dem.json'))
t = pprofread.read('$WORK/dem.pb.gz')
off = [x for x in t.samples if t.stack(x) == ['[calls off the stacks]', 'tiny_norm']]
assert len(off) == 1 and off[0]['values'][0] == 935 and off[0]['values'][2] == 0, off
assert off[0]['labels']['why'] == 'demoted: counted, not timed', off[0]['labels']
for o in d['ops']:
    got = [sum(x['values'][i] for x in t.samples if t.stack(x)[-1] == o['name']) for i in range(3)]
    assert got == [o['calls'], o['flops'], o['self_ns']], (o['name'], got)
assert not [x for x in t.samples if t.stack(x)[0] == '[calls off the stacks]' and t.stack(x)[-1] == 'slow_conv']
"

# tprof report writes the same files from the JSON report, byte for byte
"$T" report --pprof "$WORK/h2.pb.gz" --pprof-time "$WORK/t2.pb.gz" "$WORK/r.json" > "$WORK/rep.out" ||
  fail "tprof report --pprof failed"
[ ! -s "$WORK/rep.out" ] || fail "tprof report --pprof wrote to stdout: $(head -3 "$WORK/rep.out")"
cmp -s "$WORK/h.pb.gz" "$WORK/h2.pb.gz" || fail "tprof report --pprof differs from TPROF_PPROF's file"
cmp -s "$WORK/t.pb.gz" "$WORK/t2.pb.gz" || fail "tprof report --pprof-time differs from TPROF_PPROF_TIME's file"
# with --html too, each file is written; a path that cannot be written is said, the others are
# written, and the exit status is 1
"$T" report --html "$WORK/both.html" --pprof "$WORK/nodir/x.pb.gz" --pprof-time "$WORK/t3.pb.gz" \
  "$WORK/r.json" 2> "$WORK/both.err" && fail "an unwritable --pprof path exited 0"
grep -qxF "tprof report: --pprof $WORK/nodir/x.pb.gz: No such file or directory" "$WORK/both.err" ||
  fail "unwritable --pprof line: $(cat "$WORK/both.err")"
[ -s "$WORK/both.html" ] || fail "--html not written beside a failed --pprof"
cmp -s "$WORK/t.pb.gz" "$WORK/t3.pb.gz" || fail "--pprof-time beside --html differs"
# a report without op stacks says what --pprof-time can have
TPROF_OPS="$OPS" TPROF_OUTPUT=none TPROF_JSON="$WORK/nostack.json" LD_PRELOAD="$TPROF_SO" "$V" 2 1 > /dev/null ||
  fail "victim failed (no stacks)"
"$T" report --pprof-time "$WORK/ns.pb.gz" "$WORK/nostack.json" 2> "$WORK/ns.err" || fail "report without stacks"
grep -qF "tprof report: $WORK/nostack.json has no op stacks (the run set none of TPROF_PPROF_TIME, TPROF_FOLDED, TPROF_HTML): --pprof-time has each op on its own under [calls off the stacks], not nested" "$WORK/ns.err" ||
  fail "no-stacks line: $(cat "$WORK/ns.err")"
pp "
d = json.load(open('$WORK/nostack.json'))
t = pprofread.read('$WORK/ns.pb.gz')
ops = {o['name']: o for o in d['ops']}
off = {t.stack(x)[1]: x for x in t.samples if t.stack(x)[0] == '[calls off the stacks]'}
assert sorted(off) == sorted(ops), sorted(off)
for n, x in off.items():
    assert x['values'] == [ops[n]['calls'], ops[n]['flops'], ops[n]['self_ns']] and x['labels']['why'] == 'no op stacks were recorded', (n, x)
assert all(t.stack(x)[0] in ('[calls off the stacks]', '[outside ops]') for x in t.samples)
"

# go tool pprof: reads both files as they are (no symbolisation: every mapping is named), with
# the same totals, and -diff_base between two runs gives the difference of their totals.
if command -v go > /dev/null && HOME="$WORK" GOCACHE="$WORK/go" go tool pprof -h > /dev/null 2>&1; then
  tp TPROF_OPS="$OPS" TPROF_OUTPUT=none TPROF_PPROF="$WORK/h10.pb.gz" LD_PRELOAD="$TPROF_SO" "$V" 10 1 \
    > /dev/null || fail "victim failed (10 steps)"
  for f in h t c hot h10; do
    HOME="$WORK" GOCACHE="$WORK/go" go tool pprof -raw "$WORK/$f.pb.gz" > "$WORK/$f.raw" 2> "$WORK/$f.goerr" ||
      fail "go tool pprof -raw $f.pb.gz: $(cat "$WORK/$f.goerr")"
    [ ! -s "$WORK/$f.goerr" ] || fail "go tool pprof said about $f.pb.gz: $(cat "$WORK/$f.goerr")"
  done
  HOME="$WORK" GOCACHE="$WORK/go" go tool pprof -raw -diff_base="$WORK/h10.pb.gz" "$WORK/h.pb.gz" \
    > "$WORK/diff.raw" 2> "$WORK/diff.goerr" || fail "go tool pprof -diff_base: $(cat "$WORK/diff.goerr")"
  pp "
import re
def totals(path):
    lines = open(path).read().split('\n')
    i = lines.index('Samples:')
    types = lines[i + 1].split()
    tot = [0] * len(types)
    for l in lines[i + 2:]:
        if l.startswith('Locations'):
            break
        m = re.match(r'^\s+((?:-?\d+\s+)*-?\d+): ', l)
        if m:
            tot = [a + int(b) for a, b in zip(tot, m.group(1).split())]
    return dict(zip([t.split('/')[0] for t in types], tot))
for f in ('h', 't', 'c', 'hot', 'h10'):
    p = pprofread.read('$WORK/%s.pb.gz' % f)
    got = totals('$WORK/%s.raw' % f)
    assert got == {t: p.total(t) for t, _ in p.types}, (f, got)
raw = open('$WORK/h.raw').read()
assert 'peak_space/bytes[dflt]' in raw and 'Comment: tprof ' in raw
assert re.search(r'train_step \S*v_trace.c:$LINE', raw), 'no train_step v_trace.c:$LINE in go pprof -raw'
assert re.search(r'grab \S*v_inline.c:$G', open('$WORK/c.raw').read())
a, b = pprofread.read('$WORK/h10.pb.gz'), pprofread.read('$WORK/h.pb.gz')
assert totals('$WORK/diff.raw') == {t: b.total(t) - a.total(t) for t, _ in b.types}, totals('$WORK/diff.raw')
assert totals('$WORK/diff.raw')['alloc_space'] >= 10 << 20
"
  echo "go tool pprof: read all five profiles, totals and -diff_base exact"
else
  echo "SKIP (part): no go tool pprof (golang-go, scripts/setup.sh): the files were checked by tests/pprofread.py only"
fi

# speedscope's importer: the stacks and weights of the default value, units, and file:line
SS=${SPEEDSCOPE_DIR:-$TB/npm/node_modules/speedscope}
[ -f "$SS/dist/release/index.html" ] || SS=${SPEEDSCOPE_DIR:-$TS/npm/node_modules/speedscope}
if [ -f "$SS/dist/release/index.html" ] && command -v chromium > /dev/null; then
  python3 "$TS/speedscope.py" "$SS" \
    -- "$WORK/r.json" pprof "$WORK/h.pb.gz" "main;train_step=1048576" "train_step@v_trace.c:$LINE" \
    -- "$WORK/r.json" pprof "$WORK/t.pb.gz" \
    -- "$WORK/c.json" pprof "$WORK/c.pb.gz" "build@v_inline.c:$F,$S" \
    -- "$WORK/hot.json" pprof "$WORK/hot.pb.gz" || fail "speedscope"
else
  echo "SKIP (part): no speedscope in $SS or no chromium (scripts/setup.sh)"
fi
exit 0
