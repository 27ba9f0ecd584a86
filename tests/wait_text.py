#!/usr/bin/env python3
"""The waiting verdict of a text report against its JSON report: wait_text.py TEXT JSON OP.

The VERDICT names OP with the sentence the JSON's verdict.wait_text holds, whose figures are the
op's in the JSON (its share of waiting, "~" when work or spin came from CPU samples, its blocked
calls and time); the WORK AND WAIT table lists OP. Prints each failure; exit 1 if any."""
import json
import re
import sys


def main():
    text_path, json_path, name = sys.argv[1:4]
    text = open(text_path).read()
    d = json.load(open(json_path))
    v = d["verdict"]
    o = [x for x in d["ops"] if x["name"] == name][0]
    flat = " ".join(text.split())  # the verdict is wrapped at spaces
    bad = []

    def check(ok, what):
        if not ok:
            bad.append(what)

    check(v.get("wait_op") == name, "verdict.wait_op %r" % v.get("wait_op"))
    check(v.get("wait_text") is not None and v["wait_text"] in flat, "JSON wait_text not in the text")
    est = o["work_method"] == "samples" or o["wait_spin_ns"] > 0
    # All of it in pthread_join: threads ending, no thread-count advice (report/analyze/opwait.c).
    joining = o["wait_kinds"] == "pthread_join" and o["wait_spin_ns"] == 0
    if joining:
        m = re.search(r"Waiting: (\S+): (~?)([\d.]+)% of the thread time while it ran \(on its "
                      r"threads and on threads with no op open\) was waiting for its threads to "
                      r"end, not work \(in (pthread_join): [\d.]+ [mun]?s\)\.", flat)
        check("Fewer threads" not in flat, "thread-count advice for a join")
    else:
        m = re.search(r"Waiting: (\S+): (~?)([\d.]+)% of the thread time while it ran \(on its "
                      r"threads and on threads with no op open\) was waiting for other threads, "
                      r"not work \(in ([a-z_, ]+): [\d.]+ [mun]?s\)\. Fewer threads "
                      r"\(OMP_NUM_THREADS, OPENBLAS_NUM_THREADS or the program's own thread "
                      r"count\) may be faster\.", flat)
    check(m is not None, "no waiting sentence, or its wording changed")
    if m:
        check(m.group(1) == name, "op named")
        check((m.group(2) == "~") == est, "the estimate mark")
        share = o["wait_ns"] / (o["wait_ns"] + o["work_ns"])
        check(abs(float(m.group(3)) - 100 * share) < 0.051, "share %s vs %.3f" % (m.group(3), share))
        check(m.group(4).replace(", ", ",") == o["wait_kinds"], "kinds")
        check(flat.find("VERDICT") < m.start(), "the sentence is in the verdict")
    check(re.search(r"WORK AND WAIT .*? %s ~?[\d.]+%% " % re.escape(name), flat) is not None,
          "the WORK AND WAIT table lists the op")
    for b in bad:
        print("FAIL wait_text:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
