#!/bin/sh
# Labels by role (tests/victims/v_roles.c): torch's tensor allocator (c10::alloc_cpu, from a
# libc10.so under <root>/usr/lib/x86_64-linux-gnu) makes the program's data, tagged "tensor data
# (torch)" in JSON and text; what an interpreter keeps at exit is counted apart from the
# program's leak. The victim keeps 3 tensors of 65,536 bytes, 5 objects of 1,000 bytes it
# allocates itself, an extension's import state (PyInit_tpext, 256 bytes) and the extension's own
# 4,096-byte block. Run as a C program: all but the import state are its leaks. Copied to a file
# named python3.99 (an interpreter to tprof): the tensors, the objects and the import state are
# the interpreter's (201,864 bytes in 9 blocks), the extension's block alone is the program's.
# Installed (under a dist-packages directory), the extension's block is a package's state, which
# the interpreter keeps with the module: all 10 blocks are the interpreter's, none the program's.
# ext_keep is an op (a PLT hook): the stack walk goes on through its hooked return into main
# (it once stopped there, and a library's allocations inside its ops looked like its own keeping).
. "$TS/lib.sh"
lib="$WORK/root/usr/lib/x86_64-linux-gnu"
mkdir -p "$lib" "$WORK/ext"
cp "$TB/victims/libtpc10.so" "$lib/libc10.so" && cp "$TB/victims/libtpext.so" "$WORK/ext/" &&
  cp "$TB/victims/v_roles" "$WORK/python3.99" || fail "cannot set up"
LIBS="$lib:$WORK/ext"
for exe in "$TB/victims/v_roles" "$WORK/python3.99"; do
  n=$(basename "$exe")
  native=$(LD_LIBRARY_PATH="$LIBS" "$exe") || fail "$n: native run failed"
  [ "$native" = "kept 10 blocks" ] || fail "$n: native stdout: $native"
  out=$(LD_LIBRARY_PATH="$LIBS" TPROF_OUTPUT="$WORK/$n.txt" TPROF_JSON="$WORK/$n.json" \
        LD_PRELOAD="$TPROF_SO" "$exe") || fail "$n: victim failed: $?"
  [ "$out" = "$native" ] || fail "$n: stdout changed: $out"
  tensors="[s for s in m['sites'] if s.get('role') == 'tensor data (torch)']"
  jcheck "$WORK/$n.json" "sum(s['live_at_exit_bytes'] for s in $tensors) == 3 * 65536" \
    "sum(s['live_at_exit_allocs'] for s in $tensors) == 3" \
    "all(not s['system'] for s in $tensors)" \
    "len([s for s in m['sites'] if s.get('role')]) == len($tensors)" \
    "site('PyInit_tpext')['live_at_exit_bytes'] == 256" \
    "[s['interpreter'] for s in m['sites'] if s['frames'][0].get('function') == 'PyInit_tpext'] == [True]" \
    "[s['interpreter'] for s in m['sites'] if s['frames'][0].get('function') == 'ext_keep'] == [False]" \
    "[s['frames'][1]['function'] for s in m['sites'] if s['frames'][0].get('function') == 'ext_keep'] == ['main']"
  # (demangled by the reporter, though the program loaded no libstdc++)
  grep -q "^   192 KiB    192 KiB        3    192 KiB  \[tensor data (torch)\] c10::alloc_cpu(unsigned long) (l" "$WORK/$n.txt" ||
    fail "$n: text: no tagged tensor row: $(grep -A6 '^CALL SITES' "$WORK/$n.txt")"
done
# A C program: the tensors and objects are its own leaks; the import state is the interpreter's.
jcheck "$WORK/v_roles.json" \
  "m['live_at_exit_program_bytes'] == 3 * 65536 + 5 * 1000 + 4096" \
  "m['live_at_exit_program_allocs'] == 9" \
  "m['live_at_exit_interpreter_bytes'] == 256 and m['live_at_exit_interpreter_allocs'] == 1" \
  "all(not s['interpreter'] for s in m['sites'] if s.get('role'))"
grep -q "^kept by the interpreter at exit: 256 B in 1 block (its objects and its modules' state, not freed$" "$WORK/v_roles.txt" ||
  fail "v_roles: text: no interpreter line: $(grep -A2 '^kept by' "$WORK/v_roles.txt")"
# An interpreter: all but the extension's block is the interpreter's.
jcheck "$WORK/python3.99.json" \
  "m['live_at_exit_program_bytes'] == 4096 and m['live_at_exit_program_allocs'] == 1" \
  "m['live_at_exit_interpreter_bytes'] == 3 * 65536 + 5 * 1000 + 256" \
  "m['live_at_exit_interpreter_allocs'] == 9" \
  "all(s['interpreter'] for s in m['sites'] if s.get('role'))" \
  "'At exit, program: 4.00 KiB in 1 block leaked; the interpreter keeps 197 KiB (its objects and modules at exit)' in d['verdict']['text']"
t="$WORK/python3.99.txt"
grep -q "^kept by the interpreter at exit: 197 KiB in 9 blocks (its objects and its modules' state, not freed$" "$t" ||
  fail "python3.99: text: no interpreter line: $(sed -n '/^LEAKS/,$p' "$t")"
grep -q "the program's 4.00 KiB, the interpreter's 197 KiB, system" "$t" ||
  fail "python3.99: text: no split in the MEMORY line: $(grep -A1 '^live at exit' "$t")"
[ "$(sed -n '/^LEAKS/,$p' "$t" | grep -c '^ *[0-9][0-9.]* [KMG]*i*B  ')" -eq 1 ] && grep -q "^  4.00 KiB        1  ext_keep (libtpext.c:[0-9]*) < main (v_roles.c:[0-9]*)$" "$t" ||
  fail "python3.99: LEAKS rows: $(sed -n '/^LEAKS/,$p' "$t")"
# The same from the JSON report (tprof report): the role and the split read back.
"$TPROF_CLI" report "$WORK/python3.99.json" > "$WORK/again.txt" 2>&1 || fail "tprof report failed"
grep -q "^kept by the interpreter at exit: 197 KiB in 9 blocks" "$WORK/again.txt" &&
  grep -q "\[tensor data (torch)\] c10::alloc_cpu(unsigned long)" "$WORK/again.txt" || fail "tprof report: $(cat "$WORK/again.txt")"
# The extension installed as a package: its block is the interpreter's too.
pkg="$WORK/root/usr/lib/python3/dist-packages"
mkdir -p "$pkg" && cp "$TB/victims/libtpext.so" "$pkg/" || fail "cannot install the extension"
out=$(LD_LIBRARY_PATH="$lib:$pkg" TPROF_OUTPUT="$WORK/pkg.txt" TPROF_JSON="$WORK/pkg.json" \
      LD_PRELOAD="$TPROF_SO" "$WORK/python3.99") || fail "installed: victim failed: $?"
[ "$out" = "kept 10 blocks" ] || fail "installed: stdout changed: $out"
jcheck "$WORK/pkg.json" \
  "m['live_at_exit_program_bytes'] == 0 and m['live_at_exit_program_allocs'] == 0" \
  "m['live_at_exit_interpreter_bytes'] == 3 * 65536 + 5 * 1000 + 256 + 4096" \
  "m['live_at_exit_interpreter_allocs'] == 10" \
  "[s['interpreter'] for s in m['sites'] if s['frames'][0].get('function') == 'ext_keep'] == [True]"
grep -q "^kept by the interpreter at exit: 201 KiB in 10 blocks (its objects and its modules' state, not freed$" "$WORK/pkg.txt" ||
  fail "installed: text: $(sed -n '/^LEAKS/,$p' "$WORK/pkg.txt")"
exit 0
