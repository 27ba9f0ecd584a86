#!/bin/sh
# The program's own view of its libraries is the same with tprof: RTLD_NOLOAD finds none of the
# libraries tprof uses (elfutils and its compressors live in a namespace of their own), and a
# libz the program loads and unloads is really unloaded. The victim links libc alone.
. "$TS/lib.sh"
v="$TB/victims/v_noload"
if command -v readelf >/dev/null 2>&1; then
    own=$(LC_ALL=C readelf -d "$v" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' | tr '\n' ' ')
    [ "$own" = "libc.so.6 " ] || fail "the victim itself needs: $own"
fi
"$v" >"$WORK/native.txt" || fail "victim failed without tprof: $?"
# Without tprof the check means something: nothing is loaded, and dlclose unloads libz.
[ "$(grep -c '^before: .* absent$' "$WORK/native.txt")" -eq 11 ] || fail "unexpected: $(cat "$WORK/native.txt")"
grep -qx 'after: libz.so.1 absent' "$WORK/native.txt" || {
    echo "libz.so.1 cannot be loaded, or stays loaded after dlclose, even without tprof"; exit 77; }
# Stacks walked (the default depth) and the report symbolised at exit, as in any run.
TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$v" >"$WORK/tprof.txt" || fail "victim failed under tprof: $?"
cmp -s "$WORK/native.txt" "$WORK/tprof.txt" || {
    diff "$WORK/native.txt" "$WORK/tprof.txt"; fail "the program saw other libraries under tprof"; }
[ -s "$WORK/r.json" ] || fail "no report written"
