#!/bin/sh
# Snapshots leave no trace in the figures (tests/victims/v_snapfree.c): after several snapshots,
# the report at exit has no unknown frees and exactly the program's own allocations, although
# call sites had to be named in a library without debug information here (libgcc_s). A debuginfod
# server is named that cannot answer (a file URL to nothing), so that a libdw that asks one only
# when one is set asks it here too.
. "$TS/lib.sh"
V=$TB/victims/v_snapfree
out=$(DEBUGINFOD_URLS="file://$WORK/no-server" DEBUGINFOD_CACHE_PATH="$WORK/cache" \
      TPROF_SNAPSHOT=0.05 TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" \
      "$V" "$WORK/r.json" 2> "$WORK/err") || fail "victim failed: $? $(cat "$WORK/err")"
[ -s "$WORK/err" ] && fail "tprof said: $(cat "$WORK/err")"
n=${out#frames }
[ "$n" -gt 0 ] 2>/dev/null || fail "unexpected output: $out"
jcheck "$WORK/r.json" "m['unknown_frees'] == 0" \
  "site('cb_alloc')['allocs'] == $n" "site('cb_alloc')['frees'] == $n" \
  "site('keep_alloc')['allocs'] == 3" "site('keep_alloc')['frees'] == 1" \
  "site('keep_alloc')['live_at_exit_bytes'] == 6000" \
  "{s['frames'][0]['function'] for s in m['sites']} <= {'cb_alloc', 'keep_alloc', '_IO_file_doallocate'}" \
  "m['allocs'] == sum(s['allocs'] for s in m['sites'])" \
  "m['frees'] == sum(s['frees'] for s in m['sites'])" \
  "any(x.startswith('TPROF_SNAPSHOT: ') and int(x.split()[1]) >= 2 for x in d['notes'])"
exit 0
