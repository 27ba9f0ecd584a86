#!/bin/sh
# The demotion line from the host's lowest hook cost (track/ops/demote.c, report/peaks/hookcache.c), not
# from this run's measurement, which moves with the machine's load. Each run below has a cache
# of its own, planted with a known cost; nothing here depends on this machine's speed: a planted
# 0.5 ns is under any real measurement of a hook, a planted 1000 ns over any.
# - a planted 0.5 ns: the line is TPROF_DEMOTE x 0.5 exactly, and the cache keeps 0.5 (a run
#   that measures lower would replace it: then said so);
# - a planted 1000 ns is replaced by this run's lower measurement, which draws the line;
#   TPROF_HOOK_NS overrides both and leaves the cache alone; a cache of another CPU model or one
#   not valid is not used, and is replaced;
# - stability: near_norm takes 25 us a call, tiny_norm far less. With the host's cache at 0.5 ns
#   and TPROF_DEMOTE=40000 the line is 20 us: the same set (tiny_norm) in 10 runs of 10, beside
#   a busy loop, which moves this run's measurement. That the check can fail:
#   TPROF_HOOK_NS at 500 and 5000 ns alternately (a line of 20 and 200 us: what a moving
#   measurement did to the line) gives two sets.
# - a program with hooked exports and no instrumented function takes the line from the cache
#   without measuring (v_lptiny), and measures only when there is none.
. "$TS/lib.sh"
V="$TB/victims/v_adapt"
C="$XDG_CACHE_HOME/tprof"
mkdir -p "$C"
F=$(printf '%s/hook-%s' "$C" "$(hostname | tr '/' '_')")

plant() { # hook_ns [cpu_model]
  printf 'tprof-hook 1\nhook_ns %s\ncpu_model %s\ndate 2026-01-01T00:00:00Z\n' "$1" "${2:--}" > "$F"
}
cached() { sed -n 's/^hook_ns //p' "$F"; }
run() { # name [VAR=val...]: v_adapt MODE (tiny unless MODE=...), TPROF_DEMOTE=10000 unless set
  n=$1
  shift
  env MODE=tiny TPROF_DEMOTE=10000 TPROF_OPS='*norm*' TPROF_OUTPUT=none TPROF_JSON="$WORK/$n.json" \
    "$@" sh -c 'LD_PRELOAD="$0" "$1" "$MODE"' "$TPROF_SO" "$V" > /dev/null 2> "$WORK/err" ||
    fail "victim failed ($n): $(cat "$WORK/err")"
}
plant 0.5
run real
if [ "$(cached)" = 0.5 ]; then
  jcheck "$WORK/real.json" "d['program']['demote_line_ns'] == 5000.0" \
    "d['program']['demote_line_from'] == 'host best'" \
    "any('this host' in n and 'lowest hook cost' in n for n in d['notes'])"
else
  echo "note: this machine measured under 0.5 ns a hook: $(cached)"
  jcheck "$WORK/real.json" "d['program']['demote_line_ns'] < 5000.0" \
    "d['program']['demote_line_from'] == 'this run'"
fi
plant 1000
run lower
c=$(cached)
python3 -c "import sys; sys.exit(not 0 < float(sys.argv[1]) < 1000)" "$c" ||
  fail "a lower measurement did not replace a cache of 1000 ns: $c"
jcheck "$WORK/lower.json" "d['program']['demote_line_from'] == 'this run'" \
  "abs(d['program']['demote_line_ns'] - 10000 * $c) < 6"
plant 0.5
run given TPROF_HOOK_NS=4
[ "$(cached)" = 0.5 ] || fail "TPROF_HOOK_NS wrote the cache: $(cached)"
jcheck "$WORK/given.json" "d['program']['demote_line_ns'] == 40000.0" \
  "d['program']['demote_line_from'] == 'TPROF_HOOK_NS'"
plant 0.5 'Another CPU 9000'
run foreign
c=$(cached)
python3 -c "import sys; sys.exit(not 0.5 < float(sys.argv[1]) < 1000)" "$c" ||
  fail "cache of another CPU not replaced by this run's measurement: $c"
grep -q '^cpu_model Another' "$F" && fail "cache of another CPU kept its model"
jcheck "$WORK/foreign.json" "d['program']['demote_line_from'] == 'this run'" \
  "abs(d['program']['demote_line_ns'] - 10000 * $c) < 6"
printf 'tprof-hook 1\nhook_ns 0.5x\n' > "$F"
run broken
c=$(cached)
python3 -c "import sys; sys.exit(not 0 < float(sys.argv[1]) < 1000)" "$c" ||
  fail "a cache not valid was not replaced: $c"
jcheck "$WORK/broken.json" "d['program']['demote_line_from'] == 'this run'"

# A program that calls hooked exports and no instrumented function does not measure the hook:
# the host's cache draws its line, and the note says that nothing was measured; with no cache,
# it measures, and its measurement is kept.
plant 0.5
TPROF_DEMOTE=10000 TPROF_OPS='*norm*' TPROF_OUTPUT=none TPROF_JSON="$WORK/lp.json" \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_lptiny" > "$WORK/out" 2> "$WORK/err" ||
  fail "v_lptiny failed: $(cat "$WORK/err")"
[ "$(cat "$WORK/out")" = done ] || fail "v_lptiny's output changed: $(cat "$WORK/out")"
[ "$(cached)" = 0.5 ] || fail "a run that measured nothing wrote the cache: $(cached)"
jcheck "$WORK/lp.json" "d['program']['demote_line_ns'] == 5000.0" \
  "d['program']['demote_line_from'] == 'host best'" "d['program']['hook_ns'] == 0" \
  "ops['lp_tiny_norm']['calls'] == 1000 and ops['lp_tiny_norm']['demoted']" \
  "'too short to time: calls under 5000.0 ns (TPROF_DEMOTE 10000 x 0.500 ns, this host\\'s lowest hook cost, measured 2026-01-01T00:00:00Z; not measured again by this run, which hooked no instrumented function), so that the same ops are demoted whatever the machine\\'s load' in d['notes']"
rm -f "$F"
TPROF_DEMOTE=10000 TPROF_OPS='*norm*' TPROF_OUTPUT=none TPROF_JSON="$WORK/lp2.json" \
  LD_PRELOAD="$TPROF_SO" "$TB/victims/v_lptiny" > /dev/null 2> "$WORK/err" ||
  fail "v_lptiny failed (no cache): $(cat "$WORK/err")"
c=$(cached)
python3 -c "import sys; sys.exit(not 0 < float(sys.argv[1]) < 1000)" "$c" ||
  fail "a run with no cache did not keep its measurement: $c"
jcheck "$WORK/lp2.json" "d['program']['demote_line_from'] == 'this run'" \
  "abs(d['program']['demote_line_ns'] - 10000 * $c) < 6"

# Stability. The demoted set of each run, one line each.
sets() { # name: the runs' sets, then how many distinct
  for i in 1 2 3 4 5 6 7 8 9 10; do
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted(o["name"] for o in d["ops"] if o["demoted"])), "%g" % d["program"]["demote_line_ns"])' \
      "$WORK/$1$i.json"
  done > "$WORK/$1.sets"
  sort -u "$WORK/$1.sets" | wc -l
}
for i in 1 2 3 4 5 6 7 8 9 10; do
  run given$i MODE=near TPROF_DEMOTE=40 TPROF_HOOK_NS=$((i % 2 ? 500 : 5000))
done
[ "$(sets given)" = 2 ] || fail "a moving line: not the two sets expected: $(cat "$WORK/given.sets")"
grep -qx 'near_norm tiny_norm 200000' "$WORK/given.sets" && grep -qx 'tiny_norm 20000' "$WORK/given.sets" ||
  fail "a moving line: $(cat "$WORK/given.sets")"
# The host's line, with a busy loop moving this run's own measurement.
sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2> /dev/null; rm -rf "$WORK"' EXIT
plant 0.5
for i in 1 2 3 4 5 6 7 8 9 10; do
  run host$i MODE=near TPROF_DEMOTE=40000
done
kill "$busy"
[ "$(sets host)" = 1 ] || fail "the host's cache: not the same set in 10 runs: $(cat "$WORK/host.sets")"
if [ "$(cached)" = 0.5 ]; then
  grep -qx 'tiny_norm 20000' "$WORK/host.sets" || fail "the host's cache: $(cat "$WORK/host.sets")"
fi
exit 0
