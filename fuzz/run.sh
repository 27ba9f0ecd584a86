#!/bin/sh
# Build and run every fuzz target for a bounded time: fuzz/run.sh [TARGET...]
# TARGET: json_read, env (default: both). FUZZ_SECONDS (default 60) is the time per target;
# FUZZ_OUT (default $TMPDIR/tprof-fuzz) keeps the binaries, a working corpus per target (it
# grows from run to run; the seeds in fuzz/corpus are never written) and findings-TARGET/.
# Exit status 1 if a target found something. Not part of make check or CI: see fuzz/README.md.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
secs=${FUZZ_SECONDS:-60}
out=${FUZZ_OUT:-${TMPDIR:-/tmp}/tprof-fuzz}
[ $# -gt 0 ] || set -- json_read env
mkdir -p "$out" || exit 2
status=0
for t in "$@"; do
	bin=$out/fuzz_$t
	corpus=$out/corpus-$t
	findings=$out/findings-$t
	mkdir -p "$corpus" "$findings"
	case $t in
	json_read)
		cp "$here"/corpus/*.json "$corpus"/
		# (the loop has expanded its list already: "$@" is free for the options)
		set -- -max_len=65536 -dict="$here/json.dict" "$corpus" "$top/tests/fixtures" ;;
	env)
		cp "$here"/corpus/env/* "$corpus"/
		set -- -dict="$here/env.dict" "$corpus" ;;
	*)
		echo "fuzz/run.sh: unknown target '$t' (json_read, env)" >&2
		exit 2 ;;
	esac
	"$here/build.sh" "$bin" || { echo "fuzz/run.sh: cannot build fuzz_$t" >&2; exit 2; }
	"$bin" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$findings/" "$@" \
		> "$out/$t.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
	if [ $rc -eq 0 ]; then
		echo "fuzz_$t: ${runs:-?} inputs in $secs s, nothing found (log: $out/$t.log)"
	else
		status=1
		echo "fuzz_$t: FOUND something after ${runs:-?} inputs (exit $rc):"
		grep -E '^(fuzz_|SUMMARY|==[0-9]+==ERROR)|runtime error|Test unit written' "$out/$t.log" | head -5
		echo "  replay: $bin $findings/<file>; full log: $out/$t.log"
	fi
done
exit $status
