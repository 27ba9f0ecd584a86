#!/bin/sh
# docs/tprof.schema.json against what tprof writes: the golden reports of check_render, the
# reports `tprof report` and `tprof merge` re-render from the fixtures, and live reports of
# victims run under the library. The schema must also refuse broken reports (it is not vacuous),
# name exactly the keys of docs/json-shape.md, and a golden report must read back (json_read.c)
# to the same JSON. Needs python3 with jsonschema (Debian: python3-jsonschema).
. "$TS/lib.sh"
command -v python3 > /dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
python3 -c 'import jsonschema; jsonschema.Draft202012Validator' 2> /dev/null ||
  { echo "SKIP: python3-jsonschema (4.0 or later) is not installed"; exit 77; }
DOCS="$TS/../docs"
SCHEMA="$DOCS/tprof.schema.json"
G="$TS/golden"

# Reports to validate: the goldens, then whatever the built tools can produce here.
set -- "$G/report.json" "$G/heaponly.json" "$G/merged.json"
if [ -x "$TPROF_CLI" ]; then
  "$TPROF_CLI" report "$G/report.json" --format json > "$WORK/reread.json" || fail "tprof report of the golden report failed"
  "$TPROF_CLI" report "$TS/fixtures/a.json" --format json > "$WORK/a.json" || fail "tprof report a.json failed"
  "$TPROF_CLI" report "$TS/fixtures/full.json" --format json > "$WORK/full.json" || fail "tprof report full.json failed"
  "$TPROF_CLI" merge "$TS/fixtures/a.json" "$TS/fixtures/b.json" "$TS/fixtures/c.json" -o "$WORK/m.json" ||
    fail "tprof merge failed"
  # a report of the sampled heap, which tprof no longer records: its optional keys still valid
  "$TPROF_CLI" report "$TS/fixtures/sampled.json" --format json > "$WORK/sampled.json" ||
    fail "tprof report sampled.json failed"
  grep -q '"sampling":{' "$WORK/sampled.json" || fail "sampled.json lost its sampling"
  set -- "$@" "$WORK/reread.json" "$WORK/a.json" "$WORK/full.json" "$WORK/m.json" "$WORK/sampled.json"
else
  echo "note: no tprof CLI at '$TPROF_CLI': re-rendered reports not checked"
fi
if [ -f "$TPROF_SO" ] && [ -x "$TB/victims/v_blas" ]; then
  TPROF_OUTPUT=none TPROF_JSON="$WORK/live_blas.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_blas" > /dev/null ||
    fail "v_blas under tprof failed"
  set -- "$@" "$WORK/live_blas.json"
fi
if [ -f "$TPROF_SO" ] && [ -x "$TB/victims/v_sites" ]; then
  TPROF_OUTPUT=none TPROF_JSON="$WORK/live_sites.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_sites" > /dev/null ||
    fail "v_sites under tprof failed"
  set -- "$@" "$WORK/live_sites.json"
fi
if [ -f "$TPROF_SO" ] && [ -x "$TB/victims/v_inline" ]; then
  TPROF_OUTPUT=none TPROF_JSON="$WORK/live_inline.json" LD_PRELOAD="$TPROF_SO" "$TB/victims/v_inline" > /dev/null ||
    fail "v_inline under tprof failed"
  grep -q '"inlined":true' "$WORK/live_inline.json" || fail "v_inline: no inlined frame to validate"
  set -- "$@" "$WORK/live_inline.json"
fi

python3 - "$SCHEMA" "$DOCS/json-shape.md" "$G/report.json" "$@" <<'PY' || fail "schema checks"
import copy, json, re, sys
import jsonschema

schema_path, shape_path, golden_path, reports = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
schema = json.load(open(schema_path))
jsonschema.Draft202012Validator.check_schema(schema)
V = jsonschema.Draft202012Validator(schema)
bad = 0

def errors(doc):
    return sorted(V.iter_errors(doc), key=lambda e: list(e.absolute_path))

# 1. Every report validates.
for p in reports:
    with open(p, "rb") as f:
        doc = json.loads(f.read().decode("utf-8"))  # strict UTF-8
    errs = errors(doc)
    for e in errs[:5]:
        print(f"{p}: {'/'.join(map(str, e.absolute_path))}: {e.message}")
    bad += bool(errs)

# 2. The schema names exactly the keys of docs/json-shape.md, no more, no fewer.
shape_keys = set(re.findall(r'"([a-z_0-9]+)"\s*:', open(shape_path).read()))
schema_keys = set()
def walk(node):
    if isinstance(node, dict):
        for k, v in node.get("properties", {}).items():
            schema_keys.add(k)
        for v in node.values():
            walk(v)
    elif isinstance(node, list):
        for v in node:
            walk(v)
walk(schema)
if shape_keys != schema_keys:
    print("keys in docs/json-shape.md only:", sorted(shape_keys - schema_keys))
    print("keys in the schema only:", sorted(schema_keys - shape_keys))
    bad += 1

# 3. Broken reports are refused: each mutation of the golden report must fail validation.
golden = json.load(open(golden_path))
def mutate(fn):
    d = copy.deepcopy(golden)
    fn(d)
    return d
def delete(path):
    def f(d):
        for k in path[:-1]:
            d = d[k]
        del d[path[-1]]
    return f
def put(path, value):
    def f(d):
        for k in path[:-1]:
            d = d[k]
        d[path[-1]] = value
    return f
cases = {
    "schema 2": put(["schema"], 2),
    "no ops": delete(["ops"]),
    "an op without name": delete(["ops", 0, "name"]),
    "an unknown key": put(["ops", 0, "speed"], 1),
    "an unknown top-level key": put(["extra"], {}),
    "bound 'fast'": put(["ops", 0, "bound"], "fast"),
    "calls -1": put(["ops", 0, "calls"], -1),
    "calls 2^64": put(["ops", 0, "calls"], 2 ** 64),
    "calls as a string": put(["ops", 0, "calls"], "101"),
    "calls 1.5": put(["ops", 0, "calls"], 1.5),
    "negative gflops": put(["ops", 0, "gflops"], -1.0),
    "latency without p99": delete(["ops", 0, "latency_ns", "p99"]),
    "layout 'X'": put(["ops", 0, "shapes", 0, "layout"], "X"),
    "line -1": put(["memory", "sites", 0, "frames", 0, "line"], -1),
    "a frame without module": delete(["memory", "sites", 0, "frames", 0, "module"]),
    "partial as 1": put(["partial"], 1),
    "argv with null": put(["program", "argv"], [None]),
    "a note that is a number": put(["notes"], [1]),
    "amdahl speedup below 1": put(["verdict", "amdahl", 0, "speedup_2x"], 0.5),
    "amdahl share above 1": put(["verdict", "amdahl", 0, "share"], 1.5),
    "verdict bound 'fast'": put(["verdict", "bound"], "fast"),
    "machine source null": put(["machine", "source"], None),
    "steps without window": delete(["steps", "window_last"]),
}
if errors(golden):
    print("the golden report itself does not validate")
    bad += 1
for name, fn in cases.items():
    if not errors(mutate(fn)):
        print(f"the schema accepts a broken report: {name}")
        bad += 1
sys.exit(1 if bad else 0)
PY

# 4. The reader takes back what the writer wrote: the golden report re-rendered by tprof report
# is the same document (only the escape of an invalid byte, \ufffd, becomes the character).
if [ -x "$TPROF_CLI" ]; then
  python3 - "$G/report.json" "$WORK/reread.json" <<'PY' || fail "golden report -> json_read -> JSON differs"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
if a != b:
    for k in a:
        if a[k] != b.get(k):
            print("differs:", k)
    sys.exit(1)
PY
fi
exit 0
