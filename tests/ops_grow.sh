#!/bin/sh
# An op table past its first chunks: a generated library of 4,000 exports (each one op through
# the PLT, within its 4,096 stubs), called 3 times each by each of 2 threads, the one forwards
# and the other backwards,
# so that both intern names while the table grows. Every op is recorded with exactly 6 calls and
# the report is whole. With TPROF_MAX_OPS=3000 exactly 1,000 ops are refused, each once (a PLT
# slot asks once), the 3,000 recorded still have 6 calls each, and the report is partial. With a
# budget smaller than any chunk (TPROF_MEMORY_BUDGET=4096), the first chunk's 256 ops are
# recorded (it is always made) and the other 3,744 refused. The same through
# -finstrument-functions: 1,500 instrumented functions of the program matching TPROF_OPS, called
# 3 times each by each of 2 threads, give 1,500 ops of exactly 6 calls.
. "$TS/lib.sh"
N=4000
python3 - "$WORK" "$N" <<'PY' || fail "generating the sources"
import sys
work, n = sys.argv[1], int(sys.argv[2])
with open(work + "/big.c", "w") as f:
    for i in range(n):
        f.write("int tpbig_f%04d(int x) { return x + %d; }\n" % (i, i % 7))
with open(work + "/cyg.c", "w") as f:
    f.write("#include <pthread.h>\n#include <stdio.h>\n")
    for i in range(1500):
        f.write("__attribute__((noinline)) int tpcyg_f%04d(int x) { return x + %d; }\n" % (i, i % 5))
    for name, order in (("fwd", range(1500)), ("bwd", range(1499, -1, -1))):
        f.write("static void *%s(void *p)\n{\n    long s = 0;\n    for (int k = 0; k < 3; k++) {\n" % name)
        for i in order:
            f.write("        s += tpcyg_f%04d(k);\n" % i)
        f.write("    }\n    *(long *)p = s;\n    return NULL;\n}\n")
    f.write("int main(void)\n{\n    long a = 0, b = 0;\n    pthread_t t;\n"
            "    pthread_create(&t, NULL, bwd, &b);\n    fwd(&a);\n    pthread_join(t, NULL);\n"
            "    printf(\"%ld %ld\\n\", a, b);\n    return 0;\n}\n")
with open(work + "/main.c", "w") as f:
    f.write("#include <pthread.h>\n#include <stdio.h>\n")
    for i in range(n):
        f.write("int tpbig_f%04d(int);\n" % i)
    for name, order in (("fwd", range(n)), ("bwd", range(n - 1, -1, -1))):
        f.write("static void *%s(void *p)\n{\n    long s = 0;\n    for (int k = 0; k < 3; k++) {\n" % name)
        for i in order:
            f.write("        s += tpbig_f%04d(k);\n" % i)
        f.write("    }\n    *(long *)p = s;\n    return NULL;\n}\n")
    f.write("int main(void)\n{\n    long a = 0, b = 0;\n    pthread_t t;\n"
            "    pthread_create(&t, NULL, bwd, &b);\n    fwd(&a);\n    pthread_join(t, NULL);\n"
            "    printf(\"%ld %ld\\n\", a, b);\n    return 0;\n}\n")
PY
cc -O1 -shared -fPIC -o "$WORK/libtpbig.so" "$WORK/big.c" || fail "building the library"
cc -O1 -o "$WORK/v_big" "$WORK/main.c" -L"$WORK" -ltpbig -Wl,-rpath,"$WORK" -lpthread ||
  fail "building the victim"
native=$("$WORK/v_big") || fail "native run failed"
run() {
  out=$(env "$@" TPROF_OPS='tpbig_*' TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" \
        LD_PRELOAD="$TPROF_SO" "$WORK/v_big" 2>"$WORK/err") || fail "victim failed ($*)"
  [ "$out" = "$native" ] || fail "stdout changed ($*): $out vs $native"
  [ -s "$WORK/err" ] && fail "unexpected stderr ($*): $(cat "$WORK/err")"
  return 0
}
run TPROF_DEMOTE=0
jcheck "$WORK/r.json" "len(d['ops']) == $N" "d['partial'] == False" \
  "sorted(o['name'] for o in d['ops']) == ['tpbig_f%04d' % i for i in range($N)]" \
  "all(o['calls'] == 6 for o in d['ops'])" \
  "not any('op table full' in n for n in d['notes'])"
run TPROF_DEMOTE=0 TPROF_MAX_OPS=3000
jcheck "$WORK/r.json" "len(d['ops']) == 3000" "d['partial'] == True" \
  "all(o['calls'] == 6 for o in d['ops'])" \
  "all(o['name'].startswith('tpbig_f') for o in d['ops'])" \
  "[n.split(': ')[0] for n in d['notes'] if n.startswith('op table full')] == ['op table full (TPROF_MAX_OPS=3000)']" \
  "any(n.startswith('op table full (TPROF_MAX_OPS=3000): 1000 ops were not recorded (') and ': tpbig_f' in n and n.endswith(', ...') for n in d['notes'])"
run TPROF_DEMOTE=0 TPROF_MEMORY_BUDGET=4096
jcheck "$WORK/r.json" "len(d['ops']) == 256" "d['partial'] == True" \
  "all(o['calls'] == 6 for o in d['ops'])" \
  "any(n.startswith('op table full (256 ops; with the call sites, TPROF_MEMORY_BUDGET=4096 bytes): 3744 ops were not recorded (') and ': tpbig_f' in n for n in d['notes'])"
cc -O1 -finstrument-functions -o "$WORK/v_cyg" "$WORK/cyg.c" -lpthread || fail "building the -finstrument-functions victim"
native=$("$WORK/v_cyg") || fail "native run failed (-finstrument-functions)"
out=$(TPROF_DEMOTE=0 TPROF_OPS='tpcyg_*' TPROF_OUTPUT=none TPROF_JSON="$WORK/c.json" \
      LD_PRELOAD="$TPROF_SO" "$WORK/v_cyg" 2>"$WORK/err") || fail "victim failed (-finstrument-functions)"
[ "$out" = "$native" ] || fail "stdout changed (-finstrument-functions): $out vs $native"
[ -s "$WORK/err" ] && fail "unexpected stderr (-finstrument-functions): $(cat "$WORK/err")"
jcheck "$WORK/c.json" "d['partial'] == False" \
  "sorted(o['name'] for o in d['ops']) == ['tpcyg_f%04d' % i for i in range(1500)]" \
  "all(o['calls'] == 6 and o['source'] == 'instrumented' for o in d['ops'])"
