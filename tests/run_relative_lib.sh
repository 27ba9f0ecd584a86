#!/bin/sh
# tprof run --lib (or TPROF_LIB) with a relative path: the library is preloaded by its absolute
# path, so a child that changes directory (make -C, a script's cd) is profiled too, and not run
# without tprof after a loader warning.
. "$TS/lib.sh"
V="$TB/victims/v_leaks"
mkdir -p "$WORK/lib" "$WORK/bin"
cp "$TPROF_SO" "$WORK/lib/libtprof.so"
ln -s "$TPROF_CLI" "$WORK/bin/tprof" # the reporter, beside the copy as an installed one is
for how in flag env; do
  rm -f "$WORK"/r.*.json
  if [ $how = flag ]; then
    (cd "$WORK" && "$TPROF_CLI" run --lib lib/libtprof.so --output none --json "$WORK/r.%p.json" \
       -- sh -c "cd / && exec \"$V\"") > "$WORK/out" 2> "$WORK/err" || fail "run failed ($how)"
  else
    (cd "$WORK" && TPROF_LIB=lib/libtprof.so "$TPROF_CLI" run --output none \
       --json "$WORK/r.%p.json" -- sh -c "cd / && exec \"$V\"") > "$WORK/out" 2> "$WORK/err" ||
      fail "run failed ($how)"
  fi
  [ "$(tail -n 1 "$WORK/out")" = ok ] || fail "stdout changed ($how): $(cat "$WORK/out")"
  ! grep -q 'cannot be preloaded' "$WORK/err" || fail "the child lost the library ($how): $(cat "$WORK/err")"
  set -- "$WORK"/r.*.json
  [ $# = 1 ] && [ -f "$1" ] || fail "not one report ($how): $*"
  jcheck "$1" "site('leak_me')['live_at_exit_bytes'] == 3145728"
done
exit 0
