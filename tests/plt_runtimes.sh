#!/bin/sh
# Runtime libraries are never in the way with TPROF_OPS='*' (every export): OpenSSL's
# CRYPTO_malloc compares its own address with a stored pointer (`if (malloc_impl !=
# CRYPTO_malloc) return malloc_impl(...)`) and once called itself forever under tprof, a hang
# not even SIGTERM ended. Python's hashlib and the openssl command: same output and exit status
# as without tprof, within `timeout`.
. "$TS/lib.sh"
ran=0
if command -v python3 >/dev/null 2>&1 && python3 -c 'import hashlib' >/dev/null 2>&1; then
  code='import hashlib; print(hashlib.sha256(b"x").hexdigest())'
  native=$(python3 -c "$code") || fail "python3: native run failed"
  out=$(timeout -k 5 60 env TPROF_OPS='*' TPROF_OUTPUT=none TPROF_JSON="$WORK/py.json" \
        LD_PRELOAD="$TPROF_SO" python3 -c "$code" 2>"$WORK/err") ||
    fail "python3 hashlib failed or hung under tprof (status $?): $(tail -n 3 "$WORK/err")"
  [ "$out" = "$native" ] || fail "python3 hashlib: stdout changed: $out vs $native"
  jcheck "$WORK/py.json" "'ops' in d"
  ran=1
else
  echo "note: no python3 with hashlib: that part skipped"
fi
if command -v openssl >/dev/null 2>&1; then
  native=$(echo hi | openssl dgst -sha256) || fail "openssl: native run failed"
  out=$(echo hi | timeout -k 5 60 env TPROF_OPS='*' TPROF_OUTPUT=none TPROF_JSON="$WORK/ssl.json" \
        LD_PRELOAD="$TPROF_SO" openssl dgst -sha256 2>"$WORK/err") ||
    fail "openssl failed or hung under tprof (status $?): $(tail -n 3 "$WORK/err")"
  [ "$out" = "$native" ] || fail "openssl: stdout changed: $out vs $native"
  jcheck "$WORK/ssl.json" "'ops' in d"
  ran=1
else
  echo "note: no openssl command: that part skipped"
fi
[ "$ran" = 1 ] || { echo "SKIP: neither python3 (hashlib) nor openssl is installed"; exit 77; }
exit 0
