#!/bin/sh
# No network at exit: with DEBUGINFOD_URLS pointing at a server that accepts connections and never
# answers, a report whose sites are in a module without local debug information is written
# without a single connection (libdwfl's standard search would ask the server, once per module,
# and wait for it). TPROF_DEBUGINFOD=1 asks it: then the server does see the run.
. "$TS/lib.sh"
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
cat >"$WORK/server.py" <<'PY'
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
held = []
def note():
    with open(sys.argv[2] + ".tmp", "w") as f:
        f.write(str(len(held)))
    os.replace(sys.argv[2] + ".tmp", sys.argv[2])
note()
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept()
    held.append(c)  # accepted, never answered, never closed
    note()
PY
python3 "$WORK/server.py" "$WORK/port" "$WORK/count" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$WORK"' EXIT
i=0
while [ ! -s "$WORK/port" ]; do
    i=$((i + 1)); [ $i -le 300 ] || fail "the server did not start"; sleep 0.1
done
port=$(cat "$WORK/port")
count() { cat "$WORK/count"; }
# Wait (bounded) until the server has accepted at least $1 connections.
wait_count() {
    i=0
    while [ "$(count)" -lt "$1" ]; do
        i=$((i + 1)); [ $i -le 600 ] || return 1; sleep 0.1
    done
}
export DEBUGINFOD_URLS="http://127.0.0.1:$port" DEBUGINFOD_TIMEOUT=2 DEBUGINFOD_CACHE_PATH="$WORK/cache"
lib="$TB/victims/libtpnodebug.so"
timeout 60 env LD_PRELOAD="$TPROF_SO" TPROF_OUTPUT=none TPROF_JSON="$WORK/local.json" \
    "$TB/victims/v_netdebug" "$lib" >/dev/null || fail "run without TPROF_DEBUGINFOD failed or hung: $?"
jcheck "$WORK/local.json" "any(f['module'] and f['module'].endswith('libtpnodebug.so') for s in m['sites'] for f in s['frames'])"
# A bad value is the default, said once.
timeout 60 env LD_PRELOAD="$TPROF_SO" TPROF_OUTPUT=none TPROF_JSON="$WORK/bad.json" TPROF_DEBUGINFOD=maybe \
    "$TB/victims/v_netdebug" "$lib" >/dev/null 2>"$WORK/bad.err" || fail "run with TPROF_DEBUGINFOD=maybe failed or hung: $?"
grep -qx 'tprof: TPROF_DEBUGINFOD=maybe: expected 0/1, yes/no, true/false or on/off; using 0' "$WORK/bad.err" || fail "no warning: $(cat "$WORK/bad.err")"
# One connection of our own, after the runs: the server accepts in arrival order, so once it has
# seen this one it has seen any the runs made.
python3 -c "import socket; socket.create_connection(('127.0.0.1', $port)).close()"
wait_count 1 || fail "the server never saw the test's own connection"
[ "$(count)" -eq 1 ] || fail "tprof connected to DEBUGINFOD_URLS $(($(count) - 1)) time(s) without TPROF_DEBUGINFOD"
if ! { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | grep -q 'libdebuginfod\.so\.1 '; then
    echo "libdebuginfod1 is not installed: TPROF_DEBUGINFOD=1 cannot be shown to reach the server"
    exit 77
fi
timeout 60 env LD_PRELOAD="$TPROF_SO" TPROF_OUTPUT=none TPROF_JSON="$WORK/net.json" TPROF_DEBUGINFOD=1 \
    "$TB/victims/v_netdebug" "$lib" >/dev/null || fail "run with TPROF_DEBUGINFOD=1 failed or hung: $?"
wait_count 2 || fail "TPROF_DEBUGINFOD=1: the server saw no connection"
[ -s "$WORK/net.json" ] || fail "TPROF_DEBUGINFOD=1: no report"
