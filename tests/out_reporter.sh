#!/bin/sh
# The profiled process records, the tprof program reports (preload/handoff.c, report/record.c):
# - a -g C++ program's report names its call sites (function, file:line), yet the program's own
#   process opens neither libdw nor libelf: the reporter, a child started beside the library, does;
# - the reporter runs in a session of its own (no ^C from the program's terminal);
# - libtprof.so carries no renderer, analysis, symboliser or peak measurement, and needs libc only;
# - the program never sees that child: no SIGCHLD, nothing for its waitpid(-1) to reap; one
#   reporter serves all of a process's reports (here one on a signal, then the one at exit);
# - without a reporter, or with one that fails, the record is kept (where TPROF_JSON points, else
#   tprof-record.PID.json) with one line, and `tprof report` of it is the report;
# - the reporter gets the program's environment less LD_PRELOAD (here, tprof and another library).
. "$TS/lib.sh"
strace -f -qq -e trace=openat -o "$WORK/probe" true 2> /dev/null || { echo "SKIP: no strace"; exit 77; }
V="$TB/victims/v_cxx"
[ -x "$V" ] || { echo "SKIP: no C++ victim"; exit 77; }

# 1. Named sites; libdw and libelf opened by the reporter only.
TPROF_OUTPUT=none TPROF_JSON="$WORK/a.json" strace -f -qq -e trace=openat,execve,setsid -o "$WORK/st" \
  env LD_PRELOAD="$TPROF_SO" "$V" > "$WORK/out" 2> "$WORK/err" || fail "run failed: $(cat "$WORK/err")"
[ "$(cat "$WORK/out")" = ok ] || fail "the program's output changed: $(cat "$WORK/out")"
[ ! -s "$WORK/err" ] || fail "stderr: $(cat "$WORK/err")"
prog=$(awk '/execve\(.*v_cxx/ { print $1; exit }' "$WORK/st")
rep=$(awk '/execve\(.*"report", "--from-library"/ { print $1; exit }' "$WORK/st")
[ -n "$prog" ] || fail "no exec of the program in: $(head -5 "$WORK/st")"
[ -n "$rep" ] && [ "$rep" != "$prog" ] || fail "no reporter started: $(grep execve "$WORK/st")"
if awk -v p="$prog" '$1 == p' "$WORK/st" | grep -E 'lib(dw|elf)[.-]' | grep -v ENOENT; then
  fail "the profiled process opened libdw or libelf"
fi
awk -v p="$rep" '$1 == p' "$WORK/st" | grep -q 'libdw[.-]' || fail "the reporter did not open libdw"
# a session of its own: the terminal's ^C to the program's group never reaches it
awk -v p="$rep" '$1 == p' "$WORK/st" | grep -q "setsid() *= *$rep" || fail "the reporter kept the program's session"
jcheck "$WORK/a.json" "'record' not in d" \
  "any(f['function'] == 'make_block()' and (f['file'] or '').endswith('v_cxx.cc') and f['line'] == 7 for s in m['sites'] for f in s['frames'])" \
  "any(s['frames'][0]['function'] == 'main' and s['frames'][0]['line'] == 11 for s in m['sites'])" \
  "m['peak_bytes'] > 8000" "all(not (f['function'] or '').startswith('operator new') for s in m['sites'] for f in s['frames'][:1])"

# 2. What libtprof.so is made of.
syms=$(nm "$TPROF_SO" | awk '{ print $NF }')
for f in tp_render_text tp_render_html tp_render_folded tp_analyze tp_sym_frames tp_peaks_resolve \
  tp_record_report dwfl_begin; do
  printf '%s\n' "$syms" | grep -qx "$f" && fail "libtprof.so has $f"
done
printf '%s\n' "$syms" | grep -qx tp_render_json || fail "libtprof.so has no JSON writer (the record's)"
needed=$(readelf -d "$TPROF_SO" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
[ "$needed" = "libc.so.6 " ] || fail "libtprof.so needs: $needed"

# 3. The child is never the program's.
Q="$TB/victims/v_child_quiet"
got=$(TPROF_OUTPUT=none TPROF_SIGNAL=USR1 TPROF_JSON="$WORK/q.json" strace -f -qq -e trace=execve \
  -o "$WORK/qst" env LD_PRELOAD="$TPROF_SO" "$Q" "$WORK/q.sig1.json") || fail "v_child_quiet failed"
# one reporter for both reports (the one on the signal, the one at exit)
[ "$(grep -c '"report", "--from-library"' "$WORK/qst")" = 1 ] ||
  fail "reporters for two reports of one process: $(grep -c from-library "$WORK/qst")"
jcheck "$WORK/q.json" "'record' not in d" "any(s['frames'][0]['function'] == 'main' for s in m['sites'])"
[ "$got" = "sigchld 0 wait ECHILD" ] || fail "the program saw the reporter: $got"
jcheck "$WORK/q.sig1.json" "'record' not in d" "any(s['frames'][0]['function'] == 'main' for s in m['sites'])"

# 4. No reporter beside a copy of the library: the record is kept, with one line.
mkdir -p "$WORK/alone/lib" "$WORK/cwd"
cp "$TPROF_SO" "$WORK/alone/lib/libtprof.so"
(cd "$WORK/cwd" && LD_PRELOAD="$WORK/alone/lib/libtprof.so" "$V" > "$WORK/out" 2> "$WORK/err") ||
  fail "the program failed without a reporter"
[ "$(cat "$WORK/out")" = ok ] || fail "output changed without a reporter"
rec=$(cd "$WORK/cwd" && ls tprof-record.*.json)
pid=${rec#tprof-record.}
pid=${pid%.json}
want="tprof: no report: the tprof program is not beside libtprof.so (looked for $WORK/alone/lib/../bin/tprof, $WORK/alone/lib/../tprof); the record is in $WORK/cwd/$rec: \`tprof report $WORK/cwd/$rec\` reports it"
[ "$(cat "$WORK/err")" = "$want" ] || fail "line: $(cat "$WORK/err") (want: $want)"
jcheck "$WORK/cwd/$rec" "d['record']['version'] == 1" "d['record']['last']" \
  "d['program']['pid'] == $pid" \
  "all(isinstance(s, str) and len(s.split('|')[0].split(' ')) == 7 and s.split('|')[1] for s in m['sites'])" \
  "all(c.isdigit() for s in m['sites'] for c in s.split('|')[0].split(' '))" \
  "any(p.endswith('/v_cxx') for p in d['record']['frame_modules'])" \
  "all(0 <= int(f.split(':')[0]) < len(d['record']['frame_modules']) for s in m['sites'] for f in s.split('|')[1].split())"
"$TPROF_CLI" report "$WORK/cwd/$rec" --format json > "$WORK/later.json" || fail "tprof report of the record failed"
jcheck "$WORK/later.json" "'record' not in d" "m['peak_bytes'] == $(python3 -c "import json; print(json.load(open('$WORK/a.json'))['memory']['peak_bytes'])")" \
  "any(f['function'] == 'make_block()' and f['line'] == 7 for s in m['sites'] for f in s['frames'])"
"$TPROF_CLI" report "$WORK/cwd/$rec" | grep -q 'make_block() (v_cxx.cc:7)' || fail "the text report of the record names no site"
# merge and diff take a record as the report it makes
"$TPROF_CLI" merge "$WORK/cwd/$rec" "$WORK/a.json" -o "$WORK/m.json" || fail "tprof merge of a record failed"
jcheck "$WORK/m.json" "d['merged_processes'] == 2" "'record' not in d" \
  "all(f['function'] for s in m['sites'] for f in s['frames'][:1] if f['module'] and f['module'].endswith('/v_cxx'))" \
  "m['peak_bytes'] == $(python3 -c "import json; print(json.load(open('$WORK/a.json'))['memory']['peak_bytes'])")"
"$TPROF_CLI" diff "$WORK/cwd/$rec" "$WORK/a.json" --format json > "$WORK/d.json" || fail "tprof diff of a record failed"
grep -q 'make_block' "$WORK/d.json" || fail "the diff of a record names no site: $(head -c 300 "$WORK/d.json")"
# With TPROF_JSON, the record goes where the report would have.
(cd "$WORK/cwd" && TPROF_OUTPUT=none TPROF_JSON="$WORK/j.json" LD_PRELOAD="$WORK/alone/lib/libtprof.so" "$V" > /dev/null 2>&1) ||
  fail "the program failed"
jcheck "$WORK/j.json" "d['record']['version'] == 1"

# 5. A reporter that fails, or answers what is not its format; the environment it gets.
mkdir -p "$WORK/fake/lib" "$WORK/fake/bin"
cp "$TPROF_SO" "$WORK/fake/lib/libtprof.so"
F="$WORK/fake/lib/libtprof.so"
printf '#!/bin/sh\ncat > /dev/null\nexit 3\n' > "$WORK/fake/bin/tprof"
chmod +x "$WORK/fake/bin/tprof"
TPROF_JSON="$WORK/f.json" LD_PRELOAD="$F" "$V" > /dev/null 2> "$WORK/err" || fail "the program failed with a failing reporter"
grep -q "^tprof: no report: $WORK/fake/bin/tprof failed (exit status 3); the record is in $WORK/f.json" "$WORK/err" ||
  fail "failing reporter: $(cat "$WORK/err")"
jcheck "$WORK/f.json" "d['record']['version'] == 1"
printf '#!/bin/sh\ncat > /dev/null\necho "json 99999"\n' > "$WORK/fake/bin/tprof"
TPROF_JSON="$WORK/g.json" LD_PRELOAD="$F" "$V" > /dev/null 2> "$WORK/err" || fail "the program failed with a garbling reporter"
grep -q "^tprof: no report: the reporter's answer is not in its format; the record is in $WORK/g.json" "$WORK/err" ||
  fail "garbling reporter: $(cat "$WORK/err")"
printf '#!/bin/sh\ncat > /dev/null\nkill -9 $$\n' > "$WORK/fake/bin/tprof"
TPROF_JSON="$WORK/k.json" LD_PRELOAD="$F" "$V" > /dev/null 2> "$WORK/err" || fail "the program failed with a killed reporter"
grep -q "^tprof: no report: $WORK/fake/bin/tprof ended on signal 9; the record is in $WORK/k.json" "$WORK/err" ||
  fail "killed reporter: $(cat "$WORK/err")"
printf 'not a program\n' > "$WORK/fake/bin/tprof" # executable, but no format the kernel runs
TPROF_JSON="$WORK/x.json" LD_PRELOAD="$F" "$V" > /dev/null 2> "$WORK/err" || fail "the program failed with a reporter that cannot run"
grep -q "^tprof: no report: $WORK/fake/bin/tprof could not be started; the record is in $WORK/x.json" "$WORK/err" ||
  fail "reporter that cannot run: $(cat "$WORK/err")"
{ printf 'json,bogus 10 %s\n' "$(wc -c < "$WORK/x.json")"; cat "$WORK/x.json"; } |
  "$TPROF_CLI" report --from-library - > "$WORK/ans" 2> "$WORK/err" && fail "an unknown output was taken"
[ "$(cat "$WORK/err")" = "tprof report: --from-library: unknown output 'bogus'" ] || fail "unknown output: $(cat "$WORK/err")"
head -n 1 "$WORK/ans" | grep -q '^json [0-9][0-9]*$' || fail "the outputs before the unknown one: $(head -c 80 "$WORK/ans")"
printf '#!/bin/sh\ncat > /dev/null\necho "$LD_PRELOAD" > "%s"\nprintf "json 2\\n{}end 0\\n"\n' "$WORK/env" > "$WORK/fake/bin/tprof"
O="$TB/victims/libtpcalib.so"
TPROF_OUTPUT=none TPROF_JSON="$WORK/h.json" LD_PRELOAD="$O $F" "$V" > /dev/null 2> "$WORK/err" || fail "run failed"
[ -z "$(cat "$WORK/env")" ] || fail "the reporter's LD_PRELOAD: '$(cat "$WORK/env")' (want none)"
[ "$(cat "$WORK/h.json")" = "{}" ] || fail "the reporter's JSON was not written as it came: $(cat "$WORK/h.json")"
exit 0
