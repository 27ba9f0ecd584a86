#!/bin/sh
# `import torch` under tprof with the default settings (Debian's python3-torch): one of the
# libraries it loads (libGLdispatch) calls dlopen(NULL) from its constructor while the others are
# still being initialised; tprof must not run their constructors out of order (it once did, and
# python died of SIGSEGV with no report; tests/plt_loadorder.sh is the same pattern in small).
# Same output and exit status as without tprof, a report, and the matmul's FLOPs in it.
. "$TS/lib.sh"
py=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import torch' >/dev/null 2>&1; then
    py=$p
    break
  fi
done
[ -n "$py" ] || { echo "SKIP: no python3 that can import torch (Debian: python3-torch)"; exit 77; }
code='import torch; a = torch.ones(64, 32); b = torch.ones(32, 16); print((a @ b).sum().item())'
native=$("$py" -c "$code") || fail "native run failed"
out=$(timeout -k 5 300 env TPROF_OUTPUT=none TPROF_JSON="$WORK/t.json" LD_PRELOAD="$TPROF_SO" \
      "$py" -c "$code" 2>"$WORK/err") || fail "import torch failed under tprof (status $?): $(tail -n 3 "$WORK/err")"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
jcheck "$WORK/t.json" "any(o['flops'] == 2*64*16*32 for o in d['ops'])"
exit 0
