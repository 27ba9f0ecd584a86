#!/usr/bin/env python3
"""The CPU verdict of a text report against its JSON report: cpu_text.py TEXT JSON present|absent.

present: the VERDICT section opens with the CPU line, before the ops' story, and each of its two
sentences says what the JSON's figures say (the CPUs got and allowed, the share waiting, the load
average, the number of threads); the header's CPU line gives the same figures. absent: no CPU line
anywhere, and the header's CPU line still there. Prints each failure; exit 1 if any."""
import json
import re
import sys


def main():
    text_path, json_path, want = sys.argv[1:4]
    text = open(text_path).read()
    d = json.load(open(json_path))
    p, v = d["program"], d["verdict"]
    flat = " ".join(text.split())  # the verdict is wrapped at spaces
    bad = []

    def check(ok, what):
        if not ok:
            bad.append(what)

    head = re.search(r"CPUs allowed (\d+), load average ([\d.]+); threads on a CPU [^,]+, "
                     r"waiting for one [^(]+\(([\d.]+)% of their runnable time\)", flat)
    check(head is not None, "header: no CPU line")
    if head:
        check(int(head.group(1)) == p["cpus_allowed"], "header: CPUs allowed")
        check(head.group(2) == "%.2f" % p["load_avg"], "header: load average")
        check(abs(float(head.group(3)) - 100 * v["cpu_wait_share"]) < 0.051, "header: share")
    line = re.search(r"CPU: the process got ([\d.]+) of the ([\d.]+) CPUs? it may use, and its "
                     r"threads spent (\d+)% of their runnable time waiting for a CPU\. Other load "
                     r"on these CPUs \(load average ([\d.]+)\) or more busy threads than CPUs "
                     r"\((\d+) threads?\) kept them waiting, and the op and step times in this "
                     r"report include that wait: fewer threads \(OPENBLAS_NUM_THREADS, "
                     r"OMP_NUM_THREADS\) or a quieter machine give it back\.", flat)
    if want == "absent":
        check("CPU: the process got" not in flat, "a CPU line where none is due")
        check(v.get("cpu_text") is None, "JSON verdict.cpu_text where none is due")
    else:
        check(line is not None, "no CPU line, or its wording changed")
        check(v.get("cpu_text") is not None and v["cpu_text"] in flat, "JSON cpu_text")
        if line:
            got = p["cpu_ns"] / p["wall_ns"]
            check(abs(float(line.group(1)) - got) < 0.051, "CPUs got: %s vs %.3f" % (line.group(1), got))
            check(float(line.group(2)) == p["cpus_allowed"], "CPUs allowed")
            check(int(line.group(3)) == round(100 * v["cpu_wait_share"]), "share")
            check(line.group(4) == "%.2f" % p["load_avg"], "load average")
            check(int(line.group(5)) == len(d["threads"]), "threads")
            verdict = flat.find("VERDICT")
            story = flat.find(v["text"].split(".")[0]) if v.get("text") else len(flat)
            check(0 <= verdict < line.start() < story, "the CPU line is not first in the verdict")
    for b in bad:
        print("FAIL cpu_text:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
