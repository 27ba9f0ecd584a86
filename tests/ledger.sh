#!/bin/sh
# The memory ledger (track/heap/ledger.c): the peak RSS split into its parts, exact where the truth
# is known (tests/victims/v_ledger.c):
#   - a 64 MiB file mapped and its first half read: one "file" row, 64 MiB mapped, 32 MiB
#     resident (to a page), its call site; the MEMORY line and the verdict name the file;
#   - anonymous memory from two call sites: one row each, 8 and 4 MiB resident, named by site;
#   - 100 MiB of small blocks freed: the allocator keeps them, said with the advice;
#   - 4 threads waiting with 256 KiB of stack each touched when the ledger reads: 5 stacks;
#   - tprof's own tables when they are a tenth of the RSS, the libraries when they are most of it;
#   - more mappings than the table keeps: a note, their memory the allocator's;
#   - a mapping cut in its middle, grown by mremap and partly given back by madvise: what is
#     mapped and resident follows, and the reading before the unmap is the peak;
# and on the bundled examples and python3 with numpy the rows add up to the peak RSS exactly,
# the part no reading explained under 2% of it. Every reading is made by an event of the program
# (an op's boundary, a free or unmap of 1 MiB or more, the exit), not by a timer.
. "$TS/lib.sh"
V=$TB/victims/v_ledger
MIB=1048576
# rows add up to peak_rss_bytes, each kind and name once (call sites that differ below their
# innermost frame are one row: python's arena allocator); the unexplained row is last and under 2%
SUM="sum(r['resident_bytes'] for r in m['ledger']) == m['peak_rss_bytes'] and len({(r['kind'], r['name']) for r in m['ledger']}) == len(m['ledger'])"
UNEXPLAINED="m['ledger'][-1]['kind'] == 'unexplained' and m['ledger'][-1]['resident_bytes'] <= 0.02 * m['peak_rss_bytes']"
row() { echo "[r for r in m['ledger'] if r['kind'] == '$1' and r['name'] == '$2'][0]"; }

# a mapped file
out=$(tp TPROF_JSON="$WORK/file.json" TPROF_OUTPUT="$WORK/file.txt" LD_PRELOAD="$TPROF_SO" "$V" file "$WORK/weights.bin") ||
  fail "file: $out"
[ "$out" = "file 0" ] || fail "file: output $out"
F="$(row file "$WORK/weights.bin")"
jcheck "$WORK/file.json" "$SUM" "$UNEXPLAINED" "m['ledger_method'] == 'smaps'" \
  "$F['mapped_bytes'] == 64 * $MIB" "abs($F['resident_bytes'] - 32 * $MIB) <= 4096" \
  "m['mappings'][$F['mapping']]['file'] == '$WORK/weights.bin'" \
  "m['mappings'][$F['mapping']]['kind'] == 'file' and m['mappings'][$F['mapping']]['maps'] == 1" \
  "m['mappings'][$F['mapping']]['prot'] == 'r--' and m['mappings'][$F['mapping']]['flags'] == 'private'" \
  "m['mappings'][$F['mapping']]['frames'][0]['function'] == 'file_mode'" \
  "m['mappings'][$F['mapping']]['live_at_exit_bytes'] == 64 * $MIB" \
  "m['ledger_rss_bytes'] <= m['peak_rss_bytes'] and m['ledger_reads'] >= 1" \
  "m['ledger_ns'] > 0" \
  "len(m['ledger_series']) >= 1 and all(p['rss_bytes'] == sum(p[k] for k in p if k.endswith('_bytes') and k != 'rss_bytes') for p in m['ledger_series'])"
tr '\n' ' ' < "$WORK/file.txt" | tr -s ' ' | grep -Eq 'at the peak: [0-9.]+ [KMG]?i?B persistent \(outlive their step\), [0-9.]+ [KMG]?i?B transient \(freed within it\); mapped files add 32\.0 MiB persistent at the RSS peak ' ||
  fail "file: no persistent files: $(grep '^at the peak' "$WORK/file.txt")"
grep -Eq '^peak RSS [0-9.]+ MiB = heap [0-9.]+ \+ weights\.bin \(mapped file\) 32\.0 \+' "$WORK/file.txt" ||
  fail "file: no ledger line: $(grep -A1 '^peak RSS' "$WORK/file.txt")"
grep -q "  32.0 MiB   64.0 MiB  file         $WORK/weights.bin, mapped at file_mode (v_ledger.c:" "$WORK/file.txt" ||
  fail "file: no table row: $(sed -n '/^RSS at its highest/,/unexplained/p' "$WORK/file.txt")"
grep -Eq '^RSS at its highest reading, [0-9.]+ [mun]?s into the run \([0-9]+ readings? of /proc/self/smaps\):$' "$WORK/file.txt" ||
  fail "file: no table heading"
tr '\n' ' ' < "$WORK/file.txt" | tr -s ' ' | grep -Eq 'RSS peaks at [0-9.]+ MiB, 32\.0 MiB of it mapped from weights\.bin \(64\.0 MiB mapped\): persistent memory, resident for as long as the file stays mapped\.' ||
  fail "file: no verdict sentence: $(sed -n '/^VERDICT/,/^$/p' "$WORK/file.txt")"

# anonymous memory from two sites
tp TPROF_JSON="$WORK/anon.json" TPROF_OUTPUT="$WORK/anon.txt" LD_PRELOAD="$TPROF_SO" "$V" anon > /dev/null || fail "anon failed"
A=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["memory"]; print(" ".join(r["name"] for r in m["ledger"] if r["kind"] == "anonymous"))' "$WORK/anon.json")
case $A in "anon_big (v_ledger.c:"*" anon_small (v_ledger.c:"*) ;; *) fail "anon: rows $A" ;; esac
jcheck "$WORK/anon.json" "$SUM" "$UNEXPLAINED" \
  "[r['resident_bytes'] for r in m['ledger'] if r['kind'] == 'anonymous'] == [8 * $MIB, 4 * $MIB]" \
  "[r['mapped_bytes'] for r in m['ledger'] if r['kind'] == 'anonymous'] == [8 * $MIB, 4 * $MIB]" \
  "[m['mappings'][r['mapping']]['frames'][0]['function'] for r in m['ledger'] if r['kind'] == 'anonymous'] == ['anon_big', 'anon_small']" \
  "sorted(x['kind'] for x in m['mappings']) == ['anonymous', 'anonymous'] and all(x['file'] is None for x in m['mappings'])"
grep -Eq '^peak RSS [0-9.]+ MiB = heap [0-9.]+ \+ anonymous mmap 12\.0 \+' "$WORK/anon.txt" ||
  fail "anon: no ledger line: $(grep -A1 '^peak RSS' "$WORK/anon.txt")"
tr '\n' ' ' < "$WORK/anon.txt" | tr -s ' ' | grep -Eq 'RSS peaks at [0-9.]+ MiB, 12\.0 MiB of it anonymous memory the program maps itself, the most from anon_big \(v_ledger\.c:[0-9]+\)\.' ||
  fail "anon: no verdict sentence: $(sed -n '/^VERDICT/,/^$/p' "$WORK/anon.txt")"

# freed small blocks the allocator keeps
tp TPROF_JSON="$WORK/retain.json" TPROF_OUTPUT="$WORK/retain.txt" LD_PRELOAD="$TPROF_SO" "$V" retain > /dev/null || fail "retain failed"
R="$(row allocator 'freed, kept by the allocator')"
jcheck "$WORK/retain.json" "$SUM" "$UNEXPLAINED" \
  "$R['resident_bytes'] >= 100 * $MIB and $R['resident_bytes'] <= 101 * $MIB"
tr '\n' ' ' < "$WORK/retain.txt" | tr -s ' ' | grep -Eq '^.*the allocator keeps 100 MiB the program freed \([0-9]+% of the peak RSS\): glibc holds freed blocks for reuse; malloc_trim\(0\) after the phase that frees them gives the memory back' ||
  fail "retain: no advice: $(sed -n '/^MEMORY/,/^$/p' "$WORK/retain.txt")"
tr '\n' ' ' < "$WORK/retain.txt" | tr -s ' ' | grep -q 'The allocator keeps 100 MiB the program freed' ||
  fail "retain: no advice in the verdict: $(sed -n '/^VERDICT/,/^$/p' "$WORK/retain.txt")"

tr '\n' ' ' < "$WORK/retain.txt" | tr -s ' ' | grep -Eq "Of the peak RSS, [0-9.]+ MiB is tprof's own \(its tables of the program's blocks and call sites, the symbol tables it reads\): the program alone peaks that much lower\." ||
  fail "retain: no sentence on tprof's own: $(sed -n '/^VERDICT/,/^$/p' "$WORK/retain.txt")"

# a program whose memory is mostly the files it loaded
tp TPROF_OUTPUT="$WORK/small.txt" LD_PRELOAD="$TPROF_SO" "$V" small > /dev/null || fail "small failed"
tr '\n' ' ' < "$WORK/small.txt" | tr -s ' ' | grep -Eq "RSS peaks at [0-9.]+ MiB, [0-9.]+ MiB of it the code and data of [0-9]+ files loaded \(the program and its libraries\), not the model's data\." ||
  fail "small: no sentence on the libraries: $(sed -n '/^VERDICT/,/^$/p' "$WORK/small.txt")"

# more mappings than the table keeps: said, and their memory is the allocator's
tp TPROF_JSON="$WORK/many.json" LD_PRELOAD="$TPROF_SO" "$V" many > /dev/null || fail "many failed"
jcheck "$WORK/many.json" "$SUM" \
  "[n for n in d['notes'] if re.match(r\"memory ledger: [0-9]+ of the program's mmap calls were not kept \\(the tables were full or busy\\); their memory is counted as the allocator's$\", n)] != []"

# thread stacks
tp TPROF_JSON="$WORK/threads.json" LD_PRELOAD="$TPROF_SO" "$V" threads > /dev/null || fail "threads failed"
S="$(row stacks '5 stacks')"
jcheck "$WORK/threads.json" "$SUM" "$UNEXPLAINED" "$S['resident_bytes'] >= 4 * 256 * 1024" \
  "$S['mapped_bytes'] >= 4 * 8 * $MIB"

# cut, grown, given back
tp TPROF_JSON="$WORK/cut.json" LD_PRELOAD="$TPROF_SO" "$V" cut > /dev/null || fail "cut failed"
C="m['mappings'][0]"
jcheck "$WORK/cut.json" "$SUM" "$UNEXPLAINED" "len(m['mappings']) == 1" \
  "$C['maps'] == 1 and $C['unmaps'] == 0 and $C['mapped_bytes'] == 18 * $MIB" \
  "$C['live_at_exit_bytes'] == 14 * $MIB and $C['advised_bytes'] == $MIB" \
  "$C['live_at_peak_bytes'] == 16 * $MIB and $C['resident_at_peak_bytes'] == 16 * $MIB" \
  "m['ledger_series'][-1]['anonymous_bytes'] == 13 * $MIB"

# the bundled examples and numpy: the parts add up to the peak
for ex in cnn mlp transformer; do
  tp TPROF_JSON="$WORK/$ex.json" LD_PRELOAD="$TPROF_SO" "$TB/../examples/$ex" > /dev/null 2>&1 || fail "$ex failed"
  jcheck "$WORK/$ex.json" "$SUM" "$UNEXPLAINED" "[r for r in m['ledger'] if r['kind'] == 'heap'][0]['resident_bytes'] > 0"
done
if /usr/bin/python3 -c 'import numpy' 2> /dev/null; then
  tp TPROF_JSON="$WORK/np.json" LD_PRELOAD="$TPROF_SO" /usr/bin/python3 -c '
import numpy as np
a = np.random.rand(1500, 1500)
b = a @ a
c = [np.ones((400, 400)) for _ in range(20)]
del c
print(float(b.sum()) > 0)' > /dev/null 2>&1 || fail "numpy failed"
  jcheck "$WORK/np.json" "$SUM" "$UNEXPLAINED" "[r for r in m['ledger'] if r['kind'] == 'heap'][0]['resident_bytes'] > 50 * $MIB"
else
  echo "skipped: python3 with numpy (/usr/bin/python3 has no numpy)"
fi
