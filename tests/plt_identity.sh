#!/bin/sh
# Function identity is kept (tests/victims/libtpself.c, v_identity.c): libtpself's sgd_update
# compares a stored pointer (its own &sgd_update, then the address dlsym gave the program) with
# sgd_update and calls through the pointer when they differ, as OpenSSL's CRYPTO_malloc does.
# Had the hook changed what `sgd_update` means in the library, it would call itself forever
# (the library is built -O2: a jump, so a hang; `timeout` turns that into a failure). With the
# default TPROF_OPS and with TPROF_OPS='*': same output ("replaced 0": the addresses compared
# equal every time), and the program's 7 calls through its PLT still timed, exactly. The
# library's own 2 calls go through the GOT entry that also holds the address it compares: not
# hooked.
. "$TS/lib.sh"
V="$TB/victims/v_identity"
native=$("$V") || fail "native run failed"
[ "$native" = "w -0.1250 4.2500 -1.5000 3.4375 replaced 0" ] || fail "native run: $native"
run() {
  label=$1; shift
  out=$(timeout -k 5 60 env "$@" TPROF_OUTPUT=none TPROF_JSON="$WORK/$label.json" LD_PRELOAD="$TPROF_SO" \
        "$V" 2>"$WORK/err") || fail "$label: victim failed or hung (status $?): $(cat "$WORK/err")"
  [ "$out" = "$native" ] || fail "$label: stdout changed: $out vs $native"
  [ -s "$WORK/err" ] && fail "$label: unexpected stderr: $(cat "$WORK/err")"
  jcheck "$WORK/$label.json" "ops['sgd_update']['calls'] == 7" "ops['sgd_update']['source'] == 'plt'"
}
run default
run all TPROF_OPS='*'
jcheck "$WORK/all.json" "ops['tpself_train']['calls'] == 1" "ops['tpself_set']['calls'] == 1"
exit 0
