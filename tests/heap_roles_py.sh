#!/bin/sh
# Labels by role with the real frameworks, with no settings: numpy's array data (Debian's
# python3-numpy, stripped: its core module calling the allocator) is tagged "array data
# (numpy)", never [lib]; a 256x256 float64 array is one 524,288-byte block of it; python's own
# objects alive at exit are the interpreter's, not the program's leak. Then torch where installed
# (Debian's python3-torch; skipped otherwise): a 512x512 float32 tensor is one 1,048,576-byte block
# of "tensor data (torch)" from c10::alloc_cpu in /usr/lib, not [lib].
. "$TS/lib.sh"
py=/usr/bin/python3
"$py" -c 'import numpy' 2>/dev/null || { echo "SKIP: no python3-numpy for /usr/bin/python3"; exit 77; }
code='import numpy as np; a = np.ones((256, 256)); b = a * 2; print(float(b.sum()))'
native=$("$py" -c "$code") || fail "numpy native run failed"
out=$(TPROF_OUTPUT="$WORK/np.txt" TPROF_JSON="$WORK/np.json" LD_PRELOAD="$TPROF_SO" "$py" -c "$code") ||
  fail "numpy run failed: $?"
[ "$out" = "$native" ] || fail "numpy stdout changed: $out vs $native"
arrays="[s for s in m['sites'] if s.get('role') == 'array data (numpy)']"
jcheck "$WORK/np.json" "any(s['bytes'] == 524288 * s['allocs'] and s['allocs'] >= 1 for s in $arrays)" \
  "all(not s['system'] for s in $arrays)" \
  "m['live_at_exit_interpreter_bytes'] > 0" \
  "all(s['interpreter'] for s in m['sites'] if s['frames'] and s['frames'][0].get('module') == '$(readlink -f $py)' and not s['system'])"
grep -q "\[array data (numpy)\] _multiarray_umath" "$WORK/np.txt" || fail "numpy: no tagged row: $(grep -A8 '^CALL SITES' "$WORK/np.txt")"
grep -q "^kept by the interpreter at exit: " "$WORK/np.txt" || fail "numpy: no interpreter line"

"$py" -c 'import torch' 2>/dev/null || { echo "SKIP: no python3-torch (torch part)"; exit 0; }
code='import torch; x = torch.ones(512, 512); print(float((x * 2).sum()))'
native=$("$py" -c "$code") || fail "torch native run failed"
out=$(timeout -k 5 300 env TPROF_OUTPUT="$WORK/t.txt" TPROF_JSON="$WORK/t.json" LD_PRELOAD="$TPROF_SO" \
      "$py" -c "$code") || fail "torch run failed: $?"
[ "$out" = "$native" ] || fail "torch stdout changed: $out vs $native"
tensors="[s for s in m['sites'] if s.get('role') == 'tensor data (torch)']"
jcheck "$WORK/t.json" "any(s['bytes'] == 1048576 * s['allocs'] for s in $tensors)" \
  "all(not s['system'] and s['interpreter'] for s in $tensors)"
grep -q "\[tensor data (torch)\] c10::alloc_cpu(unsigned long) (l" "$WORK/t.txt" ||
  fail "torch: no tagged row: $(grep -A8 '^CALL SITES' "$WORK/t.txt")"
exit 0
