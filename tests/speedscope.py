#!/usr/bin/env python3
"""Open a tprof trace or folded-stack file in speedscope (the npm package's offline viewer,
headless in Chromium) and check what speedscope made of it against the file and the report.

speedscope.py SPEEDSCOPE_DIR -- REPORT.json trace TRACE.json FRAME=CALLS...
                             -- REPORT.json folded FILE.folded STACK=VALUE... [-- ...]
                             -- REPORT.json pprof FILE.pb.gz STACK=VALUE|FRAME@FILE:LINE...

The npm package ships only the built app, so the profile is handed to it the way its own CLI
does (a script calling speedscope.loadFileFromBase64), and what it imported is read back through
its own export (Ctrl+S, caught before the download), all files in one browser run: the frames
and events of every profile, exactly as its importer built them. Import warnings (an event
closed out of order, a frame left open) fail the check.

trace: one profile per thread that has op calls, named "<program> (pid P), <thread> (tid T)"
with no id twice; in each, one frame per op (not one per call); per op, the opened frames add
up to the report's calls less those summarised (FRAME=CALLS lists the ops expected, exactly),
and the time speedscope gives each frame is the sum of its events' durations in the file.
folded: one profile whose stacks and weights are the file's lines, exactly, the unit line
skipped; STACK=VALUE pairs are exact totals of the lines that are or end in STACK; main is only
ever a root frame.
pprof: one sampled profile whose stacks and weights are the file's samples (tests/pprofread.py
decodes it) by their default value, which speedscope takes as the last sample type, a location's
frame being the function its last line names (the one the inlined functions were inlined into);
its unit the file's; STACK=VALUE as for folded; FRAME@FILE:LINE[,LINE]: a frame of that name shows
that source file (its base name) and one of the lines (speedscope keeps one frame per function,
with the line of one of its locations). Prints what is wrong and exits 1."""
import base64
import collections
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

PAGE_SCRIPT = """
(function () {
  var files = %s, out = [], warns = [], i = 0;
  ['warn', 'error'].forEach(function (k) {
    var o = console[k];
    console[k] = function () {
      warns.push(k + ': ' + Array.prototype.join.call(arguments, ' '));
      o.apply(console, arguments);
    };
  });
  function done() {
    var p = document.createElement('pre');
    p.id = 'tprof-export';
    p.textContent = JSON.stringify(out);
    document.body.appendChild(p);
  }
  URL.createObjectURL = function (blob) {
    blob.text().then(function (t) {
      var e = JSON.parse(t);
      if (i >= files.length || e.name !== files[i][0]) return; /* the previous file's */
      out.push({exported: e, warnings: warns});
      warns = [];
      if (++i < files.length) speedscope.loadFileFromBase64(files[i][0], files[i][1]);
    });
    return 'about:blank';
  };
  HTMLAnchorElement.prototype.click = function () {};
  speedscope.loadFileFromBase64(files[0][0], files[0][1]);
  var tries = 0, t = setInterval(function () {
    if (i >= files.length || ++tries > 2000) { clearInterval(t); done(); return; }
    window.dispatchEvent(new KeyboardEvent('keydown', {key: 's', ctrlKey: true}));
  }, 25);
})();
"""


def bad(msg):
    print("speedscope:", msg)
    sys.exit(1)


def load_all(ss_dir, paths):
    """What speedscope imported from each path, as its export, in one browser run (each file
    loaded in turn, as a user drops one after another)."""
    if len(set(map(os.path.basename, paths))) != len(paths):
        bad("two files of the same name: their exports could not be told apart")
    tmp = tempfile.mkdtemp(prefix="tprof-ss.")
    try:
        files = [[os.path.basename(p), base64.b64encode(open(p, "rb").read()).decode()] for p in paths]
        with open(os.path.join(tmp, "p.js"), "w") as f:
            f.write(PAGE_SCRIPT % json.dumps(files))
        url = "file://%s/dist/release/index.html#localProfilePath=%s/p.js" % (ss_dir, tmp)
        cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
               "--no-first-run", "--disable-background-networking", "--disable-component-update",
               "--disable-sync", "--user-data-dir=" + os.path.join(tmp, "u"),
               "--virtual-time-budget=60000", "--dump-dom", url]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    m = re.search(r'<pre id="tprof-export">(.*?)</pre>', out.stdout, re.S)
    if not m:
        bad(f"speedscope exported nothing: {out.stdout[-400:]} {out.stderr[-400:]}")
    got = json.loads(html.unescape(m.group(1)))
    if len(got) != len(paths):
        bad(f"speedscope exported {len(got)} of {len(paths)} files")
    for p, g in zip(paths, got):
        if g["warnings"]:
            bad(f"speedscope warned while importing {p}: {g['warnings'][:5]}")
    return [g["exported"] for g in got]


def frames_of_events(prof, names):
    """Per frame name: (frames with that name, calls, total) of an evented profile."""
    per, stack = {}, []
    for e in prof["events"]:
        name = names[e["frame"]]
        if e["type"] == "O":
            stack.append((e["frame"], e["at"]))
            c = per.setdefault(name, [set(), 0, 0.0])
            c[0].add(e["frame"])
            c[1] += 1
        else:
            f, at = stack.pop()
            if f != e["frame"]:
                bad(f"{prof['name']}: frame {names[f]} closed as {name}")
            per[name][2] += e["at"] - at
    if stack:
        bad(f"{prof['name']}: frames left open")
    return per


def check_trace(exp, d, path, want):
    t = json.load(open(path))
    names = [f["name"] for f in exp["shared"]["frames"]]
    pid = d["program"]["pid"]
    proc = next(e["args"]["name"] for e in t["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name")
    threads = {e["tid"]: e["args"]["name"] for e in t["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
    xs = {}
    for e in t["traceEvents"]:
        if e["ph"] == "X":
            xs.setdefault(e["tid"], []).append(e)
    if len(exp["profiles"]) != len(xs):
        bad(f"{len(exp['profiles'])} profiles for {len(xs)} threads with calls")
    calls = {}
    for prof in exp["profiles"]:
        m = re.fullmatch(r"(.*) \(pid (\d+)\), (.*) \(tid (\d+)\)", prof["name"])
        if not m or m.group(1) != proc or int(m.group(2)) != pid or "(pid" in m.group(1) \
                or "(tid" in m.group(3) or threads.get(int(m.group(4))) != m.group(3):
            bad(f"profile name {prof['name']!r}: not '{proc} (pid {pid}), <thread name> (tid N)'")
        tid = int(m.group(4))
        per = frames_of_events(prof, names)
        file_ops = {}
        for e in xs[tid]:
            c = file_ops.setdefault(e["name"], [0, 0.0])
            c[0] += 1
            c[1] += e["dur"]
        if set(per) != set(file_ops):
            bad(f"{prof['name']}: frames {sorted(per)}, the file's ops {sorted(file_ops)}")
        for name, (frames, n, total) in per.items():
            if len(frames) != 1:
                bad(f"{prof['name']}: {len(frames)} frames named {name}, one per op expected")
            if n != file_ops[name][0]:
                bad(f"{prof['name']}: {name} opened {n} times, {file_ops[name][0]} events")
            # speedscope closes each event at ts + dur: the sum is the file's to float rounding
            if abs(total - file_ops[name][1]) > 1e-6 * n:
                bad(f"{prof['name']}: {name} totals {total} us in speedscope, {file_ops[name][1]} in the file")
            calls[name] = calls.get(name, 0) + n
    # Calls past the cap or the budget are instant events, which speedscope leaves out.
    report = {o["name"]: o["calls"] for o in d["ops"]}
    for e in t["traceEvents"]:
        if e["ph"] == "i":
            report[e["args"]["op"]] -= e["args"]["calls"]
    for name, n in calls.items():
        if n != report[name]:
            bad(f"{name}: {n} calls in speedscope, {report[name]} drawn in the report")
    expected = dict((k, int(v)) for k, v in (w.rsplit("=", 1) for w in want))
    if expected and calls != expected:
        bad(f"speedscope's frames {calls} != {expected}")
    print("speedscope trace:", ", ".join(f"{k} {v} calls" for k, v in sorted(calls.items())))


def stacks_of(exp):
    """The weight speedscope gives each stack (frame names joined by ';', root first) of the one
    profile it imported: the time the stack's top frame is open with nothing above it."""
    names = [f["name"] for f in exp["shared"]["frames"]]
    if len(exp["profiles"]) != 1 or exp["profiles"][0]["type"] != "evented":
        bad(f"not one profile: {[(p['type'], p['name']) for p in exp['profiles']]}")
    got, stack, at = {}, [], 0
    for e in exp["profiles"][0]["events"]:
        if stack and e["at"] > at:
            k = ";".join(names[i] for i in stack)
            got[k] = got.get(k, 0) + e["at"] - at
        at = e["at"]
        if e["type"] == "O":
            stack.append(e["frame"])
        elif not stack or stack.pop() != e["frame"]:
            bad("frames closed out of order")
    return {k: int(v) for k, v in got.items()}


def check_folded(exp, path, want):
    lines = {}
    for line in open(path):
        if line.startswith("#"):
            continue
        stack, v = line.rstrip("\n").rsplit(" ", 1)
        lines[stack] = int(v)
    got = stacks_of(exp)
    if got != lines:
        bad(f"speedscope's stacks differ from the file's: {sorted(set(got) ^ set(lines))[:5]}")
    for k in got:
        if "main" in k.split(";")[1:]:
            bad(f"main below the root (a second tower): {k}")
    for w in want:
        k, v = w.rsplit("=", 1)
        total = sum(n for s, n in got.items() if s == k or s.endswith(";" + k))
        if total != int(v):
            bad(f"speedscope's {k!r}: {total}, want {v}")
    print(f"speedscope folded: {len(got)} stacks, {sum(got.values())} in all")


def check_pprof(exp, path, want):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import pprofread
    prof = pprofread.read(path)
    frames = exp["shared"]["frames"]
    got = stacks_of(exp)
    unit = prof.types[-1][1]
    if exp["profiles"][0]["unit"] != {"nanoseconds": "nanoseconds", "bytes": "bytes"}.get(unit, "none"):
        bad(f"speedscope's unit {exp['profiles'][0]['unit']} for the file's {unit}")
    file = collections.Counter()
    for x in prof.samples:
        names = [prof.functions[loc["line"][-1]["function_id"]]["name"]
                 for loc in reversed(x["locations"]) if loc["line"]]
        file[";".join(names)] += x["values"][-1]
    got = {k: int(v) for k, v in got.items() if v}
    file = {k: v for k, v in file.items() if v}
    if got != file:
        bad(f"speedscope's stacks differ from the file's: {sorted(set(got.items()) ^ set(file.items()))[:5]}")
    for w in want:
        if "@" in w:
            name, at = w.split("@", 1)
            src, line = at.rsplit(":", 1)
            lines = [int(x) for x in line.split(",")]
            if not any(f["name"] == name and os.path.basename(f.get("file") or "") == src
                       and f.get("line") in lines for f in frames):
                bad(f"no frame {name} at {src}:{line}: {[f for f in frames if f['name'] == name]}")
            continue
        k, v = w.rsplit("=", 1)
        total = sum(n for s, n in got.items() if s == k or s.endswith(";" + k))
        if total != int(v):
            bad(f"speedscope's {k!r}: {total}, want {v}")
    print(f"speedscope pprof: {len(got)} stacks, {sum(got.values())} {unit} in all")


def main():
    # SPEEDSCOPE_DIR -- REPORT.json trace|folded FILE [EXPECTED...] [-- REPORT.json ...]
    a = sys.argv[1:]
    ss_dir, checks = os.path.abspath(a[0]), []
    for w in a[1:]:
        if w == "--":
            checks.append([])
        else:
            checks[-1].append(w)
    if not checks or any(len(c) < 3 or c[1] not in ("trace", "folded", "pprof") for c in checks):
        bad("usage")
    exports = load_all(ss_dir, [c[2] for c in checks])
    for c, exp in zip(checks, exports):
        if c[1] == "trace":
            check_trace(exp, json.load(open(c[0])), c[2], c[3:])
        elif c[1] == "pprof":
            check_pprof(exp, c[2], c[3:])
        else:
            check_folded(exp, c[2], c[3:])


main()
