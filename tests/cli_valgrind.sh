#!/bin/sh
# tprof report, diff and merge under valgrind, on the fixture reports and on bad input of each
# kind the reader rejects: no invalid read or write, no use of uninitialised memory, no definite
# leak, and the same output and exit status as without valgrind. Needs valgrind (Debian:
# valgrind); skipped in a --enable-sanitizers build (valgrind cannot run an ASan program).
. "$TS/lib.sh"
command -v valgrind > /dev/null 2>&1 || { echo "SKIP: valgrind is not installed"; exit 77; }
T="$TPROF_CLI"
if ldd "$T" 2> /dev/null | grep -q libasan; then
  echo "SKIP: $T is built with ASan (--enable-sanitizers), which valgrind cannot run"
  exit 77
fi
F="$TS/fixtures"
A="$F/a.json"; B="$F/b.json"; C="$F/c.json"

head -c 300 "$A" > "$WORK/trunc.json"
printf 'this is not json' > "$WORK/text.json"
: > "$WORK/empty.json"
sed 's/"schema": 1/"schema": 2/' "$A" > "$WORK/schema.json"
sed 's/"calls": 10/"calls": "ten"/' "$A" > "$WORK/type.json"
sed 's/"calls": 10/"calls": 123456789012345678901234567890/' "$A" > "$WORK/huge.json"
python3 -c "print('[' * 1000 + ']' * 1000)" > "$WORK/deep.json"
python3 -c "import random, sys; random.seed(7); sys.stdout.buffer.write(bytes(random.randrange(256) for _ in range(4000)))" > "$WORK/binary.json"

n=0
# vg STATUS CMD...: CMD exits STATUS with and without valgrind, prints the same, and valgrind
# finds nothing (--error-exitcode makes any finding exit 99).
vg() {
  want=$1; shift
  n=$((n + 1))
  "$@" > "$WORK/plain.out" 2> "$WORK/plain.err"; rc=$?
  [ $rc -eq "$want" ] || fail "'$*' exited $rc, expected $want: $(cat "$WORK/plain.err")"
  valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    --log-file="$WORK/vg.$n.log" "$@" > "$WORK/vg.out" 2> "$WORK/vg.err"; rc=$?
  [ $rc -ne 99 ] || fail "valgrind found errors in '$*': $(cat "$WORK/vg.$n.log")"
  [ $rc -eq "$want" ] || fail "'$*' under valgrind exited $rc, expected $want: $(cat "$WORK/vg.err" "$WORK/vg.$n.log")"
  [ ! -s "$WORK/vg.$n.log" ] || fail "valgrind said something about '$*': $(cat "$WORK/vg.$n.log")"
  # merge -o writes a file, never stdout; the other outputs must not depend on valgrind
  cmp -s "$WORK/plain.out" "$WORK/vg.out" || fail "'$*' printed something else under valgrind"
  cmp -s "$WORK/plain.err" "$WORK/vg.err" || fail "'$*' said something else under valgrind"
}

# good input: every renderer, both diff formats, a merge of three ranks
vg 0 "$T" report "$A"
vg 0 "$T" report "$F/full.json" --format json
vg 0 "$T" report "$F/full.json" --top 3
vg 0 "$T" diff "$A" "$B"
vg 0 "$T" diff "$A" "$F/full.json" --format json
vg 0 "$T" diff "$F/ar.json" "$B"
vg 0 "$T" diff "$F/ar.json" "$B" --format json
vg 0 "$T" merge "$A" "$B" "$C" -o "$WORK/m.json"
vg 0 "$T" report "$WORK/m.json"
# bad input: exit 2 with one line, and nothing left behind
for bad in trunc text empty schema type huge deep binary; do
  vg 2 "$T" report "$WORK/$bad.json"
done
vg 2 "$T" report "$WORK/missing.json"
vg 2 "$T" diff "$A" "$WORK/trunc.json"
vg 2 "$T" merge "$A" "$WORK/type.json" "$B" -o "$WORK/m2.json"
[ ! -e "$WORK/m2.json" ] || fail "merge wrote output despite a bad input"
exit 0
