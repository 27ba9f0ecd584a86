#!/bin/sh
# The advice on the time outside every op, one victim per row of the table (report/analyze/advice.c),
# each built the way its row needs (tests/advice.mk). Each victim spends 300 ms of CPU time in one
# place, so its samples (about 30) land there whatever the machine's speed; the shares and sample
# counts vary and are replaced by X and N before the sentences are compared, exactly. Under load a
# sample or two may land elsewhere, as a second function named: each sentence is asserted alone.
. "$TS/lib.sh"
V="$TB/victims"
# the verdict with its figures replaced: "~X%", "the run's N CPU samples"
norm="__import__('re').sub(r\"~[0-9.<]+%\", '~X%', __import__('re').sub(r\"run's [0-9]+ CPU\", \"run's N CPU\", d['verdict']['text']))"
run() { # name json args...: the victim under tprof with TPROF_OPS naming nothing it has
  n=$1 j=$2
  shift 2
  out=$(TPROF_OPS=no_such_op TPROF_OUTPUT=none TPROF_JSON="$WORK/$j.json" preload "$V/$n" "$@" \
    2> /dev/null) || fail "$n $* failed"
  native=$("$V/$n" "$@") || fail "$n $* failed natively"
  [ "$out" = "$native" ] || fail "stdout changed ($n $*): $out"
}

# inlined: the -O2 build's matmul is inlined into main, and the DWARF says so
run v_adv_o2 inline inline
jcheck "$WORK/inline.json" "d['outside_ops'][0]['name'] == 'main'" \
  "d['outside_ops'][0]['inlined'] == 'matmul' and d['outside_ops'][0]['kind'] == 'local'" \
  "'The time goes mostly to main (~X% of the run\\'s N CPU samples)' in $norm" \
  "' matmul is inlined into main, so no call of it exists to hook: mark it with a tprof.h region, or keep it a call of its own with __attribute__((noinline)) and build v_adv_o2 with -finstrument-functions.' in $norm" \
  "'stripped' not in d['verdict']['text']"

# a static function of a binary not built with -finstrument-functions
run v_adv_static static static
jcheck "$WORK/static.json" "d['outside_ops'][0]['name'] == 'crunch_local'" \
  "d['outside_ops'][0]['kind'] == 'local' and d['outside_ops'][0]['inlined'] is None" \
  "d['outside_ops'][0]['stripped'] is False" \
  "d['outside_ops'][0]['size'] == $(nm -S "$V/v_adv_static" | awk '$4 == "crunch_local" { print "0x" $2 }')" \
  "'The time goes mostly to crunch_local (~X% of the run\\'s N CPU samples)' in $norm" \
  "' crunch_local is v_adv_static\\'s own, and v_adv_static was not built with -finstrument-functions, so no hook reaches it: rebuild it with -finstrument-functions and TPROF_OPS=crunch_local (or tprof run --ops crunch_local), or mark it with tprof.h regions.' in $norm" \
  "'stripped' not in d['verdict']['text']"

# an export of a shared library that TPROF_OPS does not name: the line to copy, which works
run v_adv_lib lib lib
jcheck "$WORK/lib.json" "d['outside_ops'][0]['name'] == 'adv_work'" \
  "d['outside_ops'][0]['kind'] == 'export' and d['outside_ops'][0]['module'] == 'libtpadv.so'" \
  "'The time goes mostly to adv_work (~X% of the run\\'s N CPU samples)' in $norm" \
  "' To time it as an op: TPROF_OPS=adv_work (or tprof run --ops adv_work).' in $norm or ' To time adv_work as an op: TPROF_OPS=adv_work (or tprof run --ops adv_work).' in $norm"
TPROF_OPS=adv_work TPROF_OUTPUT=none TPROF_JSON="$WORK/followed.json" preload "$V/v_adv_lib" lib \
  > /dev/null || fail "v_adv_lib failed with TPROF_OPS=adv_work"
jcheck "$WORK/followed.json" "ops['adv_work']['calls'] > 0"

# stripped: the same binary without .symtab; only then does the verdict say "stripped"
cp "$V/v_adv_static" "$WORK/v_adv_stripped"
strip "$WORK/v_adv_stripped"
TPROF_OPS=no_such_op TPROF_OUTPUT=none TPROF_JSON="$WORK/stripped.json" preload \
  "$WORK/v_adv_stripped" static > /dev/null 2>&1 || fail "stripped victim failed"
jcheck "$WORK/stripped.json" "d['outside_ops'][0]['name'] is None" \
  "d['outside_ops'][0]['kind'] == 'no_symbol' and d['outside_ops'][0]['stripped'] is True" \
  "'The time goes mostly to code without a symbol in v_adv_stripped (~X% of the run\\'s N CPU samples)' in $norm" \
  "' v_adv_stripped is stripped, so its code has no names: an unstripped build of it, or its debug symbols package, would name the functions.' in $norm"

# a thread yielding in a loop: waiting, never an op to name
run v_adv_static yield yield
jcheck "$WORK/yield.json" "d['outside_ops'][0]['kind'] == 'wait'" \
  "'sched_yield' in d['outside_ops'][0]['name']" \
  "__import__('re').search(r\" (__)?sched_yield \\(~X% of the run's CPU samples\\) is threads waiting for work in a runtime's yield loop, not work: no op to name there\\.\", $norm)" \
  "'TPROF_OPS=__sched_yield' not in d['verdict']['text'] and 'TPROF_OPS=sched_yield' not in d['verdict']['text']"
echo "PASS advice"
