#!/usr/bin/env python3
"""Check a Chrome trace and folded stacks against the JSON report of the same run.

tracecheck.py REPORT.json trace TRACE.json [--cap N] [--max BYTES] [--cut]
tracecheck.py REPORT.json folded TIME.folded HEAP.folded

trace: the file parses and keeps the Trace Event Format's rules as Catapult (chrome://tracing),
Perfetto and speedscope read them: a top-level object with a traceEvents list and a
displayTimeUnit of "ms" or "ns"; "X" events with name, cat, pid, tid and ts/dur as numbers in
microseconds, and no args (speedscope keys frames by name and args, so per-call args would make
every call a frame of its own); "C" counters whose args are all numbers; "M" process_name and
thread_name metadata with a string name; summaries as process-scoped "i" instant events (never
complete events, which drew as fake stacks). Per op, the complete events plus the summarised
calls equal the report's calls, and an op with FLOPs has one GFLOP/s counter sample per event
(counters named "<op> <shape>", one series "GFLOP/s"; events need not be in time order, which
the format allows);
with no cap or budget hit, every call is an event; nested events lie inside their parent on the
same thread; the heap counter track holds the exact peak; thread names are given for every tid
that has events; otherData and the report's outputs agree; with --max the file fits; with --cut
a signal hurried the report and the calls past its deadline are summarised (never without it).
folded: the first line is a '#' comment naming the unit (nanoseconds, bytes) that does not end
in a number (so flamegraph.pl, inferno and speedscope skip it); every other line is "frames value"
with an integer value; op-time lines match the report's op_stacks and add up to the ops' self
time plus the time outside ops; heap lines add up to the peak exactly and main, when present, is
the first frame (one tower for the program). Prints what is wrong and exits 1."""
import json
import os
import re
import sys

LINE = re.compile(r"^(\S.*) (\d+)$")
WHYS = ("past TPROF_TRACE_CAP", "past TPROF_TRACE_MAX", "past the report's deadline")


def bad(msg):
    print("tracecheck:", msg)
    sys.exit(1)


def check_trace(d, path, cap, budget, cut):
    size = os.path.getsize(path)
    try:
        # NaN and Infinity are Python's extensions, not JSON: viewers refuse them
        t = json.load(open(path), parse_constant=lambda c: bad(f"{path}: {c} is not JSON"))
    except Exception as e:  # noqa: BLE001 - any parse failure is the finding
        bad(f"{path} does not parse: {e}")
    if budget is not None and size > budget:
        bad(f"{path} is {size} bytes, over the budget {budget}")
    if not isinstance(t, dict) or t.get("displayTimeUnit") not in ("ms", "ns"):
        bad("not a top-level object with displayTimeUnit ms or ns")
    ev = t.get("traceEvents")
    if not isinstance(ev, list) or not ev:
        bad("no traceEvents")
    calls = {o["name"]: o["calls"] for o in d["ops"]}
    with_flops = {o["name"] for o in d["ops"] if o.get("flops")}
    xs, summ, late, counters, names, procs, gflops = {}, {}, {}, [], {}, 0, {}
    by_tid = {}

    def num(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    for e in ev:
        ph = e.get("ph")
        if ph not in ("X", "C", "M", "i") or not isinstance(e.get("name"), str) or not isinstance(e.get("pid"), int):
            bad(f"malformed event {e}")
        if e["pid"] != d["program"]["pid"]:
            bad(f"event of pid {e['pid']}, the run was {d['program']['pid']}")
        if ph == "M":
            if not isinstance(e.get("tid"), int) or not isinstance(e.get("args", {}).get("name"), str):
                bad(f"bad metadata {e}")
            if e["name"] == "thread_name":
                names[e["tid"]] = e["args"]["name"]
            elif e["name"] == "process_name":
                procs += 1
            else:
                bad(f"unknown metadata {e}")
            continue
        if not num(e.get("ts")) or e["ts"] < 0:
            bad(f"bad ts in {e}")
        if ph == "C":
            a = e.get("args")
            if not isinstance(a, dict) or not a or not all(num(v) and v >= 0 for v in a.values()):
                bad(f"counter without numeric args {e}")
            if e["name"] == "heap":
                if list(a) != ["live_bytes"] or not isinstance(a["live_bytes"], int):
                    bad(f"bad heap counter {e}")
                counters.append(e)
            else:  # "<op>" or "<op> <shape>", one series
                ops = [o for o in calls if e["name"] == o or e["name"].startswith(o + " ")]
                if e.get("cat") != "GFLOP/s" or list(a) != ["GFLOP/s"] or not ops:
                    bad(f"unknown counter {e}")
                op = max(ops, key=len)
                gflops[op] = gflops.get(op, 0) + 1
            continue
        if ph == "i":
            a = e.get("args", {})
            if e.get("s") != "p" or e.get("cat") != "summary" or a.get("op") not in calls \
                    or not isinstance(a.get("calls"), int) or a["calls"] <= 0 \
                    or not num(a.get("total_us")) or not num(a.get("last_end_us")) \
                    or a["last_end_us"] < e["ts"] or a.get("why") not in WHYS:
                bad(f"bad summary {e}")
            summ[a["op"]] = summ.get(a["op"], 0) + a["calls"]
            late[a["op"]] = late.get(a["op"], 0) + (a["calls"] if a["why"] == WHYS[2] else 0)
            continue
        if not num(e.get("dur")) or e["dur"] < 0 or not isinstance(e.get("tid"), int) \
                or not isinstance(e.get("cat"), str):
            bad(f"bad complete event {e}")
        if "args" in e:
            bad(f"a complete event with args (one frame per call in speedscope): {e}")
        if e["name"] not in calls:
            bad(f"event of an op not in the report: {e['name']}")
        xs[e["name"]] = xs.get(e["name"], 0) + 1
        by_tid.setdefault(e["tid"], []).append(e)
    for name in calls:
        want = xs.get(name, 0) if name in with_flops else 0
        if gflops.get(name, 0) != want:
            bad(f"{name}: {gflops.get(name, 0)} GFLOP/s samples for {xs.get(name, 0)} events")
    out, other = d["outputs"], t["otherData"]
    for name, n in calls.items():
        if xs.get(name, 0) + summ.get(name, 0) != n:
            bad(f"{name}: {xs.get(name, 0)} events + {summ.get(name, 0)} summarised != {n} calls")
    total = sum(calls.values())
    if out["trace_events"] != sum(xs.values()) or other["events"] != out["trace_events"]:
        bad(f"events: report {out['trace_events']}, file {other['events']}, counted {sum(xs.values())}")
    past_deadline = out.get("trace_past_deadline", 0)
    if out["trace_past_cap"] + out["trace_past_max"] + past_deadline != sum(summ.values()):
        bad("summarised calls in the report and in the file differ")
    if past_deadline != sum(late.values()) or other.get("summarised_past_deadline", 0) != past_deadline:
        bad(f"calls past the deadline: report {past_deadline}, file {sum(late.values())}")
    if bool(past_deadline) != cut:
        bad(f"{past_deadline} calls past the deadline, {'' if cut else 'not '}expected a cut trace")
    if out["trace_calls"] != total:
        bad(f"trace_calls {out['trace_calls']} != {total} op calls")
    if cap is not None and out["trace_events"] + out["trace_past_max"] > cap:
        bad(f"more than {cap} calls kept")
    if cap is None and budget is None and sum(summ.values()) != past_deadline:
        bad("calls were summarised with neither cap nor budget hit")
    if out["trace_bytes"] != size:
        bad(f"trace_bytes {out['trace_bytes']} != file size {size}")
    if procs != 1:
        bad("no process name")
    for tid in by_tid:
        if tid not in names:
            bad(f"tid {tid} has events but no thread_name")
    # Nesting: on one thread, events either nest or do not overlap (0.002 us of rounding).
    for tid, es in by_tid.items():
        es.sort(key=lambda e: (e["ts"], -e["dur"]))
        open_ = []
        for e in es:
            while open_ and e["ts"] >= open_[-1]["ts"] + open_[-1]["dur"] - 0.002:
                open_.pop()
            if open_ and e["ts"] + e["dur"] > open_[-1]["ts"] + open_[-1]["dur"] + 0.002:
                bad(f"events overlap without nesting on tid {tid}: {open_[-1]} and {e}")
            open_.append(e)
    peak = d["memory"]["peak_bytes"]
    if peak and not any(c["args"]["live_bytes"] == peak for c in counters):
        bad(f"the heap track does not hold the peak {peak}")
    if any(c["args"]["live_bytes"] > peak for c in counters):
        bad("a heap sample above the peak")
    if len(counters) != out["trace_heap_samples"]:
        bad(f"{len(counters)} heap samples, report says {out['trace_heap_samples']}")
    return names, by_tid


def read_folded(path, unit):
    lines = {}
    f = open(path)
    head = f.readline().rstrip("\n")
    if not head.startswith("# ") or unit not in head or re.search(r"\s\d+$", head):
        bad(f"{path}: the first line does not state the unit {unit} as a comment: {head!r}")
    for n, line in enumerate(f, 2):
        m = LINE.match(line.rstrip("\n"))
        if not m:
            bad(f"{path}:{n}: not 'frames value': {line!r}")
        if m.group(1) in lines:
            bad(f"{path}:{n}: stack written twice")
        lines[m.group(1)] = int(m.group(2))
    return lines


def check_folded(d, time_path, heap_path):
    tl = read_folded(time_path, "nanoseconds")
    want = {";".join(s["ops"]): s["self_ns"] for s in d["op_stacks"] if s["self_ns"]}
    got = {k: v for k, v in tl.items() if k != "[outside ops]"}
    if got != want:
        bad(f"op-time lines {got} != op_stacks {want}")
    self_sum = sum(o["self_ns"] for o in d["ops"])
    if abs(sum(got.values()) - self_sum) > len(got) + 1:
        bad(f"op-time lines add to {sum(got.values())}, the ops' self time to {self_sum}")
    if tl.get("[outside ops]", 0) != d["verdict"]["outside_ops_ns"]:
        bad("[outside ops] is not the report's outside_ops_ns")
    hl = read_folded(heap_path, "bytes")
    for k in hl:
        if "main" in k.split(";")[1:]:
            bad(f"{heap_path}: main is not the first frame (a second tower): {k}")
    if sum(hl.values()) != d["memory"]["peak_bytes"]:
        bad(f"heap lines add to {sum(hl.values())}, the peak is {d['memory']['peak_bytes']}")
    return tl, hl


def main():
    a = sys.argv[1:]
    d = json.load(open(a[0]))
    if a[1] == "trace":
        cap = int(a[a.index("--cap") + 1]) if "--cap" in a else None
        budget = int(a[a.index("--max") + 1]) if "--max" in a else None
        names, by_tid = check_trace(d, a[2], cap, budget, "--cut" in a)
        if "--names" in a:
            want = a[a.index("--names") + 1].split(",")
            have = [names[t] for t in by_tid]
            for w in want:
                if w not in have:
                    bad(f"no thread named {w} among {have}")
    elif a[1] == "folded":
        tl, hl = check_folded(d, a[2], a[3])
        for want in a[4:]:  # "time:stack=value" / "heap:stack=value": the lines whose stack
            kind, rest = want.split(":", 1)  # is or ends with ";stack" add up to value
            k, v = rest.rsplit("=", 1)
            lines = tl if kind == "time" else hl
            got = sum(n for s, n in lines.items() if s == k or s.endswith(";" + k))
            if got != int(v):
                bad(f"{kind} lines ending in {k!r}: want {v}, have {got}")
    else:
        bad("usage")


main()
