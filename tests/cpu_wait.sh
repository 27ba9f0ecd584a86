#!/bin/sh
# Two busy threads pinned with taskset to one CPU beside a busy loop on the same CPU: the threads
# wait for the CPU, and the report says so. Asserted: the victim's output and status are its own;
# threads[] lists exactly the main thread and the two named threads (ended, each with at least
# the 150 ms of CPU it spun for, each with run-queue delay); the program's sums are the threads';
# one CPU allowed; the verdict opens with the CPU line, each sentence matching the JSON's figures
# (tests/cpu_text.py), its share above 10% (three runnable tasks on one CPU wait about 2/3 of
# the time: the bound is loose on purpose). No figure depends on the machine's speed. A second
# run merged with the first (tprof merge): the CPU figures are the two runs' sums, the threads
# both runs', and the CPU line speaks of the two processes and names the thread settings of the
# runtimes either process loaded. Steps beside the busy loop (v_cpu
# steps: 3 steps of 60 ms of CPU each): the thread running them had its 180 ms of CPU and waited
# for the CPU, and the STEPS section says so with the JSON's figures; the CPU line says that one
# busy thread on one CPU is not more threads than CPUs.
. "$TS/lib.sh"
[ -r /proc/self/schedstat ] || { echo "SKIP: no /proc/self/schedstat (kernel without schedstats)"; exit 77; }
command -v taskset > /dev/null || { echo "SKIP: no taskset"; exit 77; }
taskset -c 0 sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2> /dev/null; rm -rf "$WORK"' EXIT
out=$(TPROF_OUTPUT="$WORK/r.txt" TPROF_JSON="$WORK/r.json" taskset -c 0 env LD_PRELOAD="$TPROF_SO" \
  "$TB/victims/v_cpu") || fail "victim failed: $?"
[ "$out" = "done 2" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" "d['program']['cpu_source'] == 'schedstat'" \
  "d['program']['cpus_allowed'] == 1" \
  "len(d['threads']) == 3" \
  "sorted(t['name'] for t in d['threads'] if t['exited']) == ['tp-busy-a', 'tp-busy-b']" \
  "[t['tid'] for t in d['threads'] if not t['exited']] == [d['program']['pid']]" \
  "all(t['cpu_ns'] >= 150000000 and t['runq_ns'] > 0 for t in d['threads'] if t['exited'])" \
  "all(t['wall_ns'] >= t['cpu_ns'] for t in d['threads'] if t['exited'])" \
  "d['program']['cpu_ns'] == sum(t['cpu_ns'] for t in d['threads'])" \
  "d['program']['runq_ns'] == sum(t['runq_ns'] for t in d['threads'])" \
  "d['verdict']['cpu_wait_share'] > 0.10" \
  "d['verdict']['cpu_text'] is not None"
python3 "$TS/cpu_text.py" "$WORK/r.txt" "$WORK/r.json" present || fail "CPU verdict line"
# the two spinning threads are more than the one CPU; no thread pool's runtime loaded, none named
jcheck "$WORK/r.json" "d['program']['thread_runtimes'] == ''" \
  "'(those runnable at least half their time: 2) are more than the 1 CPU it may use' in d['verdict']['cpu_text']" \
  "d['verdict']['cpu_text'].endswith('include that wait: fewer threads or a quieter machine give it back.')"
# tprof report re-renders the same line from the JSON alone
"$TPROF_CLI" report "$WORK/r.json" > "$WORK/again.txt" 2>&1 || fail "tprof report failed"
python3 "$TS/cpu_text.py" "$WORK/again.txt" "$WORK/r.json" present || fail "CPU verdict line, re-rendered"
# the short report: the CPU verdict's first sentence, the rest left to the full report
TPROF_DETAIL=short "$TPROF_CLI" report "$WORK/r.json" | tr '\n' ' ' | tr -s ' ' |
  grep -Eq "CPU: the process got [0-9.]+ of the [0-9]+ CPUs? it may use, and its threads spent [0-9]+% of their runnable time waiting for a CPU \(why, and what gives it back: the full report\)\. " ||
  fail "the short report's CPU verdict: $(TPROF_DETAIL=short "$TPROF_CLI" report "$WORK/r.json" | grep -A2 '^CPU')"
# tprof merge: the two processes' CPU figures add up and their threads are listed together
TPROF_OUTPUT=none TPROF_JSON="$WORK/r2.json" taskset -c 0 env LD_PRELOAD="$TPROF_SO" \
  "$TB/victims/v_cpu" > /dev/null || fail "second run failed"
"$TPROF_CLI" merge "$WORK/r.json" "$WORK/r2.json" -o "$WORK/m.json" || fail "tprof merge failed"
python3 - "$WORK/r.json" "$WORK/r2.json" "$WORK/m.json" <<'PY' || fail "merged CPU figures"
import json, sys
a, b, m = (json.load(open(f)) for f in sys.argv[1:4])
for k in ("cpu_ns", "runq_ns"):
    assert m["program"][k] == a["program"][k] + b["program"][k], k
assert m["program"]["cpu_source"] == "schedstat"
assert m["program"]["cpus_allowed"] == 1
tids = sorted(t["tid"] for t in a["threads"] + b["threads"])
assert [t["tid"] for t in m["threads"]] == tids, "threads"
share = m["program"]["runq_ns"] / (m["program"]["cpu_ns"] + m["program"]["runq_ns"])
assert abs(m["verdict"]["cpu_wait_share"] - share) < 1e-9
assert m["verdict"]["cpu_text"].startswith(
    "CPU: the threads of the 2 processes spent %.0f%% of their runnable time waiting" % (100 * share)), m["verdict"]["cpu_text"]
PY
# tprof merge lists the thread pools' runtimes any process loaded, each once, and the merged CPU
# line names their settings (the two reports given runtimes by hand: v_cpu loads none)
python3 - "$WORK" <<'PY' || fail "runtimes given by hand"
import json, sys
for name, rts in (("r", "openblas"), ("r2", "openmp openblas")):
    d = json.load(open("%s/%s.json" % (sys.argv[1], name)))
    d["program"]["thread_runtimes"] = rts
    json.dump(d, open("%s/%s-rt.json" % (sys.argv[1], name), "w"))
PY
"$TPROF_CLI" merge "$WORK/r-rt.json" "$WORK/r2-rt.json" -o "$WORK/m-rt.json" || fail "tprof merge failed"
jcheck "$WORK/m-rt.json" "d['program']['thread_runtimes'] == 'openblas openmp'" \
  "d['verdict']['cpu_text'].endswith('include that wait: fewer threads (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS) or a quieter machine give it back.')"
# Steps beside the busy loop: their CPU and their wait for it
out=$(TPROF_OUTPUT="$WORK/s.txt" TPROF_JSON="$WORK/s.json" taskset -c 0 env LD_PRELOAD="$TPROF_SO" \
  "$TB/victims/v_cpu" steps) || fail "steps victim failed: $?"
[ "$out" = "done 3 steps" ] || fail "stdout changed: $out"
jcheck "$WORK/s.json" "d['steps']['count'] == 3" \
  "d['steps']['thread_cpu_ns'] >= 180000000" \
  "d['steps']['runq_ns'] > 0" \
  "d['steps']['wall_ns'] >= d['steps']['thread_cpu_ns'] and d['steps']['wall_ns'] >= d['steps']['runq_ns']" \
  "abs(d['steps']['wall_ns'] - sum(p['ns'] for p in d['steps']['series'])) <= 1e-3 * d['steps']['wall_ns']"
python3 - "$WORK/s.txt" "$WORK/s.json" <<'PY' || fail "the steps' CPU line: $(grep -A2 'recorded steps' "$WORK/s.txt")"
import json, re, sys
flat = " ".join(open(sys.argv[1]).read().split())
st = json.load(open(sys.argv[2]))["steps"]
m = re.search(r"the recorded steps took ([^;]+); the thread running them was on a CPU ([^(]+) \(([\d.]+)%\) "
              r"and waited ([^(]+) for one \(([\d.]+)%\); all the process's threads were on a CPU "
              r"([^(~]+) \(([\d.]+) CPUs on average\)", flat)
assert m, "no line, or its wording changed"
assert abs(float(m.group(3)) - 100 * st["thread_cpu_ns"] / st["wall_ns"]) < 0.051
assert abs(float(m.group(5)) - 100 * st["runq_ns"] / st["wall_ns"]) < 0.051
assert abs(float(m.group(7)) - st["cpu_ns"] / st["wall_ns"]) < 0.051
PY
# One thread waiting beside the busy loop does not crowd itself: the line says the wait is the
# other load and advises less of it, not fewer threads
python3 "$TS/cpu_text.py" "$WORK/s.txt" "$WORK/s.json" present || fail "CPU verdict line of one thread"
jcheck "$WORK/s.json" "len(d['threads']) == 1" \
  "'(those runnable at least half their time: 1) are no more than the 1 CPU it may use: other load' in d['verdict']['cpu_text']" \
  "'NUM_THREADS' not in d['verdict']['cpu_text']"
