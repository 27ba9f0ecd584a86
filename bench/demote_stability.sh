#!/bin/sh
# Whether the same program gets the same timed/demoted ops run after run on a loaded machine
# (issue 28: with the mean of the judged calls, an op was timed in 4 runs of 14 and demoted in
# the 10 others). Runs PROGRAM RUNS times under tprof with no setting (but TPROF_JSON), beside
# BUSY busy loops, and prints each run's demoted ops, then how many distinct sets there were.
# Not run by make check: it depends on the machine's load by design.
#
# Usage: bench/demote_stability.sh BUILD_DIR PROGRAM [ARGS...]
# Environment: RUNS (default 10), BUSY (busy loops, default: the CPUs allowed), TPROF_SO (another
# build of the library, to compare).
set -u
B=$(cd "${1:?usage: bench/demote_stability.sh BUILD_DIR PROGRAM [ARGS...]}" && pwd)
shift
SO=${TPROF_SO:-$B/.libs/libtprof.so}
[ -f "$SO" ] || { echo "bench: $SO missing: build first" >&2; exit 2; }
RUNS=${RUNS:-10}
BUSY=${BUSY:-$(nproc)}
W=$(mktemp -d)
pids=
for i in $(seq "$BUSY"); do
    sh -c 'while :; do :; done' &
    pids="$pids $!"
done
trap 'kill $pids 2>/dev/null; rm -rf "$W"' EXIT
echo "program: $*; $RUNS runs beside $BUSY busy loops"
for i in $(seq "$RUNS"); do
    TPROF_OUTPUT=none TPROF_JSON="$W/$i.json" LD_PRELOAD="$SO" "$@" > /dev/null 2>&1 ||
        { echo "bench: run $i failed" >&2; exit 1; }
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
dem = sorted(o["name"] for o in d["ops"] if o["demoted"])
print(len(d["ops"]), "ops,", len(dem), "demoted:", " ".join(dem))' "$W/$i.json" | tee -a "$W/sets"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "distinct demoted sets over $RUNS runs: $(sed 's/^[0-9]* ops, //' "$W/sets" | sort -u | wc -l)"
