#!/usr/bin/env python3
"""Big programs under tprof (bench/big.sh): wall time native and under tprof, the report time
(from the program's last instruction to the process's exit), tprof's own RSS (peak RSS under
tprof less native), the JSON's size, and whether the report is partial.

    python3 bench/big.py [--lib PATH] [--runs N] [--env VAR=VALUE]... -- cmd args...

The program prints "main returns at <CLOCK_REALTIME seconds>" on stderr as its last act (bench/
big_gen.py's program and bench/torch_mlp.py do); the report time is the process's exit less
that. Native and tprof runs interleave, N of each; the medians are printed."""
import json, os, re, statistics, subprocess, sys, tempfile, time

args = sys.argv[1:]
lib = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".libs", "libtprof.so")
runs, env_extra = 1, {}
while args and args[0] != "--":
    a = args.pop(0)
    if a == "--lib":
        lib = args.pop(0)
    elif a == "--runs":
        runs = int(args.pop(0))
    elif a == "--env":
        k, v = args.pop(0).split("=", 1)
        env_extra[k] = v
cmd = args[1:]


def run(preload, json_path):
    """Wall time, report time and peak RSS of one run (wait4: this child's own)."""
    env = dict(os.environ)
    if preload:
        env.update({"LD_PRELOAD": os.path.abspath(lib), "TPROF_OUTPUT": "none",
                    "TPROF_JSON": json_path})
        env.update(env_extra)
    errf = tempfile.TemporaryFile()
    t0 = time.time()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=errf)
    _, status, ru = os.wait4(p.pid, 0)
    t1 = time.time()
    errf.seek(0)
    m = re.search(rb"main returns at ([0-9.]+)", errf.read())
    return t1 - t0, (t1 - float(m.group(1))) if m else float("nan"), ru.ru_maxrss * 1024


with tempfile.TemporaryDirectory() as tmp:
    jp = os.path.join(tmp, "r.json")
    nat, tp, rep, rss_nat, rss_tp = [], [], [], [], []
    for _ in range(runs):
        w, _, r = run(False, None)
        nat.append(w)
        rss_nat.append(r)
        w, t, r = run(True, jp)
        tp.append(w)
        rep.append(t)
        rss_tp.append(r)
    rss_nat, rss_tp = statistics.median(rss_nat), statistics.median(rss_tp)
    d = json.load(open(jp))
    m = d["memory"]
    rolled = sum(r["sites"] for r in m.get("site_rollups", []))
    exact = (sum(s["allocs"] for s in m["sites"]) +
             sum(r["allocs"] for r in m.get("site_rollups", []))) == m["allocs"]
    print("cmd: %s" % " ".join(cmd))
    print("env: %s" % " ".join("%s=%s" % kv for kv in env_extra.items()))
    print("wall native %.2f s, tprof %.2f s (x%.2f), median of %d interleaved" %
          (statistics.median(nat), statistics.median(tp),
           statistics.median(tp) / statistics.median(nat), runs))
    print("report time (main's return to exit) %.3f s" % statistics.median(rep))
    print("peak RSS native %.1f MiB, tprof %.1f MiB: tprof's own %.1f MiB" %
          (rss_nat / 2**20, rss_tp / 2**20, (rss_tp - rss_nat) / 2**20))
    print("JSON %.2f MB; partial %s; %d sites: %d written, %d rolled up into %d rows; "
          "sites + rows == allocs total: %s" %
          (os.path.getsize(jp) / 1e6, d["partial"], m["nsites_total"], len(m["sites"]), rolled,
           len(m.get("site_rollups", [])), exact))
    for n in d["notes"]:
        if n.startswith("call-site table full"):
            print("note: " + n)
