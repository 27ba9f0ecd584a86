#!/bin/sh
# How well the measured -finstrument-functions hook cost corrects op times: tests/victims/v_cyg_cost
# runs the same work with 40,000 nested hooks per call (hooked_matmul) and with none
# (plain_matmul). Without a correction (TPROF_HOOK_NS=0) hooked_matmul's median looks several
# times plain_matmul's; with the cost measured at start-up the two medians should come out
# close (ratio near 1). Runs alternate between the two modes so that load hits both alike; prints
# each run's ratio and the median per mode. Usage: bench/run_hook_cost.sh BUILD_DIR [RUNS]
set -e
top=${1:-.}; runs=${2:-5}
V=$top/tests/victims/v_cyg_cost; SO=$top/.libs/libtprof.so
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ratio() {
  python3 -c "import json,sys; o={x['name']: x for x in json.load(open(sys.argv[1]))['ops']}; \
print('%.2f' % (o['hooked_matmul']['latency_ns']['p50'] / o['plain_matmul']['latency_ns']['p50']))" "$1"
}
off=; meas=
i=0
while [ "$i" -lt "$runs" ]; do
  for mode in off measured; do
    if [ "$mode" = off ]; then set -- TPROF_HOOK_NS=0; else set --; fi
    env "$@" TPROF_OPS='*matmul*,*conv*' TPROF_OUTPUT=none TPROF_JSON="$tmp/$mode.json" \
      LD_PRELOAD="$SO" "$V" > /dev/null
    r=$(ratio "$tmp/$mode.json")
    if [ "$mode" = off ]; then off="$off $r"; else meas="$meas $r"; fi
  done
  i=$((i + 1))
done
med() { printf '%s\n' $1 | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
echo "hooked/plain median latency, TPROF_HOOK_NS=0:      $off  (median $(med "$off"))"
echo "hooked/plain median latency, measured hook cost:   $meas  (median $(med "$meas"))"
