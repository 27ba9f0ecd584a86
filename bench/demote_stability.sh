#!/bin/sh
# Whether the same program gets the same timed/demoted ops run after run on a loaded machine
# (issue 28: with the mean of the judged calls, an op was timed in 4 runs of 14 and demoted in
# the 10 others; with the median, this run's measured hook cost still moved the line with the
# load). Runs PROGRAM RUNS times in each of two ways, alternately so that both see the same load,
# beside BUSY busy loops, under tprof with no setting but TPROF_JSON (and what the environment
# gives, e.g. TPROF_DEMOTE):
#   run   a fresh cache each run: the line is drawn from this run's measured hook cost
#   host  one cache kept over the runs (after WARM runs that fill it): the line is drawn from
#         the host's lowest measured cost (report/peaks/hookcache.c)
# and prints each run's line, where it came from and its demoted ops, then how many distinct
# demoted sets each way had. The user's own cache is not touched. Not run by make check: it
# depends on the machine's load by design.
#
# Usage: bench/demote_stability.sh BUILD_DIR PROGRAM [ARGS...]
# Environment: RUNS (default 10), WARM (default 3), BUSY (busy loops, default: the CPUs
# allowed), TPROF_SO (another build of the library, to compare).
# E.g. TPROF_DEMOTE=20 bench/demote_stability.sh . tests/victims/v_adapt ladder
set -u
B=$(cd "${1:?usage: bench/demote_stability.sh BUILD_DIR PROGRAM [ARGS...]}" && pwd)
shift
SO=${TPROF_SO:-$B/.libs/libtprof.so}
[ -f "$SO" ] || { echo "bench: $SO missing: build first" >&2; exit 2; }
RUNS=${RUNS:-10}
WARM=${WARM:-3}
BUSY=${BUSY:-$(nproc)}
W=$(mktemp -d)
pids=
for i in $(seq "$BUSY"); do
    sh -c 'while :; do :; done' &
    pids="$pids $!"
done
trap 'kill $pids 2>/dev/null; rm -rf "$W"' EXIT
run() {
    way=$1 i=$2 dir=$3
    shift 3
    XDG_CACHE_HOME="$dir" TPROF_OUTPUT=none TPROF_JSON="$W/$way$i.json" LD_PRELOAD="$SO" "$@" \
        > /dev/null 2>&1 || { echo "bench: run $way $i failed" >&2; exit 1; }
    python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
p = d["program"]
dem = sorted(o["name"] for o in d["ops"] if o["demoted"])
print("%-4s line %6.1f ns (%-9s) %d ops, %d demoted: %s" % (sys.argv[2], p["demote_line_ns"],
      p["demote_line_from"], len(d["ops"]), len(dem), " ".join(dem)))' "$W/$way$i.json" "$way" |
        tee -a "$W/$way.sets"
}
echo "program: $*; $RUNS runs each way beside $BUSY busy loops, $WARM runs first for the host's cache"
for i in $(seq "$WARM"); do
    run warm "$i" "$W/host" "$@" > /dev/null
done
for i in $(seq "$RUNS"); do
    run run "$i" "$W/fresh$i" "$@"
    run host "$i" "$W/host" "$@"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# The line is what this change holds still; an op's own calls may still move across it (a busy
# SMT sibling slows every call of the window judged), which the sets count too.
for way in run host; do
    echo "$way: distinct lines $(sed 's/ ns .*//' "$W/$way.sets" | sort -u | wc -l)," \
        "distinct demoted sets $(sed 's/.*demoted: //' "$W/$way.sets" | sort -u | wc -l) over $RUNS runs"
done
