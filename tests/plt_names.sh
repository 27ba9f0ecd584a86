#!/bin/sh
# The PLT scan at the default ops (no TPROF_OPS) finds every call into a library of the program's
# own (tests/victims/libtpnames.c), whatever name it goes through: a plain export, the default
# version of a versioned name (tpn_ver@@TPN_2), its old version named explicitly (tpn_ver@TPN_1)
# and an alias (tpn_alias of tpn_target); from the program at start-up and from a plugin loaded
# with dlopen afterwards, every entry bound lazily (-z lazy). The scan looks a lazily bound import
# up in the program's own modules before it asks every module where ld.so will bind it.
. "$TS/lib.sh"
V="$TB/victims/v_plt_names"
readelf -d "$V" | grep -q BIND_NOW && fail "v_plt_names is linked with BIND_NOW"
readelf -d "$TB/victims/libtpnames_user.so" | grep -q BIND_NOW && fail "the plugin is BIND_NOW"
readelf -W --dyn-syms "$TB/victims/libtpnames_user.so" | grep -q 'tpn_ver@TPN_1' ||
  fail "the plugin does not import tpn_ver@TPN_1"
# rounds at start-up, rounds in the plugin: each round calls tpn_plain, tpn_ver twice (both
# versions), tpn_alias.
for rounds in "5 7" "0 7" "5 0"; do
  set -- $rounds
  native=$("$V" "$1" "$2") || fail "native run failed ($rounds)"
  out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V" "$1" "$2" \
        2>"$WORK/err") || fail "victim failed ($rounds): $(cat "$WORK/err")"
  [ "$out" = "$native" ] || fail "stdout changed ($rounds): $out vs $native"
  n=$(($1 + $2))
  jcheck "$WORK/r.json" \
    "ops['tpn_plain']['calls'] == $n" "ops['tpn_ver']['calls'] == 2 * $n" \
    "ops['tpn_alias']['calls'] == $n" \
    "sorted(ops) == ['tpn_alias', 'tpn_plain', 'tpn_ver']"
done
# The same with every entry bound at load time.
out=$(LD_BIND_NOW=1 TPROF_OUTPUT=none TPROF_JSON="$WORK/now.json" LD_PRELOAD="$TPROF_SO" "$V" 5 7 \
      2>"$WORK/err") || fail "victim failed (LD_BIND_NOW): $(cat "$WORK/err")"
jcheck "$WORK/now.json" \
  "ops['tpn_plain']['calls'] == 12" "ops['tpn_ver']['calls'] == 24" "ops['tpn_alias']['calls'] == 12"
# A name like a runtime's internal (Py*) is an op only when TPROF_OPS names it exactly.
for ops in 'PyTpn_call' 'PyTpn_*,tpn_plain' 'tpn_plain,PyTpn_call'; do
  TPROF_OPS="$ops" TPROF_OUTPUT=none TPROF_JSON="$WORK/py.json" LD_PRELOAD="$TPROF_SO" "$V" 5 7 \
    > /dev/null 2>"$WORK/err" || fail "victim failed (TPROF_OPS=$ops): $(cat "$WORK/err")"
  case $ops in *PyTpn_call*) want="12" ;; *) want="None" ;; esac
  jcheck "$WORK/py.json" "(ops['PyTpn_call']['calls'] if 'PyTpn_call' in ops else None) == $want"
done
exit 0
