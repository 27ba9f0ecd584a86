#!/bin/sh
# The layers, from the objects' symbols: a file may call only its own folder or a lower one,
#   common/ <- report/ <- track/ <- preload/,   and cli/ over report/ and common/,
# and no file-level cycle anywhere. A call is an undefined symbol of one object that another
# object defines; the names libtprof.so interposes (malloc, dlopen, sgemm_, ...: whatever it
# exports besides the tprof_ API) are libc's or the BLAS's to the caller and do not count, and
# only preload/ may define them.
# Before checking the build, the check is run once with a planted upward call (a common/ object
# calling a preload/ function) and must fail on it, so that a check that finds nothing is known
# to be able to find something.
set -eu
top=${TB:-$(pwd)/tests}/..
srcdir=${TS:-$(dirname "$0")}/..
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

rank() {
  case $1 in
    common) echo 0 ;; report) echo 1 ;; track) echo 2 ;; preload | cli) echo 3 ;;
  esac
}

# "layer/file object" for each object of the build: the PIC objects of the libraries, the CLI's.
list_objects() {
  for layer in common report reporter track preload cli; do
    case $layer in
      common | report | track) prefix=.libs/libtp${layer}_la- ;;
      # the reporter's objects (the CLI's library) lie in report/ too
      reporter) prefix=.libs/libtpreporter_la- layer=report ;;
      preload) prefix=.libs/libtprof_la- ;;
      cli) prefix=tprof- ;;
    esac
    # a subsystem's objects lie in its folder (track/heap/.libs/...)
    for o in "$top/$layer/$prefix"*.o "$top/$layer"/*/"$prefix"*.o; do
      [ -f "$o" ] || continue
      d=$(dirname "$o")
      d=${d%/.libs}
      d=${d#"$top"/}
      f=$(basename "$o" .o)
      f=${f#*-}
      # an object left over from a source file since removed is not part of the build
      [ -f "$srcdir/$d/$f.c" ] || continue
      echo "$d/$f $o"
    done
  done
}

# check OBJLIST: prints each violation and each cycle; exit status 1 if any.
check() {
  : > "$tmp/def"
  : > "$tmp/und"
  while read -r name obj; do
    nm -P --defined-only "$obj" | awk -v n="$name" '$2 ~ /^[TDBRVWCG]$/ { print $1, n }' >> "$tmp/def"
    nm -P -u "$obj" | awk -v n="$name" '{ print n, $1 }' >> "$tmp/und"
  done < "$1"
  # caller callee symbol, one per cross-file call
  awk 'FILENAME == ARGV[1] { allow[$1] = 1; next }
       FILENAME == ARGV[2] { if (!($1 in owner)) owner[$1] = $2; next }
       ($2 in owner) && !($2 in allow) && owner[$2] != $1 { print $1, owner[$2], $2 }' \
    "$tmp/allow" "$tmp/def" "$tmp/und" | sort -u > "$tmp/calls"
  bad=0
  while read -r from to sym; do
    a=${from%%/*} b=${to%%/*}
    if [ "$(rank "$b")" -gt "$(rank "$a")" ] || { [ "$a" != "$b" ] && [ "$(rank "$a")" = "$(rank "$b")" ]; }; then
      echo "layers: $from calls $sym, defined in $to (a higher or sibling layer)"
      bad=1
    fi
  done < "$tmp/calls"
  # Below preload/ nothing defines an interposed name: the tables are plain code.
  awk 'FILENAME == ARGV[1] { allow[$1] = 1; next }
       ($1 in allow) && $2 !~ /^(preload|cli)\// { print "layers: " $2 " defines " $1 ", a name libtprof.so interposes" }' \
    "$tmp/allow" "$tmp/def" > "$tmp/namesakes"
  if [ -s "$tmp/namesakes" ]; then
    cat "$tmp/namesakes"
    bad=1
  fi
  awk '{ print $1, $2 }' "$tmp/calls" | sort -u > "$tmp/edges"
  if ! tsort "$tmp/edges" > /dev/null 2> "$tmp/loops"; then
    echo "layers: file-level cycles (each loop as tsort found it):"
    awk '/input contains a loop/ { printf "%s  loop:", (n++ ? "\n" : ""); next }
         { sub(/^tsort: /, ""); printf " %s", $0 } END { print "" }' "$tmp/loops"
    bad=1
  fi
  return $bad
}

nm -D --defined-only "$top/.libs/libtprof.so" | awk '{ sub(/@.*/, "", $3); if ($3 !~ /^tprof_/) print $3 }' \
  > "$tmp/allow"
list_objects > "$tmp/objects"
[ -s "$tmp/objects" ] || { echo "layers: no objects under $top (build first)"; exit 1; }

# The planted object: in common/, it calls the first tp_ function a preload/ object defines, and
# defines a name libtprof.so interposes (dlclose).
fn=$(awk '$1 ~ /^preload\// { print $2 }' "$tmp/objects" | xargs nm -P --defined-only |
  awk '$2 == "T" && $1 ~ /^tp_/ && f == "" { f = $1 } END { print f }')
printf 'void %s(void);\nvoid tp_planted(void) { %s(); }\nint dlclose(void *h) { return h != 0; }\n' \
  "$fn" "$fn" > "$tmp/planted.c"
${CC:-cc} -c -o "$tmp/planted.o" "$tmp/planted.c"
{ cat "$tmp/objects"; echo "common/planted $tmp/planted.o"; } > "$tmp/objects_planted"
if check "$tmp/objects_planted" > "$tmp/planted.out"; then
  echo "layers: the check did not see the planted call common/planted -> $fn"
  exit 1
fi
grep -q "common/planted calls $fn" "$tmp/planted.out" &&
  grep -q "common/planted defines dlclose" "$tmp/planted.out" || {
  echo "layers: the planted call or name was not found:"; cat "$tmp/planted.out"; exit 1; }

check "$tmp/objects"
echo "layers: $(wc -l < "$tmp/objects") objects, $(wc -l < "$tmp/calls") cross-file calls, all downward, no cycle"

# A subsystem (a folder X/S/ inside a layer X: track/ops/, report/render/, common/out/...) is used
# from outside its folder only through its one header, X/S/S.h; its other headers are its own.
# The unit tests may look inside.
# private FILE...: prints each include of another subsystem's own header.
private() {
  awk '{ if (match($0, /^#include "(common|report|track|preload|cli)\/[a-z_]+\/[a-z_]+\.h"/)) {
           inc = substr($0, 11, RLENGTH - 11); n = split(inc, p, "/")
           h = p[3]; sub(/\.h$/, "", h)
           if (index(FILENAME, p[1] "/" p[2] "/") == 0 && h != p[2])
             printf "layers: %s:%d includes %s, not %s/%s/%s.h\n", FILENAME, FNR, inc, p[1], p[2], p[2] } }' "$@"
}
mkdir -p "$tmp/report"
printf '#include "track/ops/ops.h"\n#include "track/ops/planted.h"\n' > "$tmp/report/planted.c"
(cd "$tmp" && private report/planted.c) > "$tmp/private.out"
grep -q "report/planted.c:2 includes track/ops/planted.h, not track/ops/ops.h" "$tmp/private.out" && [ "$(wc -l < "$tmp/private.out")" -eq 1 ] || {
  echo "layers: the planted include of a private header was not found exactly:"; cat "$tmp/private.out"; exit 1; }
(cd "$srcdir" && private common/*.[ch] common/*/*.[ch] report/*.[ch] report/*/*.[ch] track/*.[ch] track/*/*.[ch] preload/*.[ch] preload/*/*.[ch] cli/*.[ch] cli/*/*.[ch]) > "$tmp/private.out"
if [ -s "$tmp/private.out" ]; then
  cat "$tmp/private.out"
  exit 1
fi
echo "layers: every subsystem folder used from outside only through its one header"
