#!/bin/bash
# A/B of tprof builds on short processes: make -j2 of bench/exit_cost.sh's 25-file C project,
# natively and under `tprof run --lib SO` for each libtprof.so given, interleaved (native, SO1,
# SO2, ... in turn, REPS rounds, so that the machine's load hits all alike); prints each round's
# wall and CPU ratios to native (the spread), then the medians. CPU time (user + system, with the
# children waited for) does not count the time a process waited for a core, which wall time does
# on a loaded machine. Also the per-process start-up cost: /bin/true run N times through a shell
# loop, natively and with each SO preloaded as a child of a profiled run (TPROF_ROOT_PID set).
# Usage: bench/make_ab.sh BUILD SO...   (BUILD: a build tree with tprof)
# Environment: REPS (default 7), JSON=1 (a JSON report per process, --output none --json %p),
# TRUE_RUNS (default 300; 0 to skip).
set -u
die() { echo "make_ab: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: bench/make_ab.sh BUILD SO..."
B=$(cd "$1" && pwd) || die "$1: no such directory"
shift
[ -x "$B/tprof" ] || die "$B: no tprof built there"
for so in "$@"; do [ -f "$so" ] || die "$so: no such file"; done
REPS=${REPS:-7}
JSON=${JSON:-0}
TRUE_RUNS=${TRUE_RUNS:-300}
W=$(mktemp -d /tmp/tprof-mab.XXXXXX) || die "cannot make a temporary directory"
trap 'rm -rf "$W"' EXIT
# the project: exit_cost.sh's own generator
eval "$(sed -n '/^gen_project()/,/^case_gcc()/p' "$(dirname "$0")/exit_cost.sh" | sed '$d')"
gen_project

once() { # key cmd...: wall and CPU seconds appended to $W/key
    local key=$1 s e
    shift
    make -s -C "$W/proj" clean > /dev/null
    rm -f "$W"/m.*.json
    s=$EPOCHREALTIME
    /usr/bin/time -f "%U %S" -o "$W/cpu" "$@" > /dev/null 2> "$W/err" ||
        { echo "make_ab: $key failed: $(tail -3 "$W/err")" >&2; exit 1; }
    e=$EPOCHREALTIME
    awk -v s="$s" -v e="$e" '{ printf "%.4f %.3f\n", e - s, $1 + $2 }' "$W/cpu" >> "$W/$key"
}
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "make_ab: make -j2, 25 files, $REPS rounds$([ "$JSON" = 1 ] && echo ', a JSON report per process'); load average $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$REPS"); do
    once native make -s -C "$W/proj" -j2
    i=0
    for so in "$@"; do
        i=$((i + 1))
        if [ "$JSON" = 1 ]; then
            once "so$i" "$B/tprof" run --lib "$so" --output none --json "$W/m.%p.json" -- make -s -C "$W/proj" -j2
        else
            once "so$i" "$B/tprof" run --lib "$so" -- make -s -C "$W/proj" -j2
        fi
    done
done
n=$(cut -d' ' -f1 "$W/native" | median)
nc=$(cut -d' ' -f2 "$W/native" | median)
printf "%-40s %8s %7s %8s %7s   %s\n" build "wall s" ratio "cpu s" ratio "each round: wall (cpu) ratio"
printf "%-40s %8s %7s %8s %7s\n" native "$n" 1.00x "$nc" 1.00x
i=0
for so in "$@"; do
    i=$((i + 1))
    t=$(cut -d' ' -f1 "$W/so$i" | median)
    tc=$(cut -d' ' -f2 "$W/so$i" | median)
    rounds=$(paste -d' ' "$W/native" "$W/so$i" | awk '{ printf "%.2f (%.2f) ", $3 / $1, ($2 > 0 ? $4 / $2 : 0) }')
    awk -v l="$so" -v t="$t" -v n="$n" -v c="$tc" -v nc="$nc" -v r="$rounds" \
        'BEGIN { printf "%-40s %8.3f %6.2fx %8.3f %6.2fx   %s\n", l, t, t / n, c, c / nc, r }'
done

if [ "$TRUE_RUNS" -gt 0 ]; then
    # /bin/true, each variant TRUE_RUNS times in a row, the variants in turn 3 times; per run
    : > "$W/true"
    for r in 1 2 3; do
        for v in native "$@"; do
            s=$EPOCHREALTIME
            if [ "$v" = native ]; then
                for k in $(seq "$TRUE_RUNS"); do /bin/true; done
            else
                for k in $(seq "$TRUE_RUNS"); do TPROF_ROOT_PID=1:1 LD_PRELOAD="$v" /bin/true; done
            fi
            e=$EPOCHREALTIME
            echo "$v $(awk -v s="$s" -v e="$e" -v n="$TRUE_RUNS" 'BEGIN { printf "%.3f", (e - s) / n * 1000 }')" >> "$W/true"
        done
    done
    echo "/bin/true through a shell loop, ms a run (best of 3 batches of $TRUE_RUNS):"
    for v in native "$@"; do
        printf "  %-40s %s\n" "$v" "$(awk -v v="$v" '$1 == v { print $2 }' "$W/true" | sort -g | head -1)"
    done
fi
echo "make_ab: load average at the end $(cut -d' ' -f1-3 /proc/loadavg)"
