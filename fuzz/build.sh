#!/bin/sh
# Build a libFuzzer target: fuzz/build.sh [OUT]  (default ./fuzz_json_read). The name of OUT
# says which target: fuzz_json_read (the JSON reader) or fuzz_env (the TPROF_* parser).
# Needs clang and its runtime (Debian: apt-get install clang libclang-rt-14-dev) and
# libjson-c-dev. See fuzz/README.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${1:-./fuzz_json_read}
CC=${CC:-clang}
flags="-std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
case $(basename "$out") in
fuzz_json_read*)
	# shellcheck disable=SC2046,SC2086 # pkg-config output and $flags are lists of flags
	exec "$CC" $flags \
		-D_GNU_SOURCE -I"$top" -I"$top/include" -I"$top/fuzz" $(pkg-config --cflags json-c) \
		"$here/fuzz_json_read.c" "$here/shim_diff.c" "$here/shim_merge.c" \
		"$top/cli/json_read.c" "$top/cli/json_get.c" "$top/cli/diff.c" "$top/cli/diff_grid.c" "$top/cli/diff_rollup.c" "$top/cli/merge.c" "$top/cli/merge_rollup.c" "$top/cli/merge_cpu.c" "$top/cli/merge_latency.c" "$top/cli/sitekey.c" "$top/report/report.c" "$top/report/sitelines.c" "$top/common/buf.c" \
		"$top/report/analyze.c" "$top/report/render_json.c" "$top/report/render_text.c" "$top/report/render_text_memory.c" "$top/report/render_text_steps.c" "$top/report/render_text_layout.c" "$top/report/units.c" "$top/report/siteclass.c" "$top/report/peaks.c" "$top/report/peaks_text.c" "$top/report/series.c" "$top/report/calib.c" "$top/report/calib_cond.c" "$top/report/cpuverdict.c" "$top/report/peaks_file.c" "$top/report/advice.c" "$top/report/opwait.c" "$top/report/render_text_wait.c" \
		"$top/common/config.c" "$top/common/parse.c" "$top/common/fileio.c" "$top/common/path.c" "$top/common/suppress.c" "$top/common/pages.c" "$top/common/escape.c" "$top/common/namewalk.c" "$top/common/procstat.c" "$top/common/workspec.c" "$top/common/workabi.c" \
		$(pkg-config --libs json-c) -lm -o "$out" ;;
fuzz_env*)
	# shellcheck disable=SC2086
	exec "$CC" $flags -D_GNU_SOURCE -I"$top" "$here/fuzz_env.c" "$top/common/config.c" "$top/common/parse.c" "$top/common/fileio.c" "$top/common/path.c" "$top/common/suppress.c" "$top/common/escape.c" "$top/common/namewalk.c" "$top/common/workspec.c" "$top/common/workabi.c" "$top/common/opsmatch.c" -lm -o "$out" ;;
*)
	echo "fuzz/build.sh: $out: the name must start with a target: fuzz_json_read or fuzz_env" >&2
	exit 2 ;;
esac
