#!/bin/sh
# Leaks of plugins unloaded before exit are named by their module (tests/victims/v_dlgone.c,
# libtpgone.c). libtpgone.so keeps 4,096 bytes itself; libtpgone2.so keeps 8,192 through
# libtpgonedep.so, which only it needs, so that its dlclose unloads both (tprof once remembered
# only the module dlclose named: the dependency's frames were "?+0x7f..."). Both are loaded before
# either is unloaded (a module loaded where an unloaded one was makes their frames ambiguous).
# Each leak's allocating frame names its module and function, in the JSON and the text. With the
# plugin files deleted after the dlclose (a package upgrade), the frame still names the module,
# and its offset is the one inside gone_keep that nm gives.
. "$TS/lib.sh"
V="$TB/victims/v_dlgone"
cp "$TB/victims/libtpgone.so" "$TB/victims/libtpgone2.so" "$TB/victims/libtpgonedep.so" "$WORK/" ||
    fail "no plugins"
p1="$WORK/libtpgone.so" p2="$WORK/libtpgone2.so" dep="$WORK/libtpgonedep.so"
native=$(LD_LIBRARY_PATH="$WORK" "$V" "$p1" gone_keep 4096 "$p2" gone2_keep 8192) || fail "native run failed"
[ "$native" = "plugins unloaded" ] || fail "native stdout: $native"
out=$(LD_LIBRARY_PATH="$WORK" TPROF_OUTPUT="$WORK/r.txt" TPROF_JSON="$WORK/r.json" \
      LD_PRELOAD="$TPROF_SO" "$V" "$p1" gone_keep 4096 "$p2" gone2_keep 8192) || fail "victim failed: $?"
[ "$out" = "$native" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" \
  "m['live_at_exit_program_bytes'] == 4096 + 8192" "m['live_at_exit_program_allocs'] == 2" \
  "site('gone_keep')['live_at_exit_bytes'] == 4096" \
  "site('gone_keep')['frames'][0]['module'] == '$p1'" \
  "site('gone_keep')['frames'][1]['function'] == 'main'" \
  "site('gonedep_keep')['live_at_exit_bytes'] == 8192" \
  "site('gonedep_keep')['frames'][0]['module'] == '$dep'" \
  "[f.get('function') for f in site('gonedep_keep')['frames'][1:3]] == ['gone2_keep', 'main']" \
  "site('gonedep_keep')['frames'][1]['module'] == '$p2'" \
  "not any(f.get('module') is None for s in m['sites'] for f in s['frames'][:1] if s['live_at_exit_bytes'])"
grep -q "^  4.00 KiB        1  gone_keep (libtpgone.c:[0-9]*) < main (v_dlgone.c:[0-9]*)" "$WORK/r.txt" ||
    fail "text: no named gone_keep row: $(grep -A4 LEAKS "$WORK/r.txt")"
grep -q "^  8.00 KiB        1  gonedep_keep (libtpgone.c:[0-9]*)" "$WORK/r.txt" ||
    fail "text: no named gonedep_keep row: $(grep -A4 LEAKS "$WORK/r.txt")"
grep -q '?+0x' "$WORK/r.txt" && fail "text: an unnamed frame: $(grep '?+0x' "$WORK/r.txt")"

# The files gone too: the module's path and the offset inside gone_keep, from nm.
set -- $(nm -S --defined-only "$p1" | awk '$4 == "gone_keep" { print $1, $2 }')
[ $# -eq 2 ] || fail "nm found no gone_keep in $p1"
lo=$((0x$1)) hi=$((0x$1 + 0x$2))
out=$(LD_LIBRARY_PATH="$WORK" TPROF_OUTPUT="$WORK/u.txt" TPROF_JSON="$WORK/u.json" \
      LD_PRELOAD="$TPROF_SO" "$V" --unlink "$p1" gone_keep 4096) || fail "victim --unlink failed: $?"
[ -e "$p1" ] && fail "the victim did not delete $p1"
jcheck "$WORK/u.json" "m['live_at_exit_program_bytes'] == 4096" \
  "[s['frames'][0]['module'] for s in m['sites'] if s['live_at_exit_bytes'] and not s['system']] == ['$p1']" \
  "[$lo < s['frames'][0]['offset'] <= $hi for s in m['sites'] if s['live_at_exit_bytes'] and not s['system']] == [True]"
grep -q "^  4.00 KiB        1  libtpgone.so+0x[0-9a-f]* < main (v_dlgone.c:[0-9]*)" "$WORK/u.txt" ||
    fail "text: no libtpgone.so+offset row: $(grep -A4 LEAKS "$WORK/u.txt")"
exit 0
