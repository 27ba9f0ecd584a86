# Shared by the shell scenarios: run a victim under tprof and check its JSON report.
set -u
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tprof-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# tp VAR=val... -- cmd args: run cmd preloaded, text report off unless asked for.
tp() {
    env TPROF_OUTPUT=none "$@"
}
preload() { env LD_PRELOAD="$TPROF_SO" "$@"; }
jcheck() { python3 "$TS/jcheck.py" "$@" || fail "report assertions"; }
