#!/bin/sh
# PLT stubs past the 4,096 built into libtprof.so: a generated library of 6,000 exports, each
# called 3 times by each of 2 threads (the one forwards, the other backwards) through the
# program's PLT. Every export is hooked, in stubs made as the scan needs them, and recorded with
# exactly 6 calls; the report is whole. With a budget too small for any more stubs
# (TPROF_MEMORY_BUDGET=4096) the built-in 4,096 are all there is: the other 1,904 functions are
# not hooked, and the report is partial and says so (the op table's own note says the op table
# kept only its first chunk).
. "$TS/lib.sh"
N=6000
python3 - "$WORK" "$N" <<'PY' || fail "generating the sources"
import sys
work, n = sys.argv[1], int(sys.argv[2])
with open(work + "/big.c", "w") as f:
    for i in range(n):
        f.write("int tpstub_f%04d(int x) { return x + %d; }\n" % (i, i % 7))
with open(work + "/main.c", "w") as f:
    f.write("#include <pthread.h>\n#include <stdio.h>\n")
    for i in range(n):
        f.write("int tpstub_f%04d(int);\n" % i)
    for name, order in (("fwd", range(n)), ("bwd", range(n - 1, -1, -1))):
        f.write("static void *%s(void *p)\n{\n    long s = 0;\n    for (int k = 0; k < 3; k++) {\n" % name)
        for i in order:
            f.write("        s += tpstub_f%04d(k);\n" % i)
        f.write("    }\n    *(long *)p = s;\n    return NULL;\n}\n")
    f.write("int main(void)\n{\n    long a = 0, b = 0;\n    pthread_t t;\n"
            "    pthread_create(&t, NULL, bwd, &b);\n    fwd(&a);\n    pthread_join(t, NULL);\n"
            "    printf(\"%ld %ld\\n\", a, b);\n    return 0;\n}\n")
PY
cc -O0 -shared -fPIC -o "$WORK/libtpstub.so" "$WORK/big.c" || fail "building the library"
cc -O0 -o "$WORK/v_stubs" "$WORK/main.c" -L"$WORK" -ltpstub -Wl,-rpath,"$WORK" -lpthread ||
  fail "building the victim"
native=$("$WORK/v_stubs") || fail "native run failed"
run() {
  out=$(env "$@" TPROF_DEMOTE=0 TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" \
        LD_PRELOAD="$TPROF_SO" "$WORK/v_stubs" 2>"$WORK/err") || fail "victim failed ($*)"
  [ "$out" = "$native" ] || fail "stdout changed ($*): $out vs $native"
  [ -s "$WORK/err" ] && fail "unexpected stderr ($*): $(cat "$WORK/err")"
  return 0
}
for ops in TPROF_OPS='tpstub_*' TPROF_PLT=1; do # by a glob, and at the default ops
  run "$ops"
  jcheck "$WORK/r.json" "len(d['ops']) == $N" "d['partial'] == False" \
    "sorted(o['name'] for o in d['ops']) == ['tpstub_f%04d' % i for i in range($N)]" \
    "all(o['calls'] == 6 for o in d['ops'])" \
    "not any('not hooked' in n for n in d['notes'])"
done
run TPROF_OPS='tpstub_*' TPROF_MEMORY_BUDGET=4096
jcheck "$WORK/r.json" "d['partial'] == True" \
  "[n for n in d['notes'] if 'PLT stubs' in n] == ['PLT stubs full (4096 stubs; with the call sites and ops, TPROF_MEMORY_BUDGET=4096 bytes): 1904 shared-library functions were not hooked']" \
  "all(o['calls'] == 6 for o in d['ops'])"
# The text report says it too.
env TPROF_OPS='tpstub_*' TPROF_MEMORY_BUDGET=4096 TPROF_DEMOTE=0 TPROF_OUTPUT="$WORK/r.txt" \
  LD_PRELOAD="$TPROF_SO" "$WORK/v_stubs" > /dev/null 2>&1 || fail "victim failed (text)"
grep -q '^PARTIAL REPORT' "$WORK/r.txt" || fail "text report not marked partial"
tr '\n' ' ' < "$WORK/r.txt" | sed 's/  */ /g' | grep -q 'PLT stubs full (4096 stubs; with the call sites and ops, TPROF_MEMORY_BUDGET=4096 bytes): 1904 shared-library functions were not hooked' ||
  fail "text report: no note of the functions not hooked"
exit 0
