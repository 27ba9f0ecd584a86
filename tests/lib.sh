# Shared by the shell scenarios: run a victim under tprof and check its JSON report.
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tprof-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# The machine peaks' cache of this test alone: a profile with FLOPs writes one when none exists,
# and neither the user's cache nor another test's may decide or receive what a test measures.
export XDG_CACHE_HOME="$WORK/cache"
# Whether an op is demoted to a count depends on how long its calls take on this machine: every
# test times every call unless it sets TPROF_DEMOTE (with a fixed TPROF_HOOK_NS) itself.
export TPROF_DEMOTE="${TPROF_DEMOTE:-0}"
# The tests read every section of the text report: the full one, unless a test asks for the
# short default itself (tests/report_short.sh).
export TPROF_DETAIL="${TPROF_DETAIL:-full}"
# tp VAR=val... -- cmd args: run cmd preloaded, text report off unless asked for.
tp() {
    env TPROF_OUTPUT=none "$@"
}
preload() { env LD_PRELOAD="$TPROF_SO" "$@"; }
jcheck() { python3 "$TS/jcheck.py" "$@" || fail "report assertions"; }
# calib_lib DIR: a copy of libtprof.so in DIR/lib whose reporter, the tprof it finds beside itself
# (DIR/bin/tprof), is the real one with the test library libtpcalib.so preloaded: TPCALIB_ONCPU
# then says what share of their CPUs the quick measurement's threads had, as the reporter makes it.
# Prints the copy's path.
calib_lib() {
    mkdir -p "$1/lib" "$1/bin"
    cp "$TPROF_SO" "$1/lib/libtprof.so"
    printf '#!/bin/sh\nLD_PRELOAD="%s" exec "%s" "$@"\n' "$TB/victims/libtpcalib.so" "$TPROF_CLI" > "$1/bin/tprof"
    chmod +x "$1/bin/tprof"
    echo "$1/lib/libtprof.so"
}
