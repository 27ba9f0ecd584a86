#!/bin/sh
# Writing a report never kills the program nor takes its space:
# - under `ulimit -f` a report larger than the limit is refused before its first byte (one line),
#   the text report on a regular-file stderr is left out rather than cut, and the program's status
#   and buffered stdout are as natively (SIGXFSZ used to kill it at exit: status 153);
# - on a small tmpfs nearly full, reports asked for between the program's own writes (TPROF_SIGNAL,
#   periodic snapshots) are refused with one line in all, and every write of the program succeeds;
# - temporary files that dead processes of this run left beside its reports are removed by the
#   next report; a live process's, another run's, another user's and another name's stay.
. "$TS/lib.sh"
V="$TB/victims/v_fill"
SIZE="larger than the file size limit (ulimit -f)"
ROOM="not enough free space: the report would leave less than 1/8 of the file system (at most 256 MiB) free for the program"

# ---- ulimit -f (dash counts 512-byte blocks: 2 is 1 KiB; the JSON and text reports are larger) ----
lim() { sh -c 'ulimit -f 2; exec "$@"' sh "$@"; }
lim "$V" "$WORK/data" 512 0 > "$WORK/n.out" 2> "$WORK/n.err"; ns=$?
lim env TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" \
  "$V" "$WORK/data" 512 0 > "$WORK/t.out" 2> "$WORK/t.err"; ts=$?
[ "$ns" = 0 ] && [ "$ts" = 0 ] || fail "ulimit -f: status $ns natively, $ts under tprof"
cmp -s "$WORK/n.out" "$WORK/t.out" || fail "ulimit -f: stdout $(cat "$WORK/t.out")"
[ "$(cat "$WORK/t.err")" = "tprof: TPROF_JSON: cannot write $WORK/r.json: $SIZE; report not written" ] ||
  fail "ulimit -f: stderr: $(cat "$WORK/t.err")"
[ -z "$(ls "$WORK" | grep '^r\.json')" ] || fail "ulimit -f left: $(ls "$WORK" | grep '^r\.json')"
# the text report to stderr, a regular file under the limit: left out whole, never cut
lim env LD_PRELOAD="$TPROF_SO" "$V" "$WORK/data" 512 0 > "$WORK/t.out" 2> "$WORK/t.err"; ts=$?
[ "$ts" = 0 ] || fail "ulimit -f, text on stderr: status $ts"
cmp -s "$WORK/n.out" "$WORK/t.out" || fail "ulimit -f, text on stderr: stdout $(cat "$WORK/t.out")"
[ ! -s "$WORK/t.err" ] || fail "ulimit -f, text on stderr: a cut report: $(head -3 "$WORK/t.err")"
# a report within the limit is written
sh -c 'ulimit -f 4096; exec "$@"' sh env TPROF_OUTPUT=none TPROF_JSON="$WORK/fits.json" \
  LD_PRELOAD="$TPROF_SO" "$V" "$WORK/data" 512 0 > /dev/null 2> "$WORK/t.err" || fail "ulimit -f 4096: status $?"
[ ! -s "$WORK/t.err" ] || fail "ulimit -f 4096: $(cat "$WORK/t.err")"
jcheck "$WORK/fits.json" "d['schema'] == 1"

# ---- a small tmpfs, 100 KiB free of 1 MiB (less than the 128 KiB tprof leaves to the program) ----
S="$WORK/small"
mkdir "$S"
if ! mount -t tmpfs -o size=1m tmpfs "$S" 2> /dev/null; then
  echo "skip (the tmpfs cases): mount -t tmpfs is not permitted here"
else
  trap 'umount "$S" 2> /dev/null; rm -rf "$WORK"' EXIT
  first=$((1048576 - 102400)) # then 10 chunks of 8 KiB: 1028096 bytes, every one must fit
  "$V" "$S/data" $first 10 > "$WORK/n.out" || fail "tmpfs: the victim fails natively: $(cat "$WORK/n.out")"
  [ "$(cat "$WORK/n.out")" = "wrote 1028096" ] || fail "tmpfs natively: $(cat "$WORK/n.out")"
  rm -f "$S/data"
  for how in "TPROF_SIGNAL=USR1 signal" "TPROF_SNAPSHOT=0.01 -"; do
    set -- $how
    env TPROF_OUTPUT=none TPROF_JSON="$S/r.json" "$1" LD_PRELOAD="$TPROF_SO" \
      "$V" "$S/data" $first 10 "$2" > "$WORK/t.out" 2> "$WORK/t.err"; ts=$?
    [ "$ts" = 0 ] || fail "tmpfs, $1: status $ts: $(cat "$WORK/t.out")"
    cmp -s "$WORK/n.out" "$WORK/t.out" || fail "tmpfs, $1: $(cat "$WORK/t.out")"
    [ "$(stat -c %s "$S/data")" = 1028096 ] || fail "tmpfs, $1: the program's file has $(stat -c %s "$S/data") bytes"
    # one line for every report tried (r.sig<N>.json for the signals', r.json at exit)
    [ "$(sed -E 's|/r\.sig[0-9]+\.json: |/r.json: |' "$WORK/t.err")" = \
      "tprof: TPROF_JSON: cannot write $S/r.json: $ROOM; report not written" ] ||
      fail "tmpfs, $1: stderr: $(cat "$WORK/t.err")"
    [ "$(ls "$S")" = data ] || fail "tmpfs, $1: left $(ls "$S" | tr '\n' ' ')"
    rm -f "$S/data"
  done
  # with room enough, the same run writes its reports
  env TPROF_OUTPUT=none TPROF_JSON="$S/r.json" LD_PRELOAD="$TPROF_SO" "$V" "$S/data" 4096 2 > /dev/null 2> "$WORK/t.err" ||
    fail "tmpfs with room: status $?"
  [ ! -s "$WORK/t.err" ] || fail "tmpfs with room: $(cat "$WORK/t.err")"
  jcheck "$S/r.json" "d['schema'] == 1"
fi

# ---- stale temporary files of this run ----
D="$WORK/stale"
mkdir "$D"
hex=0123456789ab
touch -d '-1 hour' "$WORK/old"
# The profiled shell is the run's root; its child (a process of the run) dies at once, and a
# temporary file it would have left is planted under its pid. Then the program the shell execs
# writes the root's report.
env TPROF_OUTPUT=none TPROF_JSON="$D/r.json" LD_PRELOAD="$TPROF_SO" sh -c '
  D=$1 hex=$2 live=$3
  dead=$(sh -c "echo \$\$")
  : > "$D/r.$dead.json.tmp$dead.$hex"               # this run, its process gone: removed
  : > "$D/r.json.tmp$live.$hex"                      # a live process: kept
  : > "$D/r.json.tmp$dead.aaaaaaaaaaaa"
  touch -r "$4" "$D/r.json.tmp$dead.aaaaaaaaaaaa"     # another run (older): kept
  : > "$D/other.json.tmp$dead.$hex"                  # another report name: kept
  : > "$D/r.json.tmp$dead.bbbbbbbbbbbb"
  chown nobody "$D/r.json.tmp$dead.bbbbbbbbbbbb"     # another user: kept
  echo $dead > "$D/../deadpid"
  exec "$5"' sh "$D" $hex $$ "$WORK/old" "$TB/victims/v_sites" > /dev/null 2> "$WORK/t.err" ||
  fail "stale: status $?"
[ ! -s "$WORK/t.err" ] || fail "stale: $(cat "$WORK/t.err")"
dead=$(cat "$WORK/deadpid")
jcheck "$D/r.json" "m['peak_bytes'] == 14000"
[ ! -e "$D/r.$dead.json.tmp$dead.$hex" ] || fail "stale: the dead process's temporary file stayed"
for f in "r.json.tmp$$.$hex" "r.json.tmp$dead.aaaaaaaaaaaa" "other.json.tmp$dead.$hex" "r.json.tmp$dead.bbbbbbbbbbbb"; do
  [ -e "$D/$f" ] || fail "stale: $f was removed"
done
exit 0
