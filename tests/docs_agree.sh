#!/bin/sh
# Every setting and flag is documented everywhere a user looks, and the places agree:
# each TPROF_* variable the parser knows (common/config.c's table) is in README.md, in
# man libtprof(7) and in `tprof run --help`; each flag of each subcommand's --help is in
# man tprof(1) and in README.md; each flag of man tprof(1) is in some subcommand's --help;
# each key of the JSON schema is in docs/report.md.
. "$TS/lib.sh"
top=$(dirname "$TS")
T="$TPROF_CLI"
# man pages escape dashes (\-\-flag) and underscores are plain: strip the escapes once.
sed 's/\\//g' "$top/man/libtprof.7" > "$WORK/man7"
sed 's/\\//g' "$top/man/tprof.1" > "$WORK/man1"
"$T" run --help > "$WORK/run.help" 2>&1 || fail "tprof run --help exited $?"

bad=0
miss() { echo "docs_agree: $1 is not in $2"; bad=1; }

vars=$(sed -n 's/^ *{"\(TPROF_[A-Z0-9_]*\)".*/\1/p' "$top/common/config.c" | sort -u)
[ -n "$vars" ] || fail "no TPROF_ variable found in common/config.c's table"
n=0
for v in $vars; do
    n=$((n + 1))
    grep -q "$v" "$top/README.md" || miss "$v" README.md
    grep -q "$v" "$WORK/man7" || miss "$v" "man/libtprof.7"
    grep -q "$v" "$WORK/run.help" || miss "$v" "tprof run --help"
done

nf=0
for c in run report diff merge calibrate; do
    "$T" $c --help > "$WORK/$c.help" 2>&1 || fail "tprof $c --help exited $?"
    for f in $(grep -o -- '--[a-z][a-z0-9-]*' "$WORK/$c.help" | grep -v -- '--help' | sort -u); do
        nf=$((nf + 1))
        grep -q -- "$f\b" "$WORK/man1" || miss "tprof $c $f" "man/tprof.1"
        grep -q -- "$f\b" "$top/README.md" || miss "tprof $c $f" README.md
    done
done
cat "$WORK"/*.help > "$WORK/all.help"
for f in $(grep -o -- '--[a-z][a-z0-9-]*' "$WORK/man1" | sort -u); do
    grep -q -- "$f\b" "$WORK/all.help" || miss "man/tprof.1's $f" "any tprof --help"
done
# Every key the JSON schema allows is explained in docs/report.md.
nk=$(python3 - "$top/docs/tprof.schema.json" "$top/docs/report.md" <<'PY'
import json, re, sys
keys = set()
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "properties" and isinstance(v, dict):
                keys.update(v)
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
walk(json.load(open(sys.argv[1])))
doc = open(sys.argv[2]).read()
missing = [k for k in sorted(keys) if not re.search(r"\b" + re.escape(k) + r"\b", doc)]
for k in missing:
    print("docs_agree: JSON key %s is not in docs/report.md" % k, file=sys.stderr)
print(len(keys))
sys.exit(1 if missing else 0)
PY
) || bad=1
[ "$nk" -gt 50 ] || fail "only $nk keys found in the schema"
# Every built-in work entry (track/ops/opnames.c) is named in the README, both man pages and
# docs/report.md.
nb=0
for b in $(grep -o '"[a-z_0-9]*" [A-Z0-9_]*_PROTO' "$top/track/ops/opnames.c" | cut -d'"' -f2); do
    nb=$((nb + 1))
    for d in "$top/README.md" "$WORK/man7" "$WORK/man1" "$top/docs/report.md"; do
        grep -q "\b$b\b" "$d" || miss "built-in work entry $b" "${d##*/}"
    done
done
[ "$nb" -ge 7 ] || fail "only $nb built-in work entries found in track/ops/opnames.c"
[ $bad = 0 ] || exit 1
echo "docs_agree: $n variables, $nf flags and $nk JSON keys documented"
