#!/bin/sh
# Overhead of tprof on allocation churn, side by side with heaptrack, measured in one run.
# Usage: bench/run.sh [BUILD_DIR]   (default: the current directory, a configured build tree)
# The configurations run round-robin, REPS rounds, so that a noisy machine slows all of them
# alike; each figure is the median of its REPS times. Prints seconds, ratio to native, and the
# nanoseconds tprof adds per malloc/free pair.
set -u
B=${1:-.}
SO="$B/.libs/libtprof.so"
CHURN="$B/bench/churn"
OPS=${OPS:-1000000}
REPS=${REPS:-7}
[ -x "$CHURN" ] || { echo "bench: $CHURN not built (make bench)"; exit 2; }
[ -f "$SO" ] || { echo "bench: $SO not built"; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
HT=0
command -v heaptrack > /dev/null && HT=1

run() { # name cmd...: append one wall time to $W/name
  name=$1; shift
  s=$(date +%s.%N); "$@" > /dev/null 2>&1; e=$(date +%s.%N)
  echo "$e - $s" | bc -l >> "$W/$name"
}
median() { sort -n "$W/$1" | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
row() { # label threads seconds native
  awk -v l="$1" -v t="$2" -v s="$3" -v n="$4" -v ops="$OPS" 'BEGIN {
    printf "%-28s %7d %9.3f %8.2fx %12.0f\n", l, t, s, s / n, (s - n) * 1e9 / (ops * t) }'
}

echo "allocation churn: $OPS malloc/free pairs per thread, sizes 64 B - 4 MiB,"
echo "median of $REPS round-robin rounds; $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
printf "%-28s %7s %9s %9s %12s\n" "configuration" "threads" "seconds" "ratio" "ns/pair added"
for t in 1 2; do
  for r in $(seq "$REPS"); do
    run "native$t" "$CHURN" --ops "$OPS" --threads "$t"
    run "tp8_$t" env LD_PRELOAD="$SO" TPROF_OUTPUT=none "$CHURN" --ops "$OPS" --threads "$t"
    run "tp1_$t" env LD_PRELOAD="$SO" TPROF_OUTPUT=none TPROF_STACK=1 "$CHURN" --ops "$OPS" --threads "$t"
    [ $HT = 1 ] && run "ht$t" heaptrack -r -o "$W/ht" "$CHURN" --ops "$OPS" --threads "$t"
  done
  n=$(median "native$t"); s=$(median "tp8_$t"); s1=$(median "tp1_$t")
  row "native" "$t" "$n" "$n"
  row "tprof (TPROF_STACK=8)" "$t" "$s" "$n"
  row "tprof (TPROF_STACK=1)" "$t" "$s1" "$n"
  if [ $HT = 1 ]; then
    h=$(median "ht$t")
    row "heaptrack -r (record only)" "$t" "$h" "$n"
    awk -v s="$s" -v s1="$s1" -v h="$h" -v n="$n" -v t="$t" 'BEGIN {
      a = (s - n); b = (h - n);
      printf "  threads %d: tprof default adds %.2f of heaptrack'"'"'s time per pair (target <= 0.20): %s\n", t, a / b, a / b <= 0.2 ? "PASS" : "MISS";
      printf "  threads %d: TPROF_STACK=1 is %.2fx native (target <= 1.10): %s\n", t, s1 / n, s1 / n <= 1.1 ? "PASS" : "MISS" }'
  else
    echo "  (heaptrack not installed: apt-get install heaptrack)"
  fi
done
