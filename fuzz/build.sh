#!/bin/sh
# Build the libFuzzer target for the JSON reader: fuzz/build.sh [OUT]  (default ./fuzz_json_read)
# Needs clang and its runtime (Debian: apt-get install clang libclang-rt-14-dev) and
# libjson-c-dev. See fuzz/README.md.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=${1:-./fuzz_json_read}
CC=${CC:-clang}
# shellcheck disable=SC2046 # pkg-config output is a list of flags
exec "$CC" -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -I"$top/src" -I"$top/include" -I"$top/fuzz" $(pkg-config --cflags json-c) \
	"$here/fuzz_json_read.c" "$here/shim_diff.c" "$here/shim_merge.c" \
	"$top/src/json_read.c" "$top/src/sitekey.c" "$top/src/report.c" "$top/src/buf.c" \
	"$top/src/analyze.c" "$top/src/render_json.c" "$top/src/render_text.c" "$top/src/units.c" \
	"$top/src/config.c" \
	$(pkg-config --libs json-c) -lm -o "$out"
