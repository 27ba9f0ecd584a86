#!/bin/sh
# OpenMP with OMP_WAIT_POLICY=active: in op omp_uneven, thread 1 of a team of 2 works for 400 ms
# of its own CPU time while thread 0 (the op's thread) has nothing to do and spins in libgomp's
# barrier. Asserted: the victim's output is its own; the op's spin waiting is there (CPU samples
# in libgomp's text: how many depends on the scheduler, so only > 0), marked as an estimate from
# samples, and counted apart from its work; some thread carries spin time; the WORK AND WAIT table
# lists the op with its "~" spin. The same with both threads taking turns on one CPU (the victim
# moves itself there after libgomp counted the CPUs: "onecpu").
# The worker's work is not asserted: which thread the CPU-time timer's SIGPROF lands on varies
# from run to run (on one CPU the two take turns), and 0 to 400 ms of work were seen in runs of
# the same binary. A spinning worker is asserted below.
# Where the test itself may use one CPU only, libgomp knows its threads outnumber the CPUs and
# spins only briefly before it sleeps (in a futex call of its own, which tprof does not see): then
# what is asserted is that no waiting is made up: the op is not named as mostly waiting.
. "$TS/lib.sh"
ncpu=$(python3 -c 'import os; print(len(os.sched_getaffinity(0)))')
for run in all onecpu; do
  out=$(OMP_WAIT_POLICY=active TPROF_OUTPUT="$WORK/$run.txt" TPROF_JSON="$WORK/$run.json" preload \
    "$TB/victims/v_ompwait" $run) || fail "$run: victim failed: $?"
  [ "$out" = "done 2" ] || fail "$run: stdout changed: $out"
  if [ "$ncpu" -lt 2 ]; then
    jcheck "$WORK/$run.json" "[o for o in d['ops'] if o['name'] == 'omp_uneven'][0]['wait_share'] < 0.5" \
      "d['verdict']['wait_op'] is None"
    continue
  fi
  jcheck "$WORK/$run.json" "[o for o in d['ops'] if o['name'] == 'omp_uneven'][0]['wait_spin_ns'] > 0" \
    "[o for o in d['ops'] if o['name'] == 'omp_uneven'][0]['wait_spin_method'] == 'samples'" \
    "[o for o in d['ops'] if o['name'] == 'omp_uneven'][0]['cpu_ns'] >= [o for o in d['ops'] if o['name'] == 'omp_uneven'][0]['wait_spin_ns']" \
    "[o for o in d['ops'] if o['name'] == 'omp_uneven'][0]['wait_share'] > 0" \
    "any(t['wait_spin_ns'] > 0 for t in d['threads'])" \
    "all(t['wait_spin_method'] == 'samples' for t in d['threads'])"
  grep -Eq "^omp_uneven +~[0-9.]+% +[^ ]+ +~[0-9.]+ [mun]?s " "$WORK/$run.txt" || fail "$run: WORK AND WAIT row"
done
# Outside every op the spin is told apart from the functions that work: the samples' line says how
# many landed in the OpenMP runtime, figures equal to the JSON's.
[ "$ncpu" -lt 2 ] && exit 0
# A spinning worker (libgomp spins only where its threads have CPUs of their own): the main
# thread, in the op, works; thread 1, with no op open, waits at the barrier spinning in libgomp.
# Its spin is the op's waiting (and that worker's own), not work.
OMP_WAIT_POLICY=active TPROF_OUTPUT=none TPROF_JSON="$WORK/worker.json" preload \
  "$TB/victims/v_ompwait" worker > /dev/null || fail "worker: victim failed: $?"
jcheck "$WORK/worker.json" "[o for o in d['ops'] if o['name'] == 'omp_uneven'][0]['wait_spin_ns'] > 0" \
  "any(t['wait_spin_ns'] > 0 for t in d['threads'] if t['tid'] != d['program']['pid'])"
OMP_WAIT_POLICY=active TPROF_OUTPUT="$WORK/noop.txt" TPROF_JSON="$WORK/noop.json" preload \
  "$TB/victims/v_ompwait" noop > /dev/null || fail "noop: victim failed: $?"
jcheck "$WORK/noop.json" "d['samples']['outside_spin'] > 0" "d['ops'] == []" \
  "d['samples']['outside_spin'] <= d['samples']['outside_ops']"
python3 - "$WORK/noop.txt" "$WORK/noop.json" << 'PY' || fail "noop: the samples' spin sentence"
import json, re, sys
flat, s = " ".join(open(sys.argv[1]).read().split()), json.load(open(sys.argv[2]))["samples"]
m = re.search(r"; of them (\d+) \(~([0-9.]+)% of the run's\) spinning in an OpenMP runtime: "
              r"waiting for other threads, not work", flat)
assert m, "no spin sentence"
assert int(m.group(1)) == s["outside_spin"], "count"
assert m.group(2) == "%.1f" % (100 * s["outside_spin"] / s["total"]), "share"
v = json.load(open(sys.argv[2]))["verdict"]["text"]
m = re.search(r" (\d+)% of the run's (\d+) CPU samples were spinning in an OpenMP runtime: "
              r"waiting for other threads, not work\.", v)
assert m and int(m.group(2)) == s["total"], "the verdict's spin sentence"
assert int(m.group(1)) == round(100 * s["outside_spin"] / s["total"]), "its share"
assert "libgomp" not in v, "libgomp named as where the time goes"
PY
