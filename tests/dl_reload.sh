#!/bin/sh
# No library of the program is kept loaded by tprof (tests/victims/v_reload.c, libtpreplug.c): a
# plugin whose cblas_ddot tprof's wrapper must find in it (loaded RTLD_LOCAL, out of
# dlsym(RTLD_NEXT)'s sight) and whose replug_conv is hooked through its PLT, loaded 5 times from
# one path that holds version 1, 2, 1, 2, 1 of it. As without tprof: the constructor runs 5 times
# and each load answers with its own version's code (tprof once kept the first one loaded with
# RTLD_NODELETE: 1 constructor run and version 1's answer every time). Both wrapped calls
# counted every time: the cached real function is dropped at each dlclose and found again in the
# new load. RTLD_LOCAL|RTLD_NOW, and RTLD_GLOBAL|RTLD_LAZY (where a lookup of the PLT slot through
# the global scope from libtprof would also have made the plugin undeletable).
. "$TS/lib.sh"
V="$TB/victims/v_reload"
v1="$TB/victims/libtpreplug1.so"
v2="$TB/victims/libtpreplug2.so"
for mode in local global; do
  native=$("$V" "$WORK/plug-native.so" "$v1" "$v2" 5 "$mode") || fail "$mode: native run failed"
  expect="load 1: 84.0
load 2: 1084.0
load 3: 84.0
load 4: 1084.0
load 5: 84.0
constructor runs 5"
  [ "$native" = "$expect" ] || fail "$mode: native run: $native"
  out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/$mode.json" LD_PRELOAD="$TPROF_SO" \
        "$V" "$WORK/plug.so" "$v1" "$v2" 5 "$mode" 2>"$WORK/err") ||
    fail "$mode: victim failed (status $?): $(cat "$WORK/err")"
  [ "$out" = "$native" ] || fail "$mode: stdout changed: $out vs $native"
  [ -s "$WORK/err" ] && fail "$mode: unexpected stderr: $(cat "$WORK/err")"
  jcheck "$WORK/$mode.json" "ops['cblas_ddot']['calls'] == 5" "ops['cblas_ddot']['flops'] == 5 * 2*8" \
    "ops['replug_conv']['calls'] == 5" \
    "not any('real function not found' in n for n in d['notes'])"
done
exit 0
