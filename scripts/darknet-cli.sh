#!/bin/sh
# Build darknet's command-line program from Debian's source package, for profiling with tprof.
#
#   scripts/darknet-cli.sh [--own-lib | --instrument] OUTDIR
#
# Debian's /usr/bin/darknet has the whole library linked in statically and is stripped, so tprof
# sees only its heap. This script builds the same program (examples/*.c of the darknet version
# that is installed) against a shared libdarknet.so instead, so that gemm, im2col_cpu and the
# layers are calls into a shared library, which tprof hooks through the PLT (docs/darknet.md):
#   (default)   linked to Debian's /usr/lib/darknet/libdarknet.so, built with OpenCV;
#   --own-lib   linked to a libdarknet.so built here from the same source without OpenCV (plain
#               C, no C++ runtime: see docs/darknet.md for why that matters to tprof).
#   --instrument  the same, library and program built with -finstrument-functions: every
#               function of darknet's is seen by tprof's hooks, static ones included (the
#               benchmark of ops too short to time, bench/RESULTS.md).
# Prints the path of the program. The source is fetched once with `apt-get source` (a private
# deb-src list made from the system's Debian entries: /etc/apt is not touched) into OUTDIR, or
# taken from DARKNET_SRC (an unpacked source tree); what is built is kept in OUTDIR and reused.
# DARKNET_OPT sets the optimization of the --own-lib library (default upstream's -Ofast; the
# tests use -O1, which compiles twice as fast and makes the same calls).
# Needs the darknet package, a C compiler, and dpkg-source (dpkg-dev). Exit 1 with one line on
# stderr saying why when the program cannot be built.
set -eu
own=0 instr=
[ "${1:-}" = --own-lib ] && { own=1; shift; }
[ "${1:-}" = --instrument ] && { own=1; instr=-finstrument-functions; shift; }
[ $# -eq 1 ] || { echo "usage: $0 [--own-lib | --instrument] OUTDIR" >&2; exit 2; }
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
CC=${CC:-cc}
die() { echo "darknet-cli: $*" >&2; exit 1; }
LIBDIR=/usr/lib/darknet
[ -f $LIBDIR/libdarknet.so ] && [ -f $LIBDIR/include/darknet.h ] ||
  die "darknet is not installed (apt-get install darknet)"
ver=$(dpkg-query -W -f='${source:Version}' darknet 2>/dev/null) || die "dpkg does not know darknet"
opt=${DARKNET_OPT:--Ofast}
if [ -n "$instr" ]; then dst=$OUT/instr; stamp="$ver $opt $instr"
elif [ $own = 1 ]; then dst=$OUT/own; stamp="$ver $opt"; else dst=$OUT/debian; stamp=$ver; fi
# A second caller (tests run in parallel) waits for the first build rather than redo it.
exec 9> "$OUT/.lock"
flock 9
if [ -x "$dst/darknet" ] && [ "$(cat "$dst/stamp" 2>/dev/null)" = "$stamp" ]; then
  echo "$dst/darknet"; exit 0
fi

# The source of the installed version (the program must match the library's structures).
src=${DARKNET_SRC:-$OUT/darknet-$ver}
if [ ! -f "$src/examples/darknet.c" ]; then
  [ -z "${DARKNET_SRC:-}" ] || die "DARKNET_SRC=$DARKNET_SRC has no examples/darknet.c"
  command -v dpkg-source > /dev/null || die "dpkg-source is missing (apt-get install dpkg-dev)"
  A=$OUT/apt
  rm -rf "$A" && mkdir -p "$A/lists/partial" "$A/dl"
  apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(COMPONENT)' 'Identifier: Packages' \
    'Origin: Debian' 2>/dev/null | sort -u | while read -r uri rel comp; do
    echo "deb-src $uri $rel $comp"
  done > "$A/sources.list"
  [ -s "$A/sources.list" ] || die "no Debian entry in apt's sources to derive a deb-src from"
  set -- -o Dir::Etc::SourceList="$A/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
    -o Dir::State::Lists="$A/lists" -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=
  apt-get "$@" -qq update > "$A/log" 2>&1 ||
    die "apt-get update of the deb-src index failed: $(grep -v '^W:' "$A/log" | tail -n 1)"
  (cd "$A/dl" && apt-get "$@" -qq --download-only source "darknet=$ver") >> "$A/log" 2>&1 ||
    die "apt-get source darknet=$ver failed: $(grep -v '^W:' "$A/log" | tail -n 1)"
  rm -rf "$src.tmp"
  dpkg-source --no-copy -x "$A/dl"/darknet_*.dsc "$src.tmp" >> "$A/log" 2>&1 ||
    die "dpkg-source -x failed: $(tail -n 1 "$A/log")"
  mv "$src.tmp" "$src"
  rm -rf "$A"
fi

# The file lists come from the source's own Makefile: EXECOBJA is the program, OBJ the library.
objs() { sed -n "s/^$1=//p" "$src/Makefile" | tr ' ' '\n' | sed -n 's/\.o$//p'; }
# Compile "$@" (C files) into $tmp, in parallel, with $cflags.
compile() {
  export CC cflags tmp
  printf '%s\n' "$@" | xargs -P "$(nproc)" -I{} sh -c \
    'exec $CC $cflags -c "$1" -o "$tmp/$(basename "$1" .c).o"' compile {} ||
    die "compiling darknet failed (CC=$CC)"
}
rm -rf "$dst.tmp"
mkdir -p "$dst.tmp"
tmp=$dst.tmp
if [ $own = 1 ]; then
  # The library as upstream's Makefile builds it with OPENCV=0 (Debian adds OPENCV=1): -Ofast,
  # -fPIC, every object but the C++ OpenCV glue (image_opencv.cpp).
  files=
  for o in $(objs OBJ); do
    [ "$o" = image_opencv ] || files="$files $src/src/$o.c"
  done
  cflags="$opt $instr -fPIC -w -I$src/include -I$src/src"
  compile $files
  $CC -shared -Wl,-soname,libdarknet.so -o "$tmp/libdarknet.so" "$tmp"/*.o -lm -pthread ||
    die "linking libdarknet.so failed"
  rm -f "$tmp"/*.o
  inc=$src/include; defs=; libdir=$dst
else
  # Debian's header, as its library was built: with OPENCV (which only adds declarations).
  inc=$LIBDIR/include; defs=-DOPENCV; libdir=$LIBDIR
fi
files=
for o in $(objs EXECOBJA); do files="$files $src/examples/$o.c"; done
cflags="-O1 $instr -w $defs -I$inc"
compile $files
$CC -o "$tmp/darknet" "$tmp"/*.o -L"$tmp" -L"$libdir" -Wl,-rpath,"$libdir" -ldarknet -lm -pthread ||
  die "linking the darknet program failed"
rm -f "$tmp"/*.o
echo "$stamp" > "$tmp/stamp"
rm -rf "$dst"
mv "$tmp" "$dst"
echo "$dst/darknet"
