#!/usr/bin/env python3
"""Assert facts about a tprof JSON report: jcheck.py REPORT 'expr' ['expr' ...].

Each expr is Python evaluated with: d (the report), m (d['memory']), ops (name -> op),
site(fn) (the sites whose frames[0] is fn, merged into one dict of summed figures).
Prints every false expression with the values it saw; exit 1 if any is false."""
import json
import re
import sys


def main():
    path, exprs = sys.argv[1], sys.argv[2:]
    try:
        with open(path) as f:
            d = json.load(f)
    except Exception as e:  # noqa: BLE001 - any failure to read is a test failure
        print(f"jcheck: {path}: {e}")
        return 1
    m = d.get("memory", {})
    ops = {o["name"]: o for o in d.get("ops", [])}

    def site(fn):
        keys = ("allocs", "frees", "bytes", "peak_live_bytes", "live_at_peak_bytes",
                "live_at_exit_bytes")
        hits = [s for s in m.get("sites", []) if s["frames"] and s["frames"][0].get("function") == fn]
        if not hits:
            return {k: None for k in keys} | {"count": 0}
        out = {k: sum(s[k] for s in hits) for k in keys}
        out["count"] = len(hits)
        out["frames"] = hits[0]["frames"]
        return out

    env = {"d": d, "m": m, "ops": ops, "site": site, "re": re}
    bad = 0
    for e in exprs:
        try:
            ok = eval(e, env)  # noqa: S307 - test expressions written by us
        except Exception as ex:  # noqa: BLE001
            ok, why = False, repr(ex)
        else:
            why = ""
        if not ok:
            bad += 1
            print(f"FAIL {path}: {e} {why}")
            if "site(" in e:
                fn = e.split("site(")[1].split(")")[0].strip("'\"")
                print("   saw:", {k: v for k, v in site(fn).items() if k != "frames"})
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
