#!/bin/sh
# C++ names demangled in every report, also when the C++ runtime is out of the global scope: a C
# program that loads a C++ library with dlopen's default RTLD_LOCAL (python3 importing torch).
# Sites in the text and the JSON name cxa::Buffer::fill(unsigned long) and
# double* cxa::make_table<double>(int), no frame keeps a mangled name.
. "$TS/lib.sh"
out=$(TPROF_OUTPUT="$WORK/r.txt" TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" \
  "$TB/victims/v_dlcxx" "$TB/victims/libtpcxxalloc.so") || fail "victim failed: $?"
[ "$out" = "ok 100" ] || fail "stdout changed: $out"
jcheck "$WORK/r.json" \
  "site('cxa::Buffer::fill(unsigned long)')['allocs'] == 2" \
  "site('cxa::Buffer::fill(unsigned long)')['live_at_exit_bytes'] == 4096" \
  "site('double* cxa::make_table<double>(int)')['bytes'] == 800" \
  "not [f['function'] for s in m['sites'] for f in s['frames'] if (f.get('function') or '').startswith('_Z')]"
grep -q 'cxa::Buffer::fill(unsigned long)' "$WORK/r.txt" || fail "text: $(cat "$WORK/r.txt")"
! grep -q '_Z[NZ0-9]' "$WORK/r.txt" || fail "mangled in the text: $(grep '_Z' "$WORK/r.txt")"
echo "PASS cxx_names"
