#!/bin/sh
# Report files are never an attack path. Run as root (a profile of a root job), with a second user
# who may write only a sticky world-writable directory, as /tmp is:
# - a symbolic link that user planted (to a root-only file, dangling into a root-only directory,
#   or as a directory part of the path) is not followed, before the run or during it, by every
#   output and by `tprof run --json`, whatever fs.protected_symlinks says; one line each;
# - links the kernel would follow (root's own, or in a directory that is not sticky) still work;
# - a FIFO that user put at the report's name is not written, and the program does not wait;
# - FIFOs and files at the temporary names an attacker could guess neither hang the program nor
#   receive the report, and the report's mode comes from the umask.
# Skipped (with the reason) when not root or when no user can be added.
. "$TS/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skip: not root: no second user can plant links"; exit 77; }
command -v useradd > /dev/null && command -v runuser > /dev/null ||
  { echo "skip: useradd or runuser missing"; exit 77; }
U=tprof_t$$
useradd -M -N -s /bin/sh "$U" 2> /dev/null || { echo "skip: useradd $U failed"; exit 77; }
PS=/proc/sys/fs/protected_symlinks
ps_was=$(cat $PS 2> /dev/null)
trap 'userdel "$U" 2> /dev/null; [ -n "$ps_was" ] && echo "$ps_was" > $PS 2> /dev/null; rm -rf "$WORK"' EXIT
chmod 755 "$WORK"
as_u() { runuser -u "$U" -- "$@"; }
V="$TB/victims/v_sites"
native=$("$V") || fail "victim failed without tprof"
T="$WORK/tmp"         # the shared directory
mkdir -m 1777 "$T"
mkdir -m 700 "$WORK/v" # root's own
echo secret > "$WORK/v/cfg"
chmod 600 "$WORK/v/cfg"
untouched() {
  [ "$(cat "$WORK/v/cfg")" = secret ] || fail "$1: the root-only file was written"
  [ "$(stat -c %a "$WORK/v/cfg")" = 600 ] || fail "$1: the root-only file's mode changed"
  [ "$(ls "$WORK/v")" = cfg ] || fail "$1: a file was created in the root-only directory: $(ls "$WORK/v")"
}
# run NAME VAR=value...: the victim under tprof; stdout and status as natively.
run() {
  name=$1; shift
  out=$(timeout 60 env TPROF_OUTPUT=none "$@" LD_PRELOAD="$TPROF_SO" "$V" 2> "$WORK/err"); rc=$?
  [ $rc -eq 0 ] || fail "$name: exit status $rc ($(cat "$WORK/err"))"
  [ "$out" = "$native" ] || fail "$name: stdout changed: $out"
}
REFUSED="a symbolic link on the way is another user's, in a sticky world-writable directory: not followed"
one_line() { # one_line NAME EXPECTED: stderr is that one line
  [ "$(cat "$WORK/err")" = "$2" ] || fail "$1: stderr: $(cat "$WORK/err")"
}

for setting in 0 1; do
  if [ -w $PS ] && echo $setting > $PS 2> /dev/null; then
    echo "fs.protected_symlinks=$setting"
  elif [ "$setting" = 1 ]; then
    echo "note: fs.protected_symlinks cannot be set here: the cases ran with $(cat $PS) only"
    break
  fi
  rm -f "$T"/*
  as_u ln -s "$WORK/v/cfg" "$T/r.json"
  as_u ln -s "$WORK/v/new" "$T/dangling.json"
  as_u ln -s "$WORK/v" "$T/dir"
  # Each output, planted before the run: refused at start-up, the run goes on.
  for var in "TPROF_JSON:none (no JSON report)" "TPROF_TRACE:none (no trace)" \
             "TPROF_FOLDED:none (no folded stacks)" "TPROF_HTML:none (no HTML report)"; do
    def=${var#*:} var=${var%%:*}
    run "$var" $var="$T/r.json"
    one_line "$var" "tprof: $var=$T/r.json: $REFUSED; using $def"
    untouched "$var"
  done
  run TPROF_OUTPUT TPROF_OUTPUT="$T/r.json"
  head -1 "$WORK/err" | grep -qxF "tprof: TPROF_OUTPUT=$T/r.json: $REFUSED; using stderr" ||
    fail "TPROF_OUTPUT: $(head -1 "$WORK/err")"
  grep -q '^VERDICT' "$WORK/err" || fail "TPROF_OUTPUT: the text report did not go to stderr instead"
  untouched TPROF_OUTPUT
  run dangling TPROF_JSON="$T/dangling.json"
  one_line dangling "tprof: TPROF_JSON=$T/dangling.json: $REFUSED; using none (no JSON report)"
  untouched dangling
  run "directory part" TPROF_JSON="$T/dir/cfg"
  one_line "directory part" "tprof: TPROF_JSON=$T/dir/cfg: $REFUSED; using none (no JSON report)"
  untouched "directory part"
  # tprof run --json checks its flags before it starts anything: a usage error, one line
  out=$(timeout 60 "$TPROF_CLI" run --lib "$TPROF_SO" --output none --json "$T/r.json" -- "$V" 2> "$WORK/err")
  rc=$?
  [ $rc = 2 ] && [ -z "$out" ] || fail "tprof run --json: status $rc, stdout $out"
  one_line "tprof run --json" "tprof run: invalid value for --json: $REFUSED"
  untouched "tprof run --json"
done

# Planted while the program runs (after the start-up check): refused when the report is written.
rm -f "$T"/*
mkfifo "$WORK/in"
env TPROF_OUTPUT=none TPROF_JSON="$T/late.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_wait" \
  < "$WORK/in" > "$WORK/out" 2> "$WORK/err" &
pid=$!
exec 6> "$WORK/in"
i=0
until grep -q ready "$WORK/out" 2> /dev/null; do
  i=$((i + 1)); [ $i -lt 3000 ] || fail "v_wait never said ready"; sleep 0.01
done
as_u ln -s "$WORK/v/cfg" "$T/late.json"
exec 6>&-
wait $pid || fail "late link: v_wait's status $?"
one_line "late link" "tprof: TPROF_JSON: cannot write $T/late.json: $REFUSED; report not written"
untouched "late link"

# Links the kernel follows are followed: root's own link in the shared directory, and the other
# user's link in a directory that is not sticky (theirs).
rm -f "$T"/*
ln -s "$WORK/mine.json" "$T/own.json"
run "own link" TPROF_JSON="$T/own.json"
[ ! -s "$WORK/err" ] || fail "own link: $(cat "$WORK/err")"
jcheck "$WORK/mine.json" "m['peak_bytes'] == 14000"
mkdir -m 755 "$WORK/u" && chown "$U" "$WORK/u"
as_u ln -s "$WORK/theirs.json" "$WORK/u/l.json"
run "link in a plain directory" TPROF_JSON="$WORK/u/l.json"
[ ! -s "$WORK/err" ] || fail "link in a plain directory: $(cat "$WORK/err")"
jcheck "$WORK/theirs.json" "m['peak_bytes'] == 14000"
[ "$(stat -c %U "$WORK/theirs.json")" = root ] || fail "the report is not root's"

# Another user's FIFO at the report's name: not written, no wait.
as_u mkfifo "$T/fifo.json"
run "planted FIFO" TPROF_JSON="$T/fifo.json"
one_line "planted FIFO" "tprof: TPROF_JSON=$T/fifo.json: a FIFO of another user's, in a sticky world-writable directory: not written; using none (no JSON report)"

# Bait at every temporary name that can be guessed: "<name>.tmp<pid>" (and with a suffix of
# zeros) as FIFOs, and as empty files writable by all, planted for the very pid that writes the
# report (the shell that execs the program). Neither hangs the program nor gets a byte, and the
# report, the other user's no more, has the umask's mode.
rm -f "$T"/*
out=$(timeout 60 sh -c '
  runuser -u "$1" -- mkfifo "$2.tmp$$" "$2.tmp$$.000000000000"
  runuser -u "$1" -- sh -c "umask 0; : > \"$2.tmp$$.x\"; : > \"$2.tmp\""
  umask 022
  exec env TPROF_OUTPUT=none TPROF_JSON="$2" LD_PRELOAD="$3" "$4"' sh "$U" "$T/bait.json" "$TPROF_SO" "$V" 2> "$WORK/err")
rc=$?
[ $rc -eq 0 ] || fail "bait: status $rc (124: the program hung on a FIFO)"
[ "$out" = "$native" ] || fail "bait: stdout changed"
[ ! -s "$WORK/err" ] || fail "bait: $(cat "$WORK/err")"
jcheck "$T/bait.json" "m['peak_bytes'] == 14000"
[ "$(stat -c '%U %a' "$T/bait.json")" = "root 644" ] || fail "bait: the report is $(stat -c '%U %a' "$T/bait.json")"
for f in "$T"/bait.json.tmp*; do
  [ "$(stat -c %U "$f")" = "$U" ] || fail "bait: $f is not the other user's"
  [ -p "$f" ] || [ ! -s "$f" ] || fail "bait: $f received bytes"
done
[ "$(ls "$T" | grep -c '^bait.json.tmp')" = 4 ] || fail "bait: $(ls "$T")"
exit 0
