#!/bin/sh
# Call sites through inlined code (victims built with -O2): a C helper that calls malloc, inlined
# at two lines of one function, and a std::vector built at two lines (libstdc++'s allocator,
# inlined from new_allocator.h). Each call line is a site of its own whose frames go from the
# inlined function down to that line; `tprof merge` and `tprof diff` keep the two apart. Lines
# are read from the victims' MARK comments, so that editing a victim does not break the test.
. "$TS/lib.sh"
T="$TPROF_CLI"
line() { grep -nw "MARK:$1" "$2" | cut -d: -f1; }
C="$TS/victims/v_inline.c"
G=$(line grab "$C"); F=$(line first "$C"); S=$(line second "$C"); M=$(line main "$C")
[ -n "$G" ] && [ -n "$F" ] && [ -n "$S" ] && [ -n "$M" ] || fail "markers not found in $C"

out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/c.json" TPROF_FOLDED="$WORK/c.folded" \
    LD_PRELOAD="$TPROF_SO" "$TB/victims/v_inline") || fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
# frames[0:3] of the site that allocated n bytes, as (function, file, line, inlined)
top3="lambda n: [(f['function'], (f['file'] or '').rsplit('/', 1)[-1], f['line'], f.get('inlined', False)) for f in [s for s in m['sites'] if s['bytes'] == n][0]['frames'][:3]]"
jcheck "$WORK/c.json" \
  "site('grab')['count'] == 2" "site('grab')['allocs'] == 2" "site('grab')['bytes'] == 4000" \
  "site('grab')['live_at_exit_bytes'] == 3000" \
  "($top3)(1000) == [('grab', 'v_inline.c', $G, True), ('build', 'v_inline.c', $F, False), ('main', 'v_inline.c', $M, False)]" \
  "($top3)(3000) == [('grab', 'v_inline.c', $G, True), ('build', 'v_inline.c', $S, False), ('main', 'v_inline.c', $M, False)]" \
  "[s for s in m['sites'] if s['bytes'] == 1000][0]['frames'][0]['offset'] == [s for s in m['sites'] if s['bytes'] == 1000][0]['frames'][1]['offset']"
# The text report names both lines; the folded heap stack marks the inlined frame.
"$T" report "$WORK/c.json" > "$WORK/c.txt" || fail "tprof report failed"
grep -q "grab \[inlined\] (v_inline.c:$G) < build (v_inline.c:$S) < main (v_inline.c:$M)" "$WORK/c.txt" ||
  fail "text row of the second line: $(grep inlined "$WORK/c.txt")"
grep -q "^main;build;grab_\[i\] 3000\$" "$WORK/c.heap.folded" ||
  fail "folded heap stack: $(cat "$WORK/c.heap.folded")"
# merge and diff key sites by their frames: two call lines stay two sites.
"$T" merge "$WORK/c.json" "$WORK/c.json" -o "$WORK/m.json" || fail "merge failed"
jcheck "$WORK/m.json" "site('grab')['count'] == 2" "site('grab')['allocs'] == 4" \
  "sorted(s['bytes'] for s in m['sites'] if s['frames'][0]['function'] == 'grab') == [2000, 6000]" \
  "all(s['frames'][0].get('inlined') is True for s in m['sites'] if s['frames'][0]['function'] == 'grab')"
"$T" diff "$WORK/c.json" "$WORK/c.json" --format json > "$WORK/d.json" || fail "diff failed"
jcheck "$WORK/d.json" \
  "len([s for s in d['sites'] if s['frames'][0]['function'] == 'grab' and s['frames'][0]['inlined'] is True]) == 2"

X="$TS/victims/v_inline_cxx.cc"
F=$(line first "$X"); S=$(line second "$X"); M=$(line main "$X")
[ -n "$F" ] && [ -n "$S" ] && [ -n "$M" ] || fail "markers not found in $X"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/x.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_inline_cxx") ||
  fail "victim failed: $?"
[ "$out" = "ok" ] || fail "stdout changed: $out"
# The vectors' buffers (1000 and 3000 bytes): from the inlined allocator in new_allocator.h down to
# build()'s own line; the first real frame is build(), every frame before it inlined.
own="lambda n: [(f['function'], (f['file'] or '').rsplit('/', 1)[-1], f['line']) for f in [s for s in m['sites'] if s['bytes'] == n][0]['frames'] if not f.get('inlined')][:2]"
inl="lambda n: [f['function'] for f in [s for s in m['sites'] if s['bytes'] == n][0]['frames'] if f.get('inlined')]"
jcheck "$WORK/x.json" \
  "($own)(1000) == [('build()', 'v_inline_cxx.cc', $F), ('main', 'v_inline_cxx.cc', $M)]" \
  "($own)(3000) == [('build()', 'v_inline_cxx.cc', $S), ('main', 'v_inline_cxx.cc', $M)]" \
  "($inl)(1000)[0].startswith('std::__new_allocator<char>::allocate')" \
  "($inl)(1000) == ($inl)(3000)" \
  "[s for s in m['sites'] if s['bytes'] == 1000][0]['frames'][0]['file'].endswith('new_allocator.h')"
"$T" report "$WORK/x.json" > "$WORK/x.txt" || fail "tprof report failed"
grep -q "\[[0-9]* inlined\] build() (v_inline_cxx.cc:$S) < main (v_inline_cxx.cc:$M)" "$WORK/x.txt" ||
  fail "text row of the second vector: $(grep build "$WORK/x.txt")"
"$T" diff --all "$WORK/x.json" "$WORK/x.json" > "$WORK/xd.txt" || fail "diff text failed"
grep -q "^\[[0-9]* inlined\] build() (v_inline_cxx.cc:$S) <- main (v_inline_cxx.cc:$M)\$" "$WORK/xd.txt" ||
  fail "diff title of the second vector: $(grep build "$WORK/xd.txt")"
