#!/bin/sh
# Nothing tprof adds to the environment (TPROF_IMAGE, TPROF_ROOT_PID, TPROF_WARNED) reaches a
# program that tprof does not profile: one started with LD_PRELOAD empty, naming another library
# (libtpcount.so) or removed, by execve after fork or vfork, posix_spawn, posix_spawnp, system() and
# popen(). One started with LD_PRELOAD as it was (libtprof.so) gets them, with this run's root (the
# victim's pid in TPROF_ROOT_PID), and writes its own report (a shell between them, for system() and
# popen(), may write one too). The child is env, printing its environment; a bad setting
# (TPROF_TOP=x) makes the victim warn, so that it sets TPROF_WARNED, and the warning is printed once
# in the run, never by the child.
. "$TS/lib.sh"
V="$TB/victims/v_envleak"
ENV=$(command -v env) || { echo "SKIP: no env"; exit 77; }
n=0
for way in execve vfork spawn spawnp system popen; do
  for pre in "" "$TB/victims/libtpcount.so" none -; do
    n=$((n + 1))
    TPROF_TOP=x TPROF_OUTPUT=none TPROF_JSON="$WORK/r$n.%p.json" LD_PRELOAD="$TPROF_SO" \
      "$V" "$way" "$pre" "$ENV" > "$WORK/out" 2> "$WORK/err" || fail "$way '$pre': exit $?: $(cat "$WORK/err")"
    what="$way with LD_PRELOAD='$pre'"
    vpid=$(sed -n 's/^victim //p' "$WORK/out")
    [ -n "$vpid" ] || fail "$what: no victim line: $(cat "$WORK/out")"
    grep -q '^PATH=' "$WORK/out" || fail "$what: the child printed no environment: $(cat "$WORK/out")"
    [ "$(grep -c 'TPROF_TOP' "$WORK/err")" = 1 ] || fail "$what: the warning, not once: $(cat "$WORK/err")"
    reports=$(ls "$WORK"/r$n.*.json | wc -l)
    if [ "$pre" = - ]; then
      grep -q "^TPROF_ROOT_PID=$vpid:" "$WORK/out" || fail "$what: no TPROF_ROOT_PID=$vpid: $(cat "$WORK/out")"
      grep -q '^TPROF_IMAGE=' "$WORK/out" || fail "$what: no TPROF_IMAGE"
      grep -q '^TPROF_WARNED=' "$WORK/out" || fail "$what: no TPROF_WARNED"
      grep -l "\"argv\":\[\"$ENV\"\]" "$WORK"/r$n.*.json > /dev/null || fail "$what: env wrote no report"
    else
      grep -E '^(TPROF_IMAGE|TPROF_ROOT_PID|TPROF_WARNED)=' "$WORK/out" &&
        fail "$what: tprof's variables reached a child tprof does not profile"
      [ "$reports" = 1 ] || fail "$what: $reports reports, not the victim's alone"
    fi
  done
done
exit 0
