#!/bin/sh
# tprof run on a program that the dynamic loader will not preload libtprof.so into: one line
# before it runs, naming the program as execvp finds it (through PATH), and the program runs all
# the same (its output, its exit status), without a report. A statically linked program (built
# here with cc -static; skipped without libc.a) has no dynamic loader. A program set-uid to
# another user (a copy of a victim owned by nobody, made when the test runs as root; skipped
# otherwise, or on a nosuid file system) starts in secure-execution mode, where the loader
# ignores LD_PRELOAD paths. A set-uid program of the caller's own starts with no change of user:
# profiled, no line, a report. A script (#!) runs its interpreter: no line.
. "$TS/lib.sh"
T="$TPROF_CLI"
V="$TB/victims/v_exitcode"
run() { # run NAME ARGS...: tprof run with a JSON report to $WORK/NAME.json; status in $rc
  name=$1
  shift
  "$T" run --output none --json "$WORK/$name.json" -- "$@" > "$WORK/out" 2> "$WORK/err"
  rc=$?
}
# A dynamically linked program: nothing said, a report.
run dyn "$V" a 3
[ "$rc" = 3 ] && [ "$(cat "$WORK/out")" = "ran a" ] || fail "dynamic: status $rc, $(cat "$WORK/out")"
[ ! -s "$WORK/err" ] || fail "dynamic: stderr: $(cat "$WORK/err")"
[ -f "$WORK/dyn.json" ] || fail "dynamic: no report"
# A script: nothing said.
printf '#!/bin/sh\necho script\n' > "$WORK/scr"
chmod +x "$WORK/scr"
run scr "$WORK/scr"
[ "$rc" = 0 ] && [ "$(cat "$WORK/out")" = script ] && [ ! -s "$WORK/err" ] ||
  fail "script: status $rc, $(cat "$WORK/out"), $(cat "$WORK/err")"

mkdir "$WORK/bin"
if ${CC:-cc} -static -o "$WORK/bin/v_static" "$TS/victims/v_exitcode.c" 2> /dev/null; then
  PATH="$WORK/bin:$PATH" run st v_static b 5
  [ "$rc" = 5 ] && [ "$(cat "$WORK/out")" = "ran b" ] || fail "static: status $rc, $(cat "$WORK/out")"
  [ "$(cat "$WORK/err")" = "tprof run: $WORK/bin/v_static is statically linked: no report (it has no dynamic loader to preload libtprof.so)" ] ||
    fail "static: stderr: $(cat "$WORK/err")"
  [ ! -e "$WORK/st.json" ] || fail "static: a report"
else
  echo "static: no static libc: not checked"
fi

nosuid=$(python3 -c 'import os, sys; print(os.statvfs(sys.argv[1]).f_flag & os.ST_NOSUID and 1 or 0)' "$WORK")
if [ "$(id -u)" = 0 ] && [ "$nosuid" = 0 ] && id nobody > /dev/null 2>&1; then
  cp "$V" "$WORK/bin/v_suid"
  chown nobody "$WORK/bin/v_suid" && chmod 4755 "$WORK/bin/v_suid" || fail "cannot make a set-uid copy"
  run suid "$WORK/bin/v_suid" c 7
  [ "$rc" = 7 ] && [ "$(cat "$WORK/out")" = "ran c" ] || fail "set-uid: status $rc, $(cat "$WORK/out")"
  [ "$(cat "$WORK/err")" = "tprof run: $WORK/bin/v_suid is set-uid (uid $(id -u nobody)): no report (the dynamic loader ignores LD_PRELOAD paths for it)" ] ||
    fail "set-uid: stderr: $(cat "$WORK/err")"
  [ ! -e "$WORK/suid.json" ] || fail "set-uid: a report"
  # set-gid to another group (nobody's): the same, for the group
  gid=$(id -g nobody)
  [ "$gid" != 0 ] || fail "nobody's group is root's"
  chown "root:$gid" "$WORK/bin/v_suid" && chmod 2755 "$WORK/bin/v_suid" || fail "cannot make a set-gid copy"
  run sgid "$WORK/bin/v_suid" d 0
  [ "$rc" = 0 ] && [ "$(cat "$WORK/out")" = "ran d" ] || fail "set-gid: status $rc, $(cat "$WORK/out")"
  [ "$(cat "$WORK/err")" = "tprof run: $WORK/bin/v_suid is set-gid (gid $gid): no report (the dynamic loader ignores LD_PRELOAD paths for it)" ] ||
    fail "set-gid: stderr: $(cat "$WORK/err")"
  [ ! -e "$WORK/sgid.json" ] || fail "set-gid: a report"
  # set-uid root, run by root: no change of user, so profiled like any program
  chown root:root "$WORK/bin/v_suid" && chmod 4755 "$WORK/bin/v_suid"
  run own "$WORK/bin/v_suid" e 0
  [ "$rc" = 0 ] && [ ! -s "$WORK/err" ] && [ -f "$WORK/own.json" ] ||
    fail "set-uid of the caller's own: status $rc, stderr $(cat "$WORK/err"), report? $(ls "$WORK")"
else
  echo "set-uid: not root, or a nosuid file system: not checked"
fi
exit 0
