#!/bin/sh
# Allocations made by the constructors of the program's libraries, which run before libtprof.so's
# own, have their whole stacks: elfutils is loaded at the first walk that needs it when that is
# safe, not only from tprof's constructor.
. "$TS/lib.sh"
v="$TB/victims/v_ctor"
# The case is made only if libtpctor.so is initialised before libtprof.so.
order=$(LD_DEBUG=files TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$v" 2>&1 >/dev/null |
        sed -n 's/.*calling init: \(.*\)/\1/p' | grep -n -e libtpctor.so -e libtprof.so | cut -d: -f2 | tr '\n' ' ')
case "$order" in
*libtpctor.so*libtprof.so*) ;;
*) echo "libtprof.so was initialised before libtpctor.so ($order): nothing to show"; exit 77 ;;
esac
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$v") || fail "victim failed: $?"
[ "$out" = constructed ] || fail "unexpected output: $out"
jcheck "$WORK/r.json" \
  "[[(f['function'] or '').split('.')[0] for f in s['frames'][:3]] for s in m['sites'] if s['bytes'] == 777] == [['ctor_inner', 'ctor_outer', 'tpctor_init']]"
