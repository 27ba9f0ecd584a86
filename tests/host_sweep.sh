#!/bin/sh
# The host programs a user preloads tprof into, each run natively and under tprof with no
# setting but the report files: stdout, stderr, exit status and the files the host writes must be
# byte-identical, and every process must leave a readable report. Hosts whose package is absent
# are skipped with a line saying so. TPROF_SWEEP=full adds the slow hosts (a make -j2 build,
# git, a python3 process pool, torch); bench/ and a developer run it so, make check runs the
# quick set.
#   sh tests/host_sweep.sh   with TPROF_SO, TB and TS set as make check sets them
. "$TS/lib.sh"
full=${TPROF_SWEEP:-quick}
R="$WORK/run"       # every host runs in this directory, natively and then under tprof
REP="$WORK/reports"
failed=0
ran=0
min_reports=1
skip() { echo "skip $1: $2"; }
# host NAME SNIPPET [EXE...]: run SNIPPET with sh -c in a fresh $R, natively then under tprof.
# At least $min_reports reports (1; 0 where a report cannot be written, as under ulimit -f).
# Compares stdout, stderr, status and the files left in $R; each report must parse, and each EXE
# (a file name, see below) must be the executable of at least one of them.
host() {
  name=$1 snippet=$2; shift 2
  rm -rf "$R" "$REP"; mkdir -p "$R" "$REP" "$WORK/home"
  (cd "$R" && HOME="$WORK/home" sh -c "$snippet" > "$WORK/n.out" 2> "$WORK/n.err"); ns=$?
  (cd "$R" && find . -type f ! -path './.git/index' -exec sha256sum {} + | sort -k2) > "$WORK/n.files"
  rm -rf "$R"; mkdir -p "$R"
  (cd "$R" && HOME="$WORK/home" LD_PRELOAD="$TPROF_SO" TPROF_OUTPUT=none TPROF_JSON="$REP/r.json" \
     sh -c "$snippet" > "$WORK/t.out" 2> "$WORK/t.err"); ts=$?
  (cd "$R" && find . -type f ! -path './.git/index' -exec sha256sum {} + | sort -k2) > "$WORK/t.files"
  ran=$((ran + 1))
  bad=
  [ "$ns" = "$ts" ] || bad="$bad status $ns natively, $ts under tprof;"
  cmp -s "$WORK/n.out" "$WORK/t.out" || bad="$bad stdout differs: $(diff "$WORK/n.out" "$WORK/t.out" | head -5);"
  cmp -s "$WORK/n.err" "$WORK/t.err" || bad="$bad stderr differs: $(diff "$WORK/n.err" "$WORK/t.err" | head -5);"
  cmp -s "$WORK/n.files" "$WORK/t.files" || bad="$bad files differ: $(diff "$WORK/n.files" "$WORK/t.files" | head -5);"
  n=$(ls "$REP" | grep -c '\.json$')
  [ "$n" -ge "$min_reports" ] || bad="$bad no report;"
  why=$(python3 - "$REP" "$@" 2>&1 <<'PY'
import json, os, sys
exes = set()
for f in sorted(os.listdir(sys.argv[1])):
    if f.endswith(".json"):
        try:
            d = json.load(open(os.path.join(sys.argv[1], f)))
            assert d["schema"] >= 1 and d["program"]["pid"] > 0
        except Exception as e:
            sys.exit(f"{f} unreadable ({e!r})")
        exes.add(os.path.basename(d["program"]["exe"]))
# Debian names the real executables after their target and version (x86_64-linux-gnu-gcc-12,
# x86_64-linux-gnu-ld.bfd): NAME matches those too.
import re
missing = [e for e in sys.argv[2:]
           if not any(re.fullmatch(r"(.*-)?" + re.escape(e) + r"(-[0-9.]+|\.bfd)?", x) for x in exes)]
if missing:
    sys.exit(f"no report of {', '.join(missing)} (reports of: {', '.join(sorted(exes))})")
PY
  ) || bad="$bad $why;"
  if [ -n "$bad" ]; then
    echo "FAIL $name:$bad"
    failed=$((failed + 1))
  else
    echo "ok   $name (status $ns, $n report(s))"
  fi
}
have() { command -v "$1" > /dev/null 2>&1; }

V="$TB/victims/v_hosts"
for mode in _exit abort exec segv quick_exit; do
  host "exit path $mode" "'$V' $mode" v_hosts
done
host "exit path exec, the image after it" "'$V' exec" echo
# A file size limit below the report's size: no report, one line on stderr under tprof only (so
# stderr is not compared), and the program's status and buffered stdout as natively.
min_reports=0
host "ulimit -f 2" "ulimit -f 2; exec '$TB/victims/v_fill' data 512 0 2> /dev/null"
min_reports=1
# SIGKILL leaves the last snapshot: the victim waits for the first one, then kills itself.
host "SIGKILL with TPROF_SNAPSHOT" "TPROF_SNAPSHOT=0.05 '$V' kill '$REP/r.json'" v_hosts
# A reader that goes away (SIGPIPE): the writer's report is written, the pipeline's output and
# status are as natively.
host "prog | head" "seq 1 1000000 | head -1" seq head
# Children of raw clone3 system calls (through syscall(), which glibc's fork handlers never see):
# each reports under its own pid.
min_reports=21
host "20 raw clone3 children" "'$TB/victims/v_clone' raw 20 | wc -l" v_clone
min_reports=1
host "OpenMP" "'$TB/victims/v_omp'" v_omp
host "C++ threads and exceptions" "'$TB/victims/v_cxx_exc'" v_cxx_exc
host "bash pipeline" "bash -c 'for i in 3 1 2; do echo \$i; done | sort | (read a; echo first \$a; cat) | tr 0-9 a-j'" bash sort tr
host "dash subshells" "sh -c '(echo one; echo two) | wc -l; x=\$(echo sub); echo \$x'" dash wc
if have perl; then
  host "perl" "perl -e 'my %h; \$h{\$_} = \$_ * 2 for 1 .. 100000; print scalar(keys %h), \"\\n\"'" perl
else skip perl "perl is not installed"; fi
if have sqlite3; then
  host "sqlite3" "sqlite3 t.db 'create table t(a, b); insert into t values (1, \"x\"), (2, \"y\");
    select a * 10, b from t order by a;'" sqlite3
else skip sqlite3 "sqlite3 is not installed"; fi
if have xz; then
  host "xz -T2" "seq 1 200000 > data && xz -T2 -k data && xz -dc data.xz | cmp - data && echo same" xz cmp
else skip xz "xz is not installed"; fi
if have gcc; then
  host "gcc -c" "echo 'int f(int x) { return x * 2; }' > one.c && gcc -O2 -c one.c -o one.o" gcc cc1 as
else skip gcc "gcc is not installed"; fi
if /usr/bin/python3 -c 'import numpy' 2> /dev/null; then
  host "python3 + numpy" "/usr/bin/python3 -c 'import numpy as np; a = np.ones((64, 64), dtype=np.float32); print(float((a @ a).sum()))'" python3.11
else skip "python3 + numpy" "Debian's python3-numpy is not installed"; fi
if [ "$full" = full ]; then
  if have make && have gcc; then
    host "make -j2" "for i in 1 2 3 4; do echo \"int f\$i(void) { return \$i; }\" > f\$i.c; done
      printf 'int f1(void); int f4(void);\nint main(void) { return f1() + f4() - 5; }\n' > main.c
      printf 'p: main.o f1.o f2.o f3.o f4.o\n\t\$(CC) -o \$@ \$^\n' > Makefile
      make -s -j2 && ./p && echo built; rm -f p" make cc1 ld
  else skip "make -j2" "make or gcc is not installed"; fi
  if have git; then
    host "git" "export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
      export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
      git init -q -b main . && echo a > a && git add a && git commit -qm one && git log --oneline && rm -rf .git" git
  else skip git "git is not installed"; fi
  # A process pool, whose terminate() sends SIGTERM to workers that may be writing their
  # reports: the parent's and both workers' reports.
  if /usr/bin/python3 -c 'import multiprocessing' 2> /dev/null; then
    min_reports=3
    host "python3 Pool(2).map" "/usr/bin/python3 -c 'from multiprocessing import Pool
def f(x): return x * x
if __name__ == \"__main__\":
    with Pool(2) as p: print(sum(p.map(f, range(10))))'" python3.11
    min_reports=1
  else skip "python3 Pool(2).map" "python3 has no multiprocessing"; fi
  if /usr/bin/python3 -c 'import torch' 2> /dev/null; then
    host "python3 + torch" "/usr/bin/python3 -c 'import torch; a = torch.ones(64, 64); print(float((a @ a).sum()))'" python3.11
  else skip "python3 + torch" "Debian's python3-torch is not installed"; fi
else
  echo "skip make -j2, git, python3 + torch: the slow hosts run with TPROF_SWEEP=full"
fi
echo "$ran hosts, $failed failed"
[ "$failed" = 0 ]
