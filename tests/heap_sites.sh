#!/bin/sh
# Three call sites with known sizes: exact peak, per-site own peak, live at peak, live at exit.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_sites") || fail "victim failed"
[ "$out" = "done" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" \
  "m['peak_bytes'] == 14000" "m['allocs'] == 7" "m['frees'] == 4" \
  "m['live_at_exit_bytes'] == 7000" "m['unknown_frees'] == 0" \
  "site('site_a')['allocs'] == 3" "site('site_a')['frees'] == 1" "site('site_a')['bytes'] == 3000" \
  "site('site_a')['peak_live_bytes'] == 3000" "site('site_a')['live_at_peak_bytes'] == 3000" \
  "site('site_a')['live_at_exit_bytes'] == 2000" \
  "site('site_b')['allocs'] == 2" "site('site_b')['peak_live_bytes'] == 10000" \
  "site('site_b')['live_at_peak_bytes'] == 5000" "site('site_b')['live_at_exit_bytes'] == 5000" \
  "site('site_c')['allocs'] == 2" "site('site_c')['bytes'] == 10000" \
  "site('site_c')['live_at_peak_bytes'] == 6000" "site('site_c')['live_at_exit_bytes'] == 0" \
  "site('site_a')['frames'][0]['file'].endswith('v_sites.c')" \
  "site('site_a')['frames'][0]['line'] == 6" "site('site_a')['frames'][1]['function'] == 'main'"
