#!/usr/bin/env python3
"""Check the DOM of an HTML report, as headless Chromium left it after its script ran
(chromium --dump-dom), against the JSON report of the same run.

htmlcheck.py REPORT.json DOM.html

The script drew every chart and none failed; the ops table holds every op of the JSON, with its
calls and self time exactly (the cells' data-v); the op-time flame graph has a cell per op of
op_stacks; the heap chart marks the peak with its op and has a point per point of memory.series,
whose hover names its op; the step chart has one point per point of
steps.series; the latency chart names the top ops. With a memory ledger: the "Where the RSS went"
table holds the JSON's rows in their order (part, what, resident, mapped, share, in the page's
formats), under its line on the peak and the reading; the RSS chart has a band per part that was
ever resident (and its legend), each naming its part on hover, a point per reading of
memory.ledger_series with its parts on hover, and its marker at the highest reading. Without a
series the chart says so; without a ledger there is no table. Exit 1 with what differed."""
import decimal
import html.parser
import json
import sys

# The RSS chart's parts, bottom up, and what their bands say on hover (report/render/html_page.js).
PARTS = [
    ("heap", "the heap blocks in use"),
    ("allocator", "the allocator's memory besides the blocks in use: freed memory it keeps, and its overhead"),
    ("file", "mapped files that are not code: the program's own mmap calls and the others (glibc's locale archive)"),
    ("anonymous", "anonymous memory the program mapped itself"),
    ("stacks", "the threads' stacks"),
    ("libraries", "the code and data of the executable and its libraries"),
    ("tprof", "tprof's own memory"),
    ("other", "the kernel's areas"),
]
RSS_NOTE = ("The resident memory at each reading of the memory ledger, by part, the heap at the bottom; "
            "the marker is the highest reading, whose parts the table below lists. Hover for a part or a reading.")
RSS_NONE = ("No RSS by part in this report (it has no memory ledger: /proc/self/smaps could not be read, "
            "or the report was merged or written by an older tprof).")


def sig3(d, unit):
    """report/units.c's sig3: 3 significant digits (printf rounds the exact value half to even,
    as Python's format does)."""
    dec = 2 if d < 9.995 else 1 if d < 99.95 else 0
    return f"{d:.{dec}f} {unit}"


def c_bytes(v):
    """tp_fmt_bytes, as the tables print bytes."""
    if v < 1024:
        return f"{v} B"
    d, u = float(v), 0
    while True:
        d /= 1024
        u += 1
        if not (d >= 999.5 and u < 6):
            break
    return sig3(d, ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"][u])


def c_ns(v):
    """tp_fmt_ns, as the tables print times (up to 999 s)."""
    d = float(v)
    if v < 1000:
        return f"{v} ns"
    for div, unit in ((1e3, "us"), (1e6, "ms"), (1e9, "s")):
        if d / div < 999.5:
            return sig3(d / div, unit)
    return f"{d / 1e9:.0f} s"


def js_three(v, units, base):
    """html_page.js's three(): toFixed rounds the exact value, a tie up."""
    v, i = float(v), 0
    while v >= base * 0.9995 and i < len(units) - 1:
        v /= base
        i += 1
    dec = 0 if v >= 99.95 or i == 0 else 1 if v >= 9.995 else 2
    q = decimal.Decimal(v).quantize(decimal.Decimal(1).scaleb(-dec), rounding=decimal.ROUND_HALF_UP)
    return f"{q} {units[i]}"


def js_ns(v):
    return js_three(v, ["ns", "us", "ms", "s"], 1000)


def js_bytes(v):
    return js_three(v, ["B", "KiB", "MiB", "GiB", "TiB"], 1024)


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.stack, self.body, self.rows, self.row = [], {}, {}, None
        self.text_in = {}  # id of the chart -> its text
        self.titles_in = {}  # id of the chart -> the text of its <title> elements
        self.count_in = {}  # (id, tag, class) -> count
        self.elems_in = {}  # id of the chart -> its elements, each {tag, a: attributes, title}
        self.key_in = {}  # id of the chart -> the words of its legend (a p.key in it)
        self.cell, self.table = None, None
        self.tables = {}  # id of a table -> its body's rows, each a list of cells
        self.all_text = ""

    def chart(self):
        for tag, a, _ in reversed(self.stack):
            if a.get("class") == "chart":
                return a.get("id")
        return None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag == "table":
            self.table = a.get("id")
        if tag == "tr" and self.table:
            self.row = []
        if tag == "td" and self.row is not None:
            self.cell = {"v": a.get("data-v"), "text": "", "title": a.get("title")}
        c, rec = self.chart(), None
        if c:
            key = (c, tag, a.get("class"))
            self.count_in[key] = self.count_in.get(key, 0) + 1
            rec = {"tag": tag, "a": a, "title": ""}
            self.elems_in.setdefault(c, []).append(rec)
        if tag not in ("meta", "br", "img", "input", "link"):
            self.stack.append((tag, a, rec))

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.row.append(self.cell)
            self.cell = None
        if tag == "tr" and self.row:
            self.tables.setdefault(self.table, []).append(self.row)
            if self.table == "ops":
                # an op shown by a short name has its full name on hover
                self.rows[self.row[0]["title"] or self.row[0]["text"]] = self.row
            self.row = None
        elif tag == "tr":
            self.row = None
        if tag == "table":
            self.table = None
        while self.stack:
            t, _, _ = self.stack.pop()
            if t == tag:
                break

    def handle_data(self, data):
        self.all_text += data
        if self.cell is not None:
            self.cell["text"] += data
        c = self.chart()
        if c:
            self.text_in[c] = self.text_in.get(c, "") + data + "\n"
            if self.stack and self.stack[-1][0] == "title":
                self.titles_in[c] = self.titles_in.get(c, "") + data + "\n"
                if len(self.stack) > 1 and self.stack[-2][2]:
                    self.stack[-2][2]["title"] += data
            if self.stack and self.stack[-1][0] == "p" and self.stack[-1][1].get("class") == "key":
                self.key_in.setdefault(c, []).append(data)


def name_of(cell):
    return cell["title"] or cell["text"]


def tables(d, dom):
    """The tables the text report has too: Amdahl, per process (merged), steps, call sites."""
    bad = []
    am = d["verdict"]["amdahl"][:10]
    rows = dom.tables.get("amdahl", [])
    if [name_of(r[0]) for r in rows] != [a["op"] for a in am]:
        bad.append(f"Amdahl table: {[name_of(r[0]) for r in rows]}, JSON {[a['op'] for a in am]}")
    elif any(abs(float(r[1]["v"]) - a["share"]) > 1e-9 for r, a in zip(rows, am)):
        bad.append("Amdahl table: a share differs from the JSON")
    if d["merged_processes"] > 1:
        want = [o for o in d["ops"] if o["nprocs"] > 1][:10]
        rows = dom.tables.get("procs", [])
        got = {name_of(r[0]): r for r in rows}
        if len(rows) != len(want):
            bad.append(f"per-process table: {len(rows)} rows, {len(want)} ops in more than one process")
        for o in want:
            r = got.get(o["name"])
            if not r or [float(r[k]["v"]) for k in (1, 2, 3, 4)] != [o["nprocs"], o["proc_min_ns"], o["proc_mean_ns"], o["proc_max_ns"]]:
                bad.append(f"per-process table: {o['name']} differs from the JSON")
        if f"merged from {d['merged_processes']} processes" not in dom.all_text or "pid -1" in dom.all_text:
            bad.append("header: not the merged report's")
    st = d["steps"]
    if st["count"] and not st["series"] and "a merged report keeps no step-by-step series" not in dom.all_text:
        bad.append("step chart: no word on the steps of a merged report")
    if st["count"] and f"{st['count']} step{'s' if st['count'] != 1 else ''} of {st['name']}" not in dom.all_text:
        bad.append(f"steps: no summary of the {st['count']} steps")
    if d.get("outside_ops") and "outside every op, by CPU samples" not in dom.all_text:
        bad.append("no line on where the samples outside every op landed")
    sites = [s for s in d["memory"]["sites"] if s["live_at_peak_bytes"] or s["peak_live_bytes"]]
    rows = dom.tables.get("sites", [])
    if sites and (not rows or float(rows[0][1]["v"]) != max(s["live_at_peak_bytes"] for s in sites)):
        bad.append("call sites table: missing, or its first row is not the most live at the peak")
    return bad


def ledger(d, dom):
    """The memory ledger: its table, and the RSS chart of memory.ledger_series."""
    bad, m = [], d["memory"]
    rows, want = dom.tables.get("ledger", []), m.get("ledger") or []
    if not want:
        if rows or "Where the RSS went" in dom.all_text:
            bad.append("ledger table: in the page of a report without a ledger")
    else:
        got = [[c["text"] for c in r] for r in rows]
        peak = m["peak_rss_bytes"]
        exp = [[w["kind"], w["name"] or "-", c_bytes(w["resident_bytes"]),
                c_bytes(w["mapped_bytes"]) if w["mapped_bytes"] else "-",
                f"{100 * (w['resident_bytes'] / peak if peak else 0):.1f}%"] for w in want]
        if got != exp:
            bad.append(f"ledger table: {got}, JSON {exp}")
        elif [float(r[2]["v"]) for r in rows] != [w["resident_bytes"] for w in want]:
            bad.append("ledger table: a resident figure differs from the JSON")
        n = m["ledger_reads"]
        line = (f"peak RSS {c_bytes(peak)}; the parts are from the reading at {c_ns(m['peak_rss_ns'])} "
                f"into the run, the highest RSS of {n} reading{'' if n == 1 else 's'} "
                f"({m['ledger_method']}): RSS {c_bytes(m['ledger_rss_bytes'])}, "
                f"PSS {c_bytes(m['ledger_pss_bytes'])}.")
        if line not in dom.all_text:
            bad.append(f"ledger table: no line {line!r}")
    s = m.get("ledger_series") or []
    if not s:
        if dom.text_in.get("rss-time", "").strip() != RSS_NONE:
            bad.append(f"RSS chart: not the sentence for no series: {dom.text_in.get('rss-time')!r}")
        if RSS_NOTE in dom.all_text:
            bad.append("RSS chart: a note on what it shows, with nothing shown")
        return bad
    if RSS_NOTE not in dom.all_text:
        bad.append("RSS chart: no note on what it shows")
    el = dom.elems_in.get("rss-time", [])
    bands = [e for e in el if e["tag"] == "path" and e["a"].get("class") == "band"]
    kinds = []
    for k, what in PARTS:
        most, at = 0, 0
        for p in s:
            if p.get(k + "_bytes", 0) > most:
                most, at = p[k + "_bytes"], p["ns"]
        if most:
            kinds.append((k, f"{k}: {what}; at most {js_bytes(most)}, at {js_ns(at)}"))
    if [(b["a"].get("data-kind"), b["title"]) for b in bands] != kinds:
        bad.append(f"RSS chart: bands {[(b['a'].get('data-kind'), b['title']) for b in bands]}, "
                   f"JSON {kinds}")
    if dom.key_in.get("rss-time", []) != [k for k, _ in kinds]:
        bad.append(f"RSS chart: legend {dom.key_in.get('rss-time')}, parts {[k for k, _ in kinds]}")
    dots = [e["title"] for e in el if e["tag"] == "circle" and e["a"].get("class") == "rssdot"]
    exp = []
    for p in s:
        parts = [f"{k} {js_bytes(p[k + '_bytes'])}" for k, _ in PARTS if p.get(k + "_bytes")]
        exp.append(f"{js_ns(p['ns'])}: RSS {js_bytes(p['rss_bytes'])}" +
                   (f" ({', '.join(parts)})" if parts else ""))
    if len(dots) != len(s):
        bad.append(f"RSS chart: {len(dots)} points, {len(s)} in memory.ledger_series")
    elif dots != exp:
        bad.append(f"RSS chart: points {dots}, JSON {exp}")
    label = f"highest reading {js_bytes(m['ledger_rss_bytes'])} at {js_ns(m['peak_rss_ns'])}"
    if [e for e in el if e["a"].get("id") == "rss-peak-label"] == [] or label + "\n" not in dom.text_in["rss-time"]:
        bad.append(f"RSS chart: no marker {label!r}")
    return bad


def main():
    d = json.load(open(sys.argv[1]))
    dom = Dom()
    dom.feed(open(sys.argv[2], encoding="utf-8").read())
    bad = []
    if dom.body.get("data-drawn") != "6" or dom.body.get("data-failed") != "0":
        bad.append(f"charts drawn {dom.body.get('data-drawn')}, failed {dom.body.get('data-failed')}")
    for o in d["ops"]:
        row = dom.rows.get(o["name"])
        if not row:
            bad.append(f"op {o['name']}: not in the ops table")
            continue
        want = o["bound"] if o["bound"] in ("compute", "memory") else "-"
        if len(row) > 9 and row[9]["text"] != want:
            bad.append(f"op {o['name']}: bound {row[9]['text']} in the page, {want} as the text says")
        if float(row[2]["v"]) != o["calls"] or float(row[4]["v"]) != o["self_ns"]:
            bad.append(f"op {o['name']}: calls {row[2]['v']} self {row[4]['v']} in the page, "
                       f"{o['calls']} and {o['self_ns']} in the JSON")
    if len(dom.rows) != len(d["ops"]):
        bad.append(f"{len(dom.rows)} rows in the ops table, {len(d['ops'])} ops in the JSON")
    flame = dom.titles_in.get("flame-time", "")
    for s in d["op_stacks"]:
        for name in s["ops"]:
            if name + "\n" not in flame:
                bad.append(f"op-time flame graph: no cell for {name}")
    m = d["memory"]
    heap = dom.text_in.get("heap-time", "")
    if m["series"] and not (m["peak_op"] or "") in heap or "peak " not in heap:
        bad.append(f"heap over time: no peak label with {m['peak_op']}: {heap!r}")
    hdots = dom.count_in.get(("heap-time", "circle", "heapdot"), 0)
    if hdots != len(m["series"]):
        bad.append(f"heap chart: {hdots} points, {len(m['series'])} in memory.series")
    htips = dom.titles_in.get("heap-time", "")
    for op in sorted({p.get("op") for p in m["series"]} - {None}):
        if ", op " + op + "\n" not in htips:
            bad.append(f"heap chart: no point names op {op}")
    dots = dom.count_in.get(("step-time", "circle", "stepdot"), 0) + \
        dom.count_in.get(("step-time", "circle", "stepwarm"), 0)
    if dots != len(d["steps"]["series"]):
        bad.append(f"step chart: {dots} points, {len(d['steps']['series'])} in steps.series")
    warm = dom.count_in.get(("step-time", "circle", "stepwarm"), 0)
    want_warm = sum(p["index"] < d["steps"]["warmup"] for p in d["steps"]["series"])
    if warm != want_warm:
        bad.append(f"step chart: {warm} warm-up points, {want_warm} in the JSON")
    lat = dom.text_in.get("latency", "")
    for o in sorted(d["ops"], key=lambda o: -o["self_ns"])[:10]:
        if o["latency_ns"]["n"] and o["name"] + "\n" not in lat:
            bad.append(f"latency chart: no {o['name']}")
    heapflame = dom.titles_in.get("flame-heap", "")
    if m["peak_bytes"] and "live at the peak" not in heapflame:
        bad.append("heap flame graph: no cell")
    bad += tables(d, dom)
    bad += ledger(d, dom)
    for b in bad:
        print("htmlcheck: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
