#!/bin/sh
# What is still allocated at exit, split: the program's one 3 MiB leak from leak_me, exactly, apart
# from what system libraries keep (the started thread's DTV, the stdio buffer, the constructors of
# libquadmath and libgfortran where installed), in the JSON flags and totals, the text and the
# verdict.
. "$TS/lib.sh"
V="$TB/victims/v_leaks"
libs=""
for l in libquadmath.so.0 libgfortran.so.5; do
    python3 -c "import ctypes; ctypes.CDLL('$l')" 2>/dev/null && libs="$libs dlopen $l"
done
# The DTV the program makes alone (with the same libraries: their TLS modules count).
# shellcheck disable=SC2086
dtv0=$("$V" stdio $libs | sed -n 's/^dtv //p') || fail "victim failed alone"
# shellcheck disable=SC2086 # $libs is a list of arguments
out=$(TPROF_OUTPUT="$WORK/r.txt" TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V" stdio $libs) ||
    fail "victim failed: $?"
[ "$(echo "$out" | tail -n 1)" = "ok" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" \
  "m['live_at_exit_program_bytes'] == 3145728" "m['live_at_exit_program_allocs'] == 1" \
  "site('leak_me')['live_at_exit_bytes'] == 3145728" \
  "[s['system'] for s in m['sites'] if s['frames'][0].get('function') == 'leak_me'] == [False]" \
  "all(s['system'] for s in m['sites'] if s['live_at_exit_bytes'] and s['frames'][0].get('function') != 'leak_me')" \
  "m['live_at_exit_system_bytes'] == m['live_at_exit_bytes'] - 3145728" \
  "m['live_at_exit_system_allocs'] == m['live_at_exit_allocs'] - 1" \
  "m['live_at_exit_suppressed_bytes'] == 0 and m['live_at_exit_suppressed_allocs'] == 0" \
  "any(s['system'] and 'doallocate' in (s['frames'][0].get('function') or '') for s in m['sites'])" \
  "site('allocate_dtv')['bytes'] == $dtv0" \
  "'At exit, program: 3.00 MiB in 1 block leaked; system libraries keep ' in d['verdict']['text']"
if [ -n "$libs" ]; then
    jcheck "$WORK/r.json" \
      "any(s['system'] and s['live_at_exit_bytes'] and any('libquadmath' in (f.get('module') or '') for f in s['frames']) for s in m['sites'])"
fi
leaks=$(sed -n '/^LEAKS/,/^[A-Z][A-Z ]* -----/p' "$WORK/r.txt")
echo "$leaks" | grep -q '^  3.00 MiB        1  leak_me (v_leaks.c:' || fail "no leak_me row: $leaks"
[ "$(echo "$leaks" | grep -c 'B  *[0-9]*  ')" = 1 ] || fail "rows other than the program's: $leaks"
echo "$leaks" | tr -s '\n ' '  ' | grep -q 'system libraries keep [0-9.]* [KM]*i*B in [0-9]* blocks (.*stdio buffer.*): kept on purpose' ||
    fail "no system summary: $leaks"
echo "$leaks" | tr -s '\n ' '  ' | grep -q 'ld.so TLS' || fail "the DTV not named: $leaks"
if [ -n "$libs" ]; then
    echo "$leaks" | tr -s '\n ' '  ' | grep -q 'libquadmath' || fail "libquadmath not named: $leaks"
fi
# The same split read back from the JSON by the CLI.
"$TPROF_CLI" report "$WORK/r.json" >"$WORK/again.txt" || fail "tprof report failed"
tr -s '\n ' '  ' <"$WORK/again.txt" | grep -q 'At exit, program: 3.00 MiB in 1 block leaked; system' || fail "tprof report lost the split"
exit 0
