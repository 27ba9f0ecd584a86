#!/bin/sh
# The global peak stays exact with two threads racing on the live bytes, in the exact mode and
# in the sampled mode's own malloc/free path (track/heap_fast.h): tests/victims/v_peak2 takes
# turns with a second thread under a barrier, both threads allocating at once or freeing at once,
# so that its true peak is known (it prints it, in requested bytes and in usable sizes). What is
# live at exit besides (the second thread's DTV: the victim frees all its blocks) was live at the
# peak too, so peak_bytes is the victim's peak plus live_at_exit_bytes, to the byte. Seeds fixed.
# Also with another allocator preloaded after tprof.
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
for mean in 64k 1k; do
    for seed in 1 2 3; do
        tp TPROF_SAMPLE=$mean TPROF_SAMPLE_SEED=$seed TPROF_JSON="$WORK/s.json" \
            LD_PRELOAD="$TPROF_SO" "$V" >"$WORK/s.out" || fail "victim failed, $mean seed $seed"
        check "$WORK/s.json" "$WORK/s.out" use
        jcheck "$WORK/s.json" "d['memory']['sampling']['samples'] > 0"
    done
done
# The second thread's first call is a free, and it has ended by the report: the count of threads
# that ran is the hooks' (the sampled path must count the thread at its first allocation).
tp TPROF_SAMPLE=64k TPROF_SAMPLE_SEED=1 TPROF_JSON="$WORK/j.json" LD_PRELOAD="$TPROF_SO" "$V" join \
    >/dev/null || fail "victim failed (join)"
jcheck "$WORK/j.json" "d['program']['threads'] == 2"
# Another allocator after tprof in the lookup chain (bench/fwdshim.c, which forwards to glibc's):
# the sampled mode does not read glibc's chunk headers then, it asks malloc_usable_size; exact all
# the same.
cc -O2 -shared -fPIC -o "$WORK/fwd.so" "$TS/../bench/fwdshim.c" -ldl || fail "building fwdshim"
tp TPROF_SAMPLE=64k TPROF_SAMPLE_SEED=1 TPROF_JSON="$WORK/f.json" \
    LD_PRELOAD="$TPROF_SO $WORK/fwd.so" "$V" >"$WORK/f.out" || fail "victim failed over fwdshim"
check "$WORK/f.json" "$WORK/f.out" use
exit 0
