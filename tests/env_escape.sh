#!/bin/sh
# Every value a warning echoes is shown escaped, once (common/out/escape.c): a control character
# (an escape sequence that would clear the screen or retitle the terminal, BEL) and a byte of no
# UTF-8 character become \xNN, a backslash \\, valid UTF-8 stays. The warning is exactly one
# line, a reason that quotes the value (a TPROF_WORK formula's parse error) quotes it escaped the
# same way, never twice (a value holding the text \x1b shows \\x1b), and the program runs on
# with its output unchanged. So does a warning of the running library that names something of
# the program's (a dlopen() with RTLD_DEEPBIND of a file whose name holds an escape sequence and
# an 8-bit CSI, U+009B), and an error of tprof run's.
. "$TS/lib.sh"
V="$TB/victims/v_dlname"
ESC=$(printf '\033')
check() { # check EXPECTED VAR=value... [-- ARG]: stderr is exactly the line EXPECTED
  want=$1
  shift
  arg=
  if [ "$#" -ge 2 ] && [ "$2" = -- ]; then arg=$3; set -- "$1"; fi
  env "$@" TPROF_OUTPUT=none LD_PRELOAD="$TPROF_SO" "$V" ${arg:+"$arg"} > "$WORK/out" \
    2> "$WORK/err" || fail "victim failed ($*)"
  [ "$(cat "$WORK/out")" = ok ] || fail "stdout changed ($*): $(cat "$WORK/out")"
  grep -q "$ESC" "$WORK/err" && fail "a raw ESC on stderr ($*)"
  [ "$(wc -l < "$WORK/err")" = 1 ] && [ "$(cat "$WORK/err")" = "$want" ] ||
    fail "stderr ($*): $(cat "$WORK/err")
expected: $want"
}
check 'tprof: TPROF_WORK=foo: \x1b[2J: expected flops= or bytes= at character 6 of '"'foo: \\x1b[2J'"'; using no work from arguments' \
  TPROF_WORK="$(printf 'foo: \033[2J')"
check 'tprof: TPROF_OPS=a\x1b[2J\\b: contains a control character; using the default op list' \
  TPROF_OPS="$(printf 'a\033[2J\\b')"
check 'tprof: TPROF_JSON=/tmp/x\x1b]0;pwned\x07.json: contains a control character; using none (no JSON report)' \
  TPROF_JSON="$(printf '/tmp/x\033]0;pwned\007.json')"
check "tprof: TPROF_SCHEDULE=1:\\xff2:$(printf '\303\251'): expected wait:warmup:active, three whole numbers; using record all steps" \
  TPROF_SCHEDULE="$(printf '1:\3772:\303\251')"
check 'tprof: TPROF_TOP=\\x1b: not an integer; using 10' TPROF_TOP='\x1b'
check 'tprof: TPROF_STEP=st\x1bep: expected one function name; using none' TPROF_STEP="$(printf 'st\033ep')"
check "tprof: dlopen(lib\\x1b[31mred\\xc2\\x9b.so, RTLD_DEEPBIND): RTLD_DEEPBIND removed: it would bypass tprof's wrappers" \
  TPROF_DEMOTE=0 -- "$(printf 'lib\033[31mred\302\233.so')"
# tprof run echoes what it was given the same way.
"$TPROF_CLI" run "$(printf -- '--x\033[2J')" -- true > /dev/null 2> "$WORK/err"
[ $? = 2 ] && [ "$(cat "$WORK/err")" = "tprof run: unknown option '--x\\x1b[2J' (try 'tprof run --help')" ] ||
  fail "tprof run, unknown option: $(cat "$WORK/err")"
"$TPROF_CLI" run -- "$(printf 'no\033such')" > /dev/null 2> "$WORK/err"
[ $? = 127 ] && [ "$(cat "$WORK/err")" = "tprof run: cannot run 'no\\x1bsuch': No such file or directory" ] ||
  fail "tprof run, no such program: $(cat "$WORK/err")"
# So do the other commands: an unknown command, option or value, a file that cannot be written.
cli() { # cli STATUS EXPECTED ARGS...: tprof ARGS exits STATUS with the one line EXPECTED
  st=$1 want=$2; shift 2
  "$TPROF_CLI" "$@" > /dev/null 2> "$WORK/err"
  rc=$?
  [ $rc = "$st" ] && [ "$(cat "$WORK/err")" = "$want" ] || fail "tprof $1 (status $rc): $(cat "$WORK/err")
expected: $want"
}
E=$(printf '\033[2J')
cli 2 "tprof: unknown command 'x\\x1b[2J' (try 'tprof --help')" "x$E"
cli 2 "tprof report: --top \\x1b[2J: not an integer" report --top "$E" "$TS/fixtures/a.json"
cli 2 "tprof report: unknown option or missing value '-\\x1b[2J' (try --help)" report "-$E"
cli 2 "tprof diff: --format \\x1b[2J: expected text or json" diff --format "$E" a b
cli 2 "tprof merge: unknown option or missing value '-\\x1b[2J' (try --help)" merge "-$E"
cli 1 "tprof merge: cannot write /no/dir\\x1b[2J/m.json: No such file or directory" \
  merge "$TS/fixtures/a.json" -o "/no/dir$E/m.json"
cli 2 "tprof calibrate: unknown option '\\x1b[2J' (try --help)" calibrate "$E"
exit 0
