#!/bin/sh
# TPROF_SUPPRESS in LeakSanitizer's format: the two 1000-byte leaks of suppress_me are reported as
# suppressed (2000 bytes in 2 blocks), not as leaks; a pattern on the source file does the same;
# a bad file is one warning line and no suppression; `tprof run --suppress` passes it on.
. "$TS/lib.sh"
V="$TB/victims/v_leaks"
run() { # run SUPPRESSION-FILE: the JSON in $WORK/r.json, the text in $WORK/r.txt, stderr in $WORK/err
    TPROF_SUPPRESS="$1" TPROF_OUTPUT="$WORK/r.txt" TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" \
        "$V" two >/dev/null 2>"$WORK/err" || fail "victim failed: $?"
}
suppressed() {
    jcheck "$WORK/r.json" \
      "m['live_at_exit_suppressed_bytes'] == 2000" "m['live_at_exit_suppressed_allocs'] == 2" \
      "m['live_at_exit_program_bytes'] == 3145728" "m['live_at_exit_program_allocs'] == 1" \
      "[s['suppressed'] for s in m['sites'] if s['frames'][0].get('function') == 'suppress_me'] == [True]" \
      "[s['suppressed'] for s in m['sites'] if s['frames'][0].get('function') == 'leak_me'] == [False]" \
      "'; 1.95 KiB suppressed (TPROF_SUPPRESS).' in d['verdict']['text']"
    grep -q '^suppressed (TPROF_SUPPRESS): 1.95 KiB in 2 blocks at 1 site$' "$WORK/r.txt" ||
        fail "no suppressed line: $(cat "$WORK/r.txt")"
    sed -n '/^LEAKS/,$p' "$WORK/r.txt" | grep -q 'suppress_me (' && fail "suppressed site listed as a leak"
    [ -s "$WORK/err" ] && fail "unexpected stderr: $(cat "$WORK/err")"
    return 0
}
printf '# LSan format\n\n  leak:^suppress_me$  \n' >"$WORK/fn.supp"
run "$WORK/fn.supp"
suppressed
printf 'leak:v_leaks.c*suppress\n' >"$WORK/file.supp" # no frame's file, function or module: nothing
run "$WORK/file.supp"
jcheck "$WORK/r.json" "m['live_at_exit_suppressed_bytes'] == 0" "m['live_at_exit_program_bytes'] == 3147728"
# The source file of main: every site under main, the thread's DTV too (as LSan would).
printf '#\nleak:*leaks.c$\n' >"$WORK/src.supp"
run "$WORK/src.supp"
jcheck "$WORK/r.json" "m['live_at_exit_suppressed_bytes'] == m['live_at_exit_bytes']" \
  "m['live_at_exit_program_bytes'] == 0" "m['live_at_exit_system_bytes'] == 0" \
  "'At exit, program: nothing leaked' in d['verdict']['text']"
# A bad file: one warning line, at start, and no suppression.
printf 'leak:ok\nsuppress_me\n' >"$WORK/bad.supp"
run "$WORK/bad.supp"
[ "$(cat "$WORK/err")" = "tprof: TPROF_SUPPRESS=$WORK/bad.supp: line 2: expected leak:<pattern>, found 'suppress_me'; using none" ] ||
    fail "bad file warning: $(cat "$WORK/err")"
jcheck "$WORK/r.json" "m['live_at_exit_suppressed_bytes'] == 0" "m['live_at_exit_program_bytes'] == 3147728" \
  "m['live_at_exit_program_allocs'] == 3"
run "$WORK/missing.supp"
[ "$(cat "$WORK/err")" = "tprof: TPROF_SUPPRESS=$WORK/missing.supp: cannot be read; using none" ] ||
    fail "missing file warning: $(cat "$WORK/err")"
# The CLI flag.
"$TPROF_CLI" run --lib "$TPROF_SO" --suppress "$WORK/fn.supp" --output "$WORK/r.txt" \
    --json "$WORK/r.json" -- "$V" two >/dev/null 2>"$WORK/err" || fail "tprof run failed"
suppressed
"$TPROF_CLI" run --lib "$TPROF_SO" --suppress "$WORK/bad.supp" -- "$V" >/dev/null 2>&1 &&
    fail "tprof run started with a bad suppression file"
exit 0
