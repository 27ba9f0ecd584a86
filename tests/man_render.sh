#!/bin/sh
# The man pages render every line they hold: no text line starts with ' or . (a control
# character: roff would take the line for a request and drop it, as it once dropped the --work
# example), every control line is a request or macro the pages use, and every line of each
# example block (.nf ... .fi) is in the page groff renders.
. "$TS/lib.sh"
command -v groff > /dev/null || fail "groff is not installed (scripts/setup.sh installs groff-base)"
for page in "$TS"/../man/*.[1-9]; do
  groff -man -Tutf8 -rLL=200n "$page" 2> "$WORK/err" | col -b > "$WORK/out" ||
    fail "groff failed on $page: $(cat "$WORK/err")"
  python3 - "$page" "$WORK/out" << 'PY' || fail "$page: see above"
import re, sys
src = open(sys.argv[1], encoding="utf-8").read().splitlines()
out = open(sys.argv[2], encoding="utf-8").read()
known = {"TH", "SH", "SS", "TP", "B", "BI", "BR", "I", "IR", "IB", "RB", "RI", "IP", "PP", "LP",
         "P", "RS", "RE", "nf", "fi", "br", "sp", "EX", "EE", "TQ", "HP", "ad", "na", "in", "ti",
         "ft", "\\\""}
def norm(s):
    return re.sub(r"[^A-Za-z0-9]", "", s)
flat = norm(out)
bad, block = [], False
for n, line in enumerate(src, 1):
    if line.startswith("'"):
        bad.append(f"line {n}: a text line starting with ' is taken for a request: {line}")
        continue
    if line.startswith("."):
        name = line[1:].split()[0] if line[1:].split() else ""
        if name.startswith('\\"'):
            name = '\\"'
        if name not in known:
            bad.append(f"line {n}: unknown request .{name}: {line}")
        block = {"nf": True, "fi": False}.get(name, block)
        continue
    if block:
        # the text as rendered: escapes (\-, \(lq, \fB) carry no letters or digits of their own
        text = re.sub(r"\\\(..|\\f[BIRP]|\\[-&e]", "", line)
        if norm(text) and norm(text) not in flat:
            bad.append(f"line {n}: example not rendered: {line}")
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
done
exit 0
