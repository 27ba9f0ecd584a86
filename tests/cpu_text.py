#!/usr/bin/env python3
"""The CPU verdict of a text report against its JSON report: cpu_text.py TEXT JSON present|absent.

present: the VERDICT section opens with the CPU line, before the ops' story, and the line is the
one the JSON's figures make (the CPUs got and allowed, the share waiting, the busy threads against
the CPUs, the load average, the settings of the runtimes loaded), in the text and in the JSON;
the header's CPU line gives the same figures. absent: no CPU line
anywhere, and the header's CPU line still there. Prints each failure; exit 1 if any."""
import json
import re
import sys


def cpus_str(x):
    """A count of CPUs as report/analyze/cpuverdict.c writes it: whole ones bare, else one decimal (two
    below 0.1)."""
    if abs(x - int(x + 0.5)) < 0.005:
        return "%.0f" % int(x + 0.5)
    return ("%.2f" if x < 0.095 else "%.1f") % x


def expected_line(d):
    """The CPU line of a single process's report, from its figures: the CPUs got and allowed,
    the share waiting, the busy threads (runnable at least half their time) against the CPUs,
    the load average, the thread settings of the runtimes it loaded."""
    p, v = d["program"], d["verdict"]
    n = p["cpus_allowed"]
    if p["cpu_quota"] > 0 and p["cpu_quota"] < n:
        n = p["cpu_quota"]
    avail = cpus_str(n)
    cpus = "CPU" if avail == "1" else "CPUs"
    busy = sum(1 for t in d["threads"]
               if t["wall_ns"] and t["cpu_ns"] + t["runq_ns"] >= 0.5 * t["wall_ns"])
    head = ("CPU: the process got %s of the %s %s it may use, and its threads spent %.0f%% of "
            "their runnable time waiting for a CPU. " % (cpus_str(p["cpu_ns"] / p["wall_ns"]), avail,
                                                         cpus, 100 * v["cpu_wait_share"]))
    if busy > n:
        names = {"openblas": "OPENBLAS_NUM_THREADS", "openmp": "OMP_NUM_THREADS",
                 "mkl": "MKL_NUM_THREADS"}
        loaded = (p.get("thread_runtimes") or "").split()
        settings = [names[k] for k in names if k in loaded]
        fewer = "fewer threads" + (" (%s)" % ", ".join(settings) if settings else "")
        return head + ("Its busy threads (those runnable at least half their time: %d) are more "
                       "than the %s %s it may use: they waited for each other or for other load "
                       "on these CPUs (load average %.2f), and the op and step times in this "
                       "report include that wait: %s or a quieter machine give it back."
                       % (busy, avail, cpus, p["load_avg"], fewer))
    return head + ("Its busy threads (those runnable at least half their time: %d) are no more "
                   "than the %s %s it may use: other load on these CPUs (load average %.2f) kept "
                   "them waiting, and the op and step times in this report include that wait: "
                   "less other load on these CPUs (an idle machine, or taskset to CPUs nothing "
                   "else runs on) gives it back." % (busy, avail, cpus, p["load_avg"]))


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
    expected = expected_line(d)
    at = flat.find(expected)
    if want == "absent":
        check("CPU: the process got" not in flat, "a CPU line where none is due")
        check(v.get("cpu_text") is None, "JSON verdict.cpu_text where none is due")
    else:
        check(v.get("cpu_text") == expected,
              "JSON cpu_text %r, from its figures %r" % (v.get("cpu_text"), expected))
        check(at >= 0, "no CPU line in the text, or its wording changed")
        if at >= 0:
            verdict = flat.find("VERDICT")
            story = flat.find(v["text"].split(".")[0]) if v.get("text") else len(flat)
            check(0 <= verdict < at < story, "the CPU line is not first in the verdict")
    for b in bad:
        print("FAIL cpu_text:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
