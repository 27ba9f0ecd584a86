#!/bin/sh
# The global peak stays exact with two threads racing on the live bytes: tests/victims/v_peak2 takes
# turns with a second thread under a barrier, both threads allocating at once or freeing at once,
# so that its true peak is known (it prints it, in requested bytes and in usable sizes). What is
# live at exit besides (the second thread's DTV: the victim frees all its blocks) was live at the
# peak too, so peak_bytes is the victim's peak plus live_at_exit_bytes, to the byte. Also with
# another allocator preloaded after tprof.
. "$TS/lib.sh"
V="$TB/victims/v_peak2"
check() { # json out units
    python3 - "$1" "$2" "$3" <<'PYEOF' || fail "$1: peak not exact"
import json, sys
m = json.load(open(sys.argv[1]))["memory"]
t = dict(kv.split("=") for kv in open(sys.argv[2]).read().split()[1:])
want = int(t["peak_" + sys.argv[3]]) + m["live_at_exit_bytes"]
assert int(t["live"]) == 0, t
assert m["peak_bytes"] == want, (m["peak_bytes"], want, m["live_at_exit_bytes"])
assert m["allocs"] == m["frees"] + 1, (m["allocs"], m["frees"])  # the DTV
PYEOF
}
tp TPROF_JSON="$WORK/e.json" LD_PRELOAD="$TPROF_SO" "$V" >"$WORK/e.out" || fail "victim failed"
check "$WORK/e.json" "$WORK/e.out" req
# The second thread's first call is a free, and it has ended by the report: the count of threads
# that ran is the hooks'.
tp TPROF_JSON="$WORK/j.json" LD_PRELOAD="$TPROF_SO" "$V" join >/dev/null || fail "victim failed (join)"
jcheck "$WORK/j.json" "d['program']['threads'] == 2"
# Another allocator after tprof in the lookup chain (bench/fwdshim.c, which forwards to glibc's).
cc -O2 -shared -fPIC -o "$WORK/fwd.so" "$TS/../bench/fwdshim.c" -ldl || fail "building fwdshim"
tp TPROF_JSON="$WORK/f.json" LD_PRELOAD="$TPROF_SO $WORK/fwd.so" "$V" >"$WORK/f.out" ||
    fail "victim failed over fwdshim"
check "$WORK/f.json" "$WORK/f.out" req
exit 0
