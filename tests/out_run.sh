#!/bin/sh
# The processes of one run are reported once (common/out/rundir.c, track/out/output.c): a process
# other than the root whose one output is its JSON file leaves its record there, and the root's
# reporter reports it at the root's exit with the others. Seen from outside, deterministically:
# - one process makes no run's directory;
# - a shell and two children, a JSON per process: one reporter (the root's) for the three; each
#   child's JSON is a report of its own process, its sites named; the run's directory is gone;
# - a child that asks for more than its JSON (an HTML page) has its report made as before;
# - a child that ends after the root (a background job) finds the run closed and has a reporter
#   of its own;
# - the root killed: the children's JSON files hold records, which `tprof report` reports;
# - no reporter: the root's line, then one line for the records the children left;
# - a record the reporter cannot read or whose report it cannot write stays as it is, with a line;
#   a reporter that fails on the run's records: one line.
. "$TS/lib.sh"
V="$TB/victims/v_leaks"
strace -f -qq -e trace=openat -o "$WORK/probe" true 2> /dev/null || { echo "SKIP: no strace"; exit 77; }
reporters() { grep -c 'execve(.*"report", "--from-library"' "$1"; }
export TMPDIR="$WORK/tmp" # the run's directory goes there
mkdir -p "$TMPDIR"
leftover() { ls "$TMPDIR"; }

# 0. One process makes no run's directory (the root makes it as it starts its first child).
TPROF_OUTPUT=none TPROF_JSON="$WORK/z.json" strace -f -qq -e trace=mkdir -o "$WORK/st0" \
  env LD_PRELOAD="$TPROF_SO" "$V" > /dev/null 2> "$WORK/err" || fail "victim failed: $(cat "$WORK/err")"
grep -q 'tprof-run' "$WORK/st0" && fail "a run's directory for one process: $(cat "$WORK/st0")"
jcheck "$WORK/z.json" "'record' not in d"

# 1. Three processes, one reporter.
TPROF_OUTPUT=none TPROF_JSON="$WORK/a.%p.json" strace -f -qq -e trace=execve -o "$WORK/st" \
  env LD_PRELOAD="$TPROF_SO" sh -c "\"$V\" > /dev/null; \"$V\" > /dev/null; true" 2> "$WORK/err" ||
  fail "shell failed: $(cat "$WORK/err")"
[ ! -s "$WORK/err" ] || fail "stderr: $(cat "$WORK/err")"
[ "$(reporters "$WORK/st")" = 1 ] || fail "reporters for a run of three: $(reporters "$WORK/st")"
[ "$(ls "$WORK"/a.*.json | wc -l)" = 3 ] || fail "JSON reports: $(ls "$WORK")"
kids=$(awk -v v="execve(\"$V\"" 'index($0, v) { print $1 }' "$WORK/st" | sort -u)
[ "$(echo "$kids" | wc -l)" = 2 ] || fail "children seen: $kids"
for k in $kids; do
  jcheck "$WORK/a.$k.json" "'record' not in d" "d['program']['pid'] == $k" \
    "m['live_at_exit_bytes'] >= 3145728" \
    "any(s['frames'][0]['function'] == 'leak_me' and s['live_at_exit_bytes'] == 3145728 for s in m['sites'])"
done
[ -z "$(leftover)" ] || fail "the run's directory is left: $(leftover)"

# 2. A child that asks for an HTML page too: a reporter of its own.
TPROF_OUTPUT=none TPROF_JSON="$WORK/b.%p.json" TPROF_HTML="$WORK/b.%p.html" strace -f -qq -e trace=execve \
  -o "$WORK/st2" env LD_PRELOAD="$TPROF_SO" sh -c "\"$V\" > /dev/null; true" 2> "$WORK/err" ||
  fail "shell failed: $(cat "$WORK/err")"
[ "$(reporters "$WORK/st2")" = 2 ] || fail "reporters with an HTML page each: $(reporters "$WORK/st2")"
[ "$(ls "$WORK"/b.*.html | wc -l)" = 2 ] || fail "HTML pages: $(ls "$WORK")"
[ -z "$(leftover)" ] || fail "the run's directory is left: $(leftover)"

# 3. A background job that ends after the root: the run is closed, it reports for itself.
TPROF_OUTPUT=none TPROF_JSON="$WORK/c.%p.json" env LD_PRELOAD="$TPROF_SO" \
  sh -c "(while [ ! -e \"$WORK/go\" ]; do sleep 0.05; done; exec \"$V\" > /dev/null) & echo \$! > \"$WORK/bg\"" ||
  fail "shell failed"
touch "$WORK/go"
bg=$(cat "$WORK/bg")
i=0
while kill -0 "$bg" 2> /dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
[ -f "$WORK/c.$bg.json" ] || fail "no report from the background job: $(ls "$WORK")"
jcheck "$WORK/c.$bg.json" "'record' not in d" \
  "any(s['frames'][0]['function'] == 'leak_me' for s in m['sites'])"
[ -z "$(leftover)" ] || fail "the run's directory is left: $(leftover)"

# 4. The root killed: its child's JSON holds a record, which tprof report reports.
TPROF_OUTPUT=none TPROF_JSON="$WORK/d.%p.json" env LD_PRELOAD="$TPROF_SO" \
  sh -c "\"$V\" > /dev/null; kill -KILL \$\$" 2> /dev/null && fail "the root was not killed"
f=$(ls "$WORK"/d.*.json)
[ "$(echo "$f" | wc -l)" = 1 ] || fail "JSON files: $f"
jcheck "$f" "'record' in d and d['record']['last']"
"$TPROF_CLI" report --format json "$f" > "$WORK/d.report.json" || fail "tprof report of the record failed"
jcheck "$WORK/d.report.json" "'record' not in d" \
  "any(s['frames'][0]['function'] == 'leak_me' and s['live_at_exit_bytes'] == 3145728 for s in m['sites'])"
rm -rf "$TMPDIR"/tprof-run.* # the killed root could not remove it

# 5. No reporter beside a copy of the library: the root's line, then the child's.
mkdir -p "$WORK/alone/lib"
cp "$TPROF_SO" "$WORK/alone/lib/libtprof.so"
TPROF_OUTPUT=none TPROF_JSON="$WORK/e.%p.json" env LD_PRELOAD="$WORK/alone/lib/libtprof.so" \
  sh -c "\"$V\" > /dev/null; true" 2> "$WORK/err5" || fail "shell failed: $(cat "$WORK/err5")"
child=$(ls "$WORK"/e.*.json | grep -v "e\.$(sed -n 's/.*the record is in .*e\.\([0-9]*\)\.json:.*/\1/p' "$WORK/err5" | head -n 1)\.json")
[ "$(echo "$child" | wc -l)" = 1 ] && [ -f "$child" ] || fail "the child's JSON: $child ($(cat "$WORK/err5"))"
[ "$(wc -l < "$WORK/err5")" = 2 ] || fail "lines: $(cat "$WORK/err5")"
sed -n 2p "$WORK/err5" | grep -qxF "tprof: another process of this run left its record in $child: \`tprof report $child\` reports it" ||
  fail "the line for the child's record: $(cat "$WORK/err5")"
jcheck "$child" "'record' in d"
[ -z "$(leftover)" ] || fail "the run's directory is left: $(leftover)"

# 6. What the root's reporter cannot report stays as it is, with a line: a record replaced by
# garbage, and a report larger than the file size limit the root set for itself and its reporter.
TPROF_OUTPUT=none TPROF_JSON="$WORK/g.%p.json" env LD_PRELOAD="$TPROF_SO" \
  sh -c "echo \$\$ > \"$WORK/root\"; \"$V\" > /dev/null & wait \$!; echo garbage > \"$WORK/g.\$!.json\"; echo \$! > \"$WORK/k1\"; \"$V\" > /dev/null & wait \$!; echo \$! > \"$WORK/k2\"; ulimit -f 1; true" \
  2> "$WORK/err6" || fail "shell failed: $(cat "$WORK/err6")"
root=$(cat "$WORK/root") k1=$(cat "$WORK/k1") k2=$(cat "$WORK/k2")
cat > "$WORK/want6" << EOF
tprof: TPROF_JSON: cannot write $WORK/g.$root.json: larger than the file size limit (ulimit -f); report not written
tprof: $WORK/g.$k1.json: not JSON (line 1, column 1: unexpected character); left as it is
tprof: cannot write $WORK/g.$k2.json: larger than the file size limit (ulimit -f); the record stays there
EOF
diff "$WORK/want6" "$WORK/err6" || fail "lines for records not reported"
[ "$(cat "$WORK/g.$k1.json")" = garbage ] || fail "the garbage was changed"
jcheck "$WORK/g.$k2.json" "'record' in d"
[ -z "$(leftover)" ] || fail "the run's directory is left: $(leftover)"

# 7. No reporter, two children: one line for both records.
rm -f "$WORK"/e.*.json
TPROF_OUTPUT=none TPROF_JSON="$WORK/e.%p.json" env LD_PRELOAD="$WORK/alone/lib/libtprof.so" \
  sh -c "echo \$\$ > \"$WORK/root\"; \"$V\" > /dev/null; \"$V\" > /dev/null; true" 2> "$WORK/err7" ||
  fail "shell failed: $(cat "$WORK/err7")"
root=$(cat "$WORK/root")
[ "$(ls "$WORK"/e.*.json | wc -l)" = 3 ] || fail "JSON files: $(ls "$WORK")"
[ "$(wc -l < "$WORK/err7")" = 2 ] || fail "lines: $(cat "$WORK/err7")"
line=$(sed -n 2p "$WORK/err7")
case "$line" in
  "tprof: 2 other processes of this run left their records in their JSON files ($WORK/e."*".json, ...): \`tprof report\` reports each") ;;
  *) fail "the line for the children's records: $line" ;;
esac
named=${line#*JSON files (}
named=${named%%, ...)*}
[ "$named" != "$WORK/e.$root.json" ] && [ -f "$named" ] || fail "the line names $named"
jcheck "$named" "'record' in d"

# 8. A reporter that reports the root but fails on the run's records: a line, the records stay.
mkdir -p "$WORK/half/lib" "$WORK/half/bin"
cp "$TPROF_SO" "$WORK/half/lib/libtprof.so"
printf '#!/bin/sh\nread kinds top len\nhead -c "$len" > /dev/null\nprintf "json 2\\n{}end 0\\n"\nread kinds top len\nexit 3\n' > "$WORK/half/bin/tprof"
chmod +x "$WORK/half/bin/tprof"
TPROF_OUTPUT=none TPROF_JSON="$WORK/h.%p.json" env LD_PRELOAD="$WORK/half/lib/libtprof.so" \
  sh -c "\"$V\" > /dev/null & wait \$!; echo \$! > \"$WORK/k1\"" 2> "$WORK/err8" || fail "shell failed: $(cat "$WORK/err8")"
k1=$(cat "$WORK/k1")
[ "$(cat "$WORK/err8")" = "tprof: the reports of this run's other processes may not all be made: $WORK/half/bin/tprof failed (exit status 3); a JSON file of theirs that holds a record ($WORK/h.$k1.json, ...) is reported by \`tprof report\`" ] ||
  fail "the line for a failed run: $(cat "$WORK/err8")"
jcheck "$WORK/h.$k1.json" "'record' in d"
[ -z "$(leftover)" ] || fail "the run's directory is left: $(leftover)"
echo "PASS out_run"
