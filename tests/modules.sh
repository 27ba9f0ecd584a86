#!/bin/sh
# The report's "modules" (tests/victims/v_dlgone.c): every module the process loaded, with the
# build-id read from its notes in memory. The executable's and libc's build-ids are those
# readelf -n prints from their files; two plugins loaded and dlclosed before exit are listed as
# departed, libtpgone.so with its build-id (read before the dlclose unmapped it) and
# libtpnoid.so (linked with --build-id=none) with null. Every module's range is a real one.
. "$TS/lib.sh"
V="$TB/victims/v_dlgone"
cp "$TB/victims/libtpgone.so" "$TB/victims/libtpnoid.so" "$WORK/" || fail "no plugins"
p1="$WORK/libtpgone.so" p2="$WORK/libtpnoid.so"
out=$(TPROF_OUTPUT=none TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" \
      "$V" "$p1" gone_keep 64 "$p2" gone_keep 64) || fail "victim failed: $?"
[ "$out" = "plugins unloaded" ] || fail "stdout: $out"

build_id() { readelf -n "$1" | awk '/Build ID:/ { print $3; exit }'; }
exe=$(readlink -f "$V")
libc=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(next(m["path"] for m in d["modules"] if "/libc.so" in m["path"] and not m["departed"]))
' "$WORK/r.json") || fail "no libc in modules"
id_exe=$(build_id "$exe") id_libc=$(build_id "$libc") id_p1=$(build_id "$p1")
[ -n "$id_exe" ] && [ -n "$id_libc" ] && [ -n "$id_p1" ] || fail "readelf found no build-id"
[ -z "$(build_id "$p2")" ] || fail "libtpnoid.so has a build-id"
jcheck "$WORK/r.json" \
  "d['modules'][0]['path'] == '$exe'" \
  "d['modules'][0]['build_id'] == '$id_exe'" \
  "[x['build_id'] for x in d['modules'] if x['path'] == '$libc'][0] == '$id_libc'" \
  "[(x['build_id'], x['departed']) for x in d['modules'] if x['path'] == '$p1'] == [('$id_p1', True)]" \
  "[(x['build_id'], x['departed']) for x in d['modules'] if x['path'] == '$p2'] == [(None, True)]" \
  "all(x['lo'] < x['hi'] and x['base'] <= x['lo'] for x in d['modules'])" \
  "all(not x['departed'] for x in d['modules'] if x['path'] not in ('$p1', '$p2'))" \
  "any(x['path'].endswith('libtprof.so') for x in d['modules'])"
# Read back and written again by the CLI, unchanged.
"$TPROF_CLI" report "$WORK/r.json" --format json >"$WORK/again.json" 2>"$WORK/err" ||
    fail "tprof report --format json: $(cat "$WORK/err")"
python3 -c '
import json, sys
a, b = (json.load(open(p))["modules"] for p in sys.argv[1:3])
sys.exit(a != b)' "$WORK/r.json" "$WORK/again.json" || fail "modules changed when read back"

# tprof merge: the union by path and build-id. A second process that still had libtpgone.so
# loaded at its report makes it not departed; one with another build-id of libtpnoid.so adds an
# entry; an old report without modules adds none.
python3 - "$WORK/r.json" "$WORK/r2.json" "$p1" "$p2" <<'PY' || fail "no second report"
import json, sys
d = json.load(open(sys.argv[1]))
for m in d["modules"]:
    if m["path"] == sys.argv[3]:
        m["departed"] = False
d["modules"].append({"path": sys.argv[4], "build_id": "00ff", "base": 0, "lo": 4096,
                     "hi": 8192, "departed": True})
json.dump(d, open(sys.argv[2], "w"))
PY
"$TPROF_CLI" merge "$WORK/r.json" "$WORK/r2.json" "$TS/fixtures/a.json" -o "$WORK/m.json" ||
    fail "tprof merge failed"
n=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["modules"]))' "$WORK/r.json")
jcheck "$WORK/m.json"   "len(d['modules']) == $n + 1"   "d['modules'][0]['path'] == '$exe'"   "[x['departed'] for x in d['modules'] if x['path'] == '$p1'] == [False]"   "[(x['build_id'], x['departed']) for x in d['modules'] if x['path'] == '$p2'] == [(None, True), ('00ff', True)]"
exit 0
