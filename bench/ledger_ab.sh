#!/bin/sh
# What the memory ledger costs (issue 32): the bundled examples (and python3 with numpy when
# installed) run natively and under each libtprof.so given, interleaved round by round (REPS,
# default 5), so that the load of a shared machine hits every configuration alike. Prints the best
# wall time and the best CPU time (user + system, from wait4) of each configuration, and the last
# library's ratios to the first's (PROGS="cnn numpy": those only). Compare a build before the
# ledger with one after it:
#   bench/ledger_ab.sh EXAMPLES_DIR BEFORE/.libs/libtprof.so AFTER/.libs/libtprof.so
[ $# -ge 2 ] || { echo "usage: bench/ledger_ab.sh EXAMPLES_DIR SO..." >&2; exit 2; }
exec python3 - "$@" << 'PY'
import os, subprocess, sys, tempfile, time
ex, sos = sys.argv[1], sys.argv[2:]
reps = int(os.environ.get("REPS", "5"))
np_py = os.path.join(tempfile.mkdtemp(), "np.py")
open(np_py, "w").write("import numpy as np\na = np.random.rand(1500, 1500)\nfor i in range(6):\n"
                       "    b = a @ a\n    c = [np.ones((400, 400)) * i for _ in range(20)]\n"
                       "print(float(b.sum()) > 0)\n")
progs = {p: [os.path.join(ex, p)] for p in ("cnn", "mlp", "transformer")}
if subprocess.run(["/usr/bin/python3", "-c", "import numpy"], capture_output=True).returncode == 0:
    progs["numpy"] = ["/usr/bin/python3", np_py]
if os.environ.get("PROGS"):  # a subset: PROGS="cnn numpy"
    progs = {p: c for p, c in progs.items() if p in os.environ["PROGS"].split()}
def run(cmd, so):
    env = dict(os.environ, TPROF_OUTPUT="none")
    if so:
        env["LD_PRELOAD"] = so
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return time.monotonic() - t0, ru.ru_utime + ru.ru_stime
best = {}
for r in range(reps):
    for p, cmd in progs.items():
        for i, so in enumerate([None] + sos):
            w, c = run(cmd, so)
            b = best.setdefault((p, i), [w, c])
            b[0], b[1] = min(b[0], w), min(b[1], c)
print("load average:", open("/proc/loadavg").read().split()[:3], "reps", reps)
names = ["native"] + [s for s in sos]
for p in progs:
    cells = "  ".join(f"{names[i]}: {best[(p, i)][0]:.3f} s wall, {best[(p, i)][1]:.3f} s CPU"
                      for i in range(len(names)))
    first, last = best[(p, 1)], best[(p, len(names) - 1)]
    print(f"{p}: {cells}  | last/first: wall {last[0] / first[0]:.3f}, CPU {last[1] / first[1]:.3f}")
PY
