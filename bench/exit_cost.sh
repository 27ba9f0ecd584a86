#!/bin/bash
# What tprof's exit costs the programs that scripts and build systems run by the hundred: each case
# run natively and under tprof, interleaved (native, tprof, native, ... so that the machine's load
# hits both alike), REPS rounds; prints the median wall time of each and the ratio. Cases:
#   gcc       gcc -c of a one-line file (cc1 has ~29,000 symbols)
#   make      make -j2 of a generated 25-file C project; under `tprof run` (the root's report on
#             stderr, none from its children), and with a JSON report per process (--json %p)
#   pipeline  a bash pipeline of a few hundred short processes
#   script    a bash script of 909 processes (900 x /bin/true, then ls, date, cat, wc, ...), with a
#             JSON report per process (TPROF_JSON=%p) and with the root's text report only; with
#             BEFORE=path/libtprof.so, that build too, in the same rounds
#   torch     python3-torch's MLP (skipped without it): wall time and report time (from the
#             script's last statement to the process's exit), with TPROF_OUTPUT=none and no JSON,
#             and with a JSON report; tprof's share is that time less the native one
# Times in seconds. Usage: bench/exit_cost.sh BUILD [CASE...]   (BUILD: a build tree with tprof and .libs/libtprof.so)
# Environment: REPS (default 5), LIB (another libtprof.so to measure, e.g. a build before a change),
# BEFORE (script: a second libtprof.so measured in the same rounds).
set -u
die() { echo "exit_cost: $*" >&2; exit 2; }
[ $# -ge 1 ] || die "usage: bench/exit_cost.sh BUILD [gcc make pipeline script torch]"
B=$(cd "$1" && pwd) || die "$1: no such directory"
shift
CASES=${*:-gcc make pipeline script torch}
TPROF="$B/tprof"
LIB=${LIB:-$B/.libs/libtprof.so}
[ -x "$TPROF" ] && [ -f "$LIB" ] || die "$B: no tprof or libtprof.so built there"
REPS=${REPS:-5}
W=$(mktemp -d /tmp/tprof-exit.XXXXXX) || die "cannot make a temporary directory"
trap 'rm -rf "$W"' EXIT

now() { date +%s.%N; }
# once KEY CMD...: run CMD (stdout and stderr to files), append its wall time to $W/KEY and its
# CPU time (user + system, with the children it waited for) to $W/KEY.cpu: CPU time does not
# count the time a process waited for a core, which wall time does on a loaded machine.
once() {
    local key=$1 s e
    shift
    s=$(now)
    /usr/bin/time -f "%U %S" -o "$W/cpu" "$@" > "$W/out" 2> "$W/err" ||
        { echo "exit_cost: $key failed: $(tail -3 "$W/err")" >&2; exit 1; }
    e=$(now)
    echo "$s $e" | awk '{ printf "%.4f\n", $2 - $1 }' >> "$W/$key"
    awk '{ printf "%.3f\n", $1 + $2 }' "$W/cpu" >> "$W/$key.cpu"
}
median() { sort -g "$W/$1" | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { awk -v n="$1" -v t="$2" 'BEGIN { printf "%.2fx", (n > 0 ? t / n : 0) }'; }
row() { # label native-key tprof-key: median wall times and their ratio, then the CPU times'
    local n t nc tc
    n=$(median "$2")
    t=$(median "$3")
    if [ -f "$W/$2.cpu" ]; then
        nc=$(median "$2.cpu")
        tc=$(median "$3.cpu")
        printf "%-44s %8s %8s %6s %8s %8s %6s\n" "$1" "$n" "$t" "$(ratio "$n" "$t")" "$nc" "$tc" "$(ratio "$nc" "$tc")"
    else
        printf "%-44s %8s %8s %6s\n" "$1" "$n" "$t" "$(ratio "$n" "$t")"
    fi
}
header() { printf "%-44s %8s %8s %6s %8s %8s %6s\n" "$1" "native" "tprof" "ratio" "cpu nat" "cpu tp" "ratio"; }
TP=("$TPROF" run --lib "$LIB")

gen_project() { # 25 C files of a few functions each, and their Makefile
    local d=$W/proj i
    mkdir -p "$d"
    for i in $(seq 1 25); do
        cat > "$d/f$i.c" <<SRC
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct item$i { int k; double v; char name[32]; };
static int cmp$i(const void *a, const void *b) { return ((const struct item$i *)a)->k - ((const struct item$i *)b)->k; }
double work$i(int n)
{
    struct item$i *v = calloc((size_t)n, sizeof *v);
    double s = 0;
    for (int j = 0; j < n; j++) { v[j].k = (j * 7919) % n; v[j].v = j * 0.5; snprintf(v[j].name, sizeof v[j].name, "i%d", j); }
    qsort(v, (size_t)n, sizeof *v, cmp$i);
    for (int j = 0; j < n; j++) s += v[j].v * (double)strlen(v[j].name);
    free(v);
    return s;
}
SRC
    done
    { echo "OBJS = $(for i in $(seq 1 25); do printf 'f%d.o ' "$i"; done)"
      printf 'all: $(OBJS)\n%%.o: %%.c\n\t$(CC) -O2 -c $< -o $@\nclean:\n\trm -f $(OBJS)\n'; } > "$d/Makefile"
}

case_gcc() {
    echo 'int one(void) { return 1; }' > "$W/one.c"
    for r in $(seq "$REPS"); do
        once gcc.n gcc -c "$W/one.c" -o "$W/one.o"
        once gcc.t "${TP[@]}" -- gcc -c "$W/one.c" -o "$W/one.o"
        once gcc.j "${TP[@]}" --output none --json "$W/g.%p.json" -- gcc -c "$W/one.c" -o "$W/one.o"
    done
    header "gcc -c of a one-line file"
    row "tprof run -- gcc -c one.c" gcc.n gcc.t
    row "  a JSON report per process (--json %p)" gcc.n gcc.j
}

case_make() {
    gen_project
    for r in $(seq "$REPS"); do
        make -s -C "$W/proj" clean > /dev/null
        once make.n make -s -C "$W/proj" -j2
        make -s -C "$W/proj" clean > /dev/null
        once make.t "${TP[@]}" -- make -s -C "$W/proj" -j2
        make -s -C "$W/proj" clean > /dev/null
        rm -f "$W"/m.*.json
        once make.j "${TP[@]}" --output none --json "$W/m.%p.json" -- make -s -C "$W/proj" -j2
    done
    header "make -j2 of a 25-file C project"
    row "tprof run -- make -j2" make.n make.t
    row "  a JSON report per process ($(ls "$W"/m.*.json | wc -l) reports)" make.n make.j
}

case_pipeline() {
    local p='for i in $(seq 1 100); do echo "$i abc" | tr a-z A-Z | sort | wc -c; done | sort -n | uniq -c | wc -l'
    for r in $(seq "$REPS"); do
        once pipe.n bash -c "$p"
        once pipe.t "${TP[@]}" -- bash -c "$p"
    done
    header "bash pipeline (about 400 processes)"
    row "tprof run -- bash -c '...'" pipe.n pipe.t
}

case_script() {
    printf '%s\n' 'for i in $(seq 900); do /bin/true; done' \
        'ls / > /dev/null; date > /dev/null; cat /etc/hostname > /dev/null; echo hi | wc -c > /dev/null' \
        'uname > /dev/null; sort /etc/passwd > /dev/null; head -1 /etc/passwd > /dev/null' > "$W/s.sh"
    local libs="$LIB" l k
    [ -n "${BEFORE:-}" ] && libs="$BEFORE $LIB"
    for r in $(seq "$REPS"); do
        once script.n bash "$W/s.sh"
        k=0
        for l in $libs; do
            k=$((k + 1))
            rm -rf "$W/r"
            mkdir "$W/r"
            once "script.j$k" env XDG_CACHE_HOME="$W/xdg" TPROF_OUTPUT=none TPROF_JSON="$W/r/%p.json" \
                LD_PRELOAD="$l" bash "$W/s.sh"
            once "script.t$k" env XDG_CACHE_HOME="$W/xdg" LD_PRELOAD="$l" bash "$W/s.sh"
        done
    done
    k=0
    for l in $libs; do
        k=$((k + 1))
        header "bash script of 909 processes, $l"
        row "a JSON report per process ($(ls "$W/r" | wc -l) reports)" script.n "script.j$k"
        row "the root's text report only" script.n "script.t$k"
    done
}

case_torch() {
    /usr/bin/python3 -c 'import torch' 2> /dev/null || { echo "torch: python3-torch not installed; skipped"; return; }
    cat > "$W/mlp.py" <<'PY'
import sys, time, torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(32, 64); y = torch.randint(0, 10, (32,))
for i in range(int(sys.argv[1])):
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
sys.stderr.write("MAIN_END %.6f\n" % time.time())
PY
    torch_once() { # key cmd...: wall time, and from MAIN_END to the exit into KEY.end
        local key=$1 e
        shift
        once "$key" "$@"
        e=$(now)
        awk -v e="$e" '/^MAIN_END/ { printf "%.4f\n", e - $2 }' "$W/err" >> "$W/$key.end"
    }
    for r in $(seq "$REPS"); do
        torch_once torch.n /usr/bin/python3 "$W/mlp.py" 200
        torch_once torch.none env TPROF_PLT=0 "$TPROF" run --lib "$LIB" --output none -- /usr/bin/python3 "$W/mlp.py" 200
        torch_once torch.j env TPROF_PLT=0 "$TPROF" run --lib "$LIB" --output none --json "$W/t.json" -- /usr/bin/python3 "$W/mlp.py" 200
    done
    header "python3 torch MLP, 200 steps (TPROF_PLT=0)"
    row "wall, TPROF_OUTPUT=none, no JSON" torch.n torch.none
    row "wall, a JSON report" torch.n torch.j
    row "main's end to exit, TPROF_OUTPUT=none" torch.n.end torch.none.end
    row "main's end to exit, a JSON report ($(($(stat -c %s "$W/t.json") / 1024)) KiB)" torch.n.end torch.j.end
}

echo "exit_cost: $LIB, $REPS rounds, medians; load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
for c in $CASES; do
    "case_$c"
done
