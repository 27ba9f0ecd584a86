#!/bin/sh
# An op blocked for a thread that sleeps 250 ms past the op's reading of the clock, in each of
# the waiting calls tprof times (pthread_barrier_wait, pthread_cond_wait, pthread_cond_timedwait,
# pthread_cond_clockwait, sem_wait, sem_timedwait, sem_clockwait, a futex wait through syscall(),
# pthread_join), and an op calling sched_yield until a thread sets a flag 250
# ms past its start. A blocked op's waiting is at least 200 ms (the sleep less a margin for the
# few instructions between the clock reading and the wait; the figure is the wait's wall time, so
# no machine is too slow for it), the yield op's at least half the sleep (its loop's own
# instructions between the calls are not waiting); each op's work is less than its waiting, and
# the verdict says so in its exact sentence (for pthread_join, waiting for its threads to end,
# with no thread-count advice), in the text report and again from the JSON alone
# (tprof report). Asserted too: the victim's output is its own; the kind of wait; threads[]
# carries the main thread's waiting; the JSON's parts add up; the HTML report; the schema; and
# without samples, work as the op's time less its waits, nothing marked "~".
. "$TS/lib.sh"
for mode in barrier cond condtimed condclock sem semtimed semclock futex join yield; do
  out=$(TPROF_OUTPUT="$WORK/$mode.txt" TPROF_JSON="$WORK/$mode.json" preload "$TB/victims/v_opwait" $mode) \
    || fail "$mode: victim failed: $?"
  [ "$out" = "done $mode" ] || fail "$mode: stdout changed: $out"
  # the barrier's wait is one call, at least the sleep less the margin; the yield loop's is the sum
  # of its calls, and the loop's own instructions between them are not in it: half the sleep
  least=200000000
  case $mode in
    barrier) kinds=pthread_barrier_wait ;;
    cond | condtimed | condclock) kinds=pthread_cond_wait ;;
    sem | semtimed | semclock) kinds=sem_wait ;;
    futex) kinds=futex ;;
    join) kinds=pthread_join ;;
    yield) kinds=sched_yield least=125000000 ;;
  esac
  jcheck "$WORK/$mode.json" "[o for o in d['ops'] if o['name'] == 'opwait_$mode'][0]['wait_blocked_ns'] >= $least" \
    "[o for o in d['ops'] if o['name'] == 'opwait_$mode'][0]['wait_kinds'] == '$kinds'" \
    "all(o['wait_ns'] == o['wait_blocked_ns'] + o['wait_spin_ns'] for o in d['ops'])" \
    "[o for o in d['ops'] if o['name'] == 'opwait_$mode'][0]['work_ns'] < [o for o in d['ops'] if o['name'] == 'opwait_$mode'][0]['wait_ns']" \
    "[o for o in d['ops'] if o['name'] == 'opwait_$mode'][0]['wait_share'] >= 0.5" \
    "[o for o in d['ops'] if o['name'] == 'opwait_$mode'][0]['cpu_method'] == 'samples'" \
    "[o for o in d['ops'] if o['name'] == 'opwait_$mode'][0]['wait_spin_method'] == 'samples'" \
    "[t for t in d['threads'] if t['tid'] == d['program']['pid']][0]['wait_ns'] >= $least" \
    "d['verdict']['wait_op'] == 'opwait_$mode'"
  python3 "$TS/wait_text.py" "$WORK/$mode.txt" "$WORK/$mode.json" opwait_$mode || fail "$mode: waiting sentence"
  "$TPROF_CLI" report "$WORK/$mode.json" > "$WORK/again.txt" 2>&1 || fail "tprof report failed"
  python3 "$TS/wait_text.py" "$WORK/again.txt" "$WORK/$mode.json" opwait_$mode || fail "$mode: re-rendered"
done
# The HTML report: the op table's wait% column, "~" on the sampled share, and the same sentence
TPROF_OUTPUT=none TPROF_HTML="$WORK/b.html" TPROF_JSON="$WORK/b.json" preload "$TB/victims/v_opwait" barrier > /dev/null \
  || fail "victim failed: $?"
python3 - "$WORK/b.html" "$WORK/b.json" << 'PY' || fail "HTML report"
import html, json, re, sys
page, d = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
o = [x for x in d["ops"] if x["name"] == "opwait_barrier"][0]
assert "<th>wait%</th>" in page, "no wait% column"
assert re.search(r'<td data-v="[^"]*">~%.1f%%</td>' % (100 * o["wait_share"]), page), "no ~share cell"
m = re.search(r'<p class="verdict" id="wait-verdict">([^<]*)</p>', page)
assert m and html.unescape(m.group(1)) == d["verdict"]["wait_text"], "wait verdict"
PY
# The report follows the JSON schema (where the checker is installed)
if python3 -c 'import jsonschema' 2> /dev/null; then
  python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$WORK/b.json" \
    "$TS/../docs/tprof.schema.json" || fail "schema"
fi
# Without CPU samples the work is the op's time less its blocked waits, and nothing is marked "~"
out=$(TPROF_SAMPLE_HZ=0 TPROF_OUTPUT="$WORK/nos.txt" TPROF_JSON="$WORK/nos.json" preload "$TB/victims/v_opwait" barrier) \
  || fail "victim failed: $?"
jcheck "$WORK/nos.json" "[o for o in d['ops'] if o['name'] == 'opwait_barrier'][0]['work_method'] == 'time_less_waits'" \
  "[o for o in d['ops'] if o['name'] == 'opwait_barrier'][0]['cpu_method'] is None" \
  "[o for o in d['ops'] if o['name'] == 'opwait_barrier'][0]['wait_spin_ns'] == 0"
python3 "$TS/wait_text.py" "$WORK/nos.txt" "$WORK/nos.json" opwait_barrier || fail "no samples: waiting sentence"
