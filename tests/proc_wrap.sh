#!/bin/sh
# Wrapped programs (tests/victims/v_wrap.c): the report's plain name belongs to the last image
# of a process, the one that did the work. Through env, sh -c 'exec ...' and a chain of both,
# run.json is the wrapped program's, with its exact figures, and the wrappers, which did nothing
# of their own, write no file. An image that works and then execs reports under ".<image>"
# with its own figures; a failed exec leaves the plain name to the program, which goes on.
. "$TS/lib.sh"
V=$TB/victims/v_wrap
files() { (cd "$1" && LC_ALL=C ls | tr '\n' ' '); }
# run DIR CMD...: the command under tprof, a JSON report in DIR/r.json, nothing on stderr
run() {
  d=$WORK/$1; shift
  mkdir "$d"
  out=$(TPROF_OUTPUT=none TPROF_JSON="$d/r.json" LD_PRELOAD="$TPROF_SO" "$@" 2> "$WORK/err") ||
    fail "$*: failed under tprof: $(cat "$WORK/err")"
  [ -s "$WORK/err" ] && fail "$*: tprof said: $(cat "$WORK/err")"
  :
}
wrapped() {
  jcheck "$1" "d['program']['exe'] == '$V'" "site('wrapped_work')['bytes'] == 4444" \
    "site('wrapped_work')['allocs'] == 1" "ops['wrapped_op']['calls'] == 1" \
    "ops['wrapped_op']['flops'] == 1000" "site('before_exec_work')['count'] == 0"
}
for how in env sh chain; do
  case $how in
  env) run $how env X=1 "$V" ;;
  sh) run $how sh -c "exec '$V'" ;;
  chain) run $how sh -c "exec env X=1 '$V'" ;;
  esac
  [ "$out" = wrapped ] || fail "$how: stdout changed: $out"
  [ "$(files "$WORK/$how")" = "r.json " ] || fail "$how: files $(files "$WORK/$how")"
  wrapped "$WORK/$how/r.json"
done

# An image that works, then execs: its report under its name, every output alike; the program's
# under the plain names. No %p: the same names with it, the pid put in.
d=$WORK/work
mkdir "$d"
out=$(TPROF_OUTPUT="$d/r.txt" TPROF_JSON="$d/r.json" TPROF_FOLDED="$d/r.folded" \
      TPROF_TRACE="$d/r.trace.json" LD_PRELOAD="$TPROF_SO" "$V" exec "$V" 2> "$WORK/err") ||
  fail "exec: failed under tprof"
[ "$out" = wrapped ] || fail "exec: stdout changed: $out"
[ -s "$WORK/err" ] && fail "exec: tprof said: $(cat "$WORK/err")"
want="r.folded r.heap.folded r.heap.v_wrap.folded r.json r.trace.json r.trace.v_wrap.json r.txt"
want="$want r.v_wrap.folded r.v_wrap.json r.v_wrap.txt "
[ "$(files "$d")" = "$want" ] || fail "exec: files $(files "$d")"
wrapped "$d/r.json"
jcheck "$d/r.v_wrap.json" "d['program']['exe'] == '$V'" "d['program']['argv'][1:] == ['exec', '$V']" \
  "site('before_exec_work')['bytes'] == 3333" "site('before_exec_work')['allocs'] == 1" \
  "ops['before_exec_op']['calls'] == 1" "ops['before_exec_op']['flops'] == 500" \
  "site('wrapped_work')['count'] == 0" "len(d['ops']) == 1" \
  "any(n.startswith(\"this image then exec'd $V\") for n in d['notes'])"
grep -q before_exec_op "$d/r.v_wrap.folded" || fail "exec: folded stacks of the first image"
grep -q wrapped_op "$d/r.folded" || fail "exec: folded stacks of the program"
grep -q before_exec_op "$d/r.folded" && fail "exec: the first image's op in the program's"
mkdir "$WORK/pid"
TPROF_OUTPUT=none TPROF_JSON="$WORK/pid/%p.json" LD_PRELOAD="$TPROF_SO" "$V" exec "$V" > /dev/null ||
  fail "exec (%p): failed under tprof"
set -- "$WORK"/pid/*.v_wrap.json
[ -f "$1" ] || fail "exec (%p): files $(files "$WORK/pid")"
p=${1##*/}
p=${p%.v_wrap.json}
[ "$(files "$WORK/pid")" = "$p.json $p.v_wrap.json " ] || fail "exec (%p): files $(files "$WORK/pid")"
wrapped "$WORK/pid/$p.json"
jcheck "$WORK/pid/$p.json" "d['program']['pid'] == $p"

# Two working images in one process, and a wrapper between: each named apart, the wrapper not.
run twice "$V" exec /usr/bin/env X=1 "$V" exec "$V"
[ "$(files "$WORK/twice")" = "r.json r.v_wrap-2.json r.v_wrap.json " ] ||
  fail "twice: files $(files "$WORK/twice")"
wrapped "$WORK/twice/r.json"
for f in r.v_wrap.json r.v_wrap-2.json; do
  jcheck "$WORK/twice/$f" "site('before_exec_work')['bytes'] == 3333" \
    "ops['before_exec_op']['calls'] == 1" "site('wrapped_work')['count'] == 0"
done

# A failed exec: the program goes on, and its one report, under the plain name, holds all. A
# path that is not there is seen before the report (no report written); an executable file
# that is no program fails in the kernel (the report written as the image execs is removed).
printf 'not a program\n' > "$WORK/junk"
chmod +x "$WORK/junk"
for target in "$WORK/absent" "$WORK/junk"; do
  rm -rf "$WORK/fail"
  run fail "$V" failexec "$target"
  [ "$out" = "went on" ] || fail "failexec $target: stdout changed: $out"
  [ "$(files "$WORK/fail")" = "r.json " ] || fail "failexec $target: files $(files "$WORK/fail")"
  jcheck "$WORK/fail/r.json" "site('before_exec_work')['bytes'] == 3333" \
    "site('after_fail_work')['bytes'] == 2222" "ops['before_exec_op']['calls'] == 1" \
    "not any(n.startswith('this image then') for n in d['notes'])"
done

# The text report on stderr: a wrapper that did nothing says nothing; an image that worked before
# its exec prints its report under a line that names it.
err=$(TPROF_OUTPUT=stderr LD_PRELOAD="$TPROF_SO" sh -c "exec env X=1 '$V'" 2>&1 > /dev/null)
[ "$(printf '%s\n' "$err" | grep -c '^tprof [0-9][^ ]*: ')" -eq 1 ] || fail "stderr (env): $err"
printf '%s\n' "$err" | grep -q "^tprof [0-9][^ ]*: $V\$" || fail "stderr (env): not the program's: $err"
printf '%s\n' "$err" | grep -q "report of" && fail "stderr (env): a wrapper spoke: $err"
err=$(TPROF_OUTPUT=stderr LD_PRELOAD="$TPROF_SO" "$V" exec "$V" 2>&1 > /dev/null)
[ "$(printf '%s\n' "$err" | grep -c '^tprof [0-9][^ ]*: ')" -eq 2 ] || fail "stderr (exec): $err"
printf '%s\n' "$err" | grep -q "^tprof: report of v_wrap (pid [0-9]*) before it exec'd $V\$" ||
  fail "stderr (exec): no line naming the image: $err"
exit 0
