#!/bin/sh
# tprof on a machine with an NVIDIA GPU: builds bench/gpu/gpu_check.cu (nvcc, cuBLAS; the CUDA
# runtime linked statically, nvcc's default, so the driver is reached through cuGetProcAddress),
# runs it under libtprof.so and prints each figure tprof measured beside what the program did:
# device memory from the program's call sites (to the byte), what is left at exit, copy bytes
# each way, kernel launches of its kernel, and, where nsys is installed, kernel time on the device
# by nsys beside tprof's (which does not measure it yet), and cublasSgemm's calls and FLOPs.
#   sh bench/gpu/check.sh [path/to/libtprof.so]       (from the build tree; exit 0: all exact)
set -u
here=$(cd "$(dirname "$0")" && pwd)
so=${1:-$here/../../.libs/libtprof.so}
out=${OUT:-$(mktemp -d)}
command -v nvcc > /dev/null || { echo "check.sh: no nvcc (the CUDA toolkit): nothing to build"; exit 2; }
[ -f "$so" ] || { echo "check.sh: no $so"; exit 2; }
nvidia-smi -L 2> /dev/null | head -4
nvcc -O2 -o "$out/gpu_check" "$here/gpu_check.cu" -lcublas || { echo "check.sh: nvcc failed"; exit 2; }
"$out/gpu_check" > "$out/native.txt" || { echo "check.sh: gpu_check failed natively"; exit 2; }
# the report, or the record when no tprof program is beside the library: both have "gpu"
rm -f "$out/run.json"
TPROF_JSON="$out/run.json" TPROF_OUTPUT="$out/run.txt" LD_PRELOAD="$so" "$out/gpu_check" \
  > "$out/tprof.txt" || { echo "check.sh: gpu_check failed under tprof"; exit 1; }
cmp -s "$out/native.txt" "$out/tprof.txt" || echo "check.sh: stdout differs under tprof"
if command -v nsys > /dev/null; then
  nsys profile -o "$out/nsys" --force-overwrite true "$out/gpu_check" > /dev/null 2>&1 &&
    nsys stats -q --report cuda_gpu_kern_sum --format csv "$out/nsys.nsys-rep" > "$out/kern.csv" 2> /dev/null
fi
python3 - "$out" << 'PY'
import csv, json, os, sys
out = sys.argv[1]
want = dict(w.split("=") for w in open(os.path.join(out, "native.txt")).read().split()[1:])
want = {k: int(v) for k, v in want.items()}
d = json.load(open(os.path.join(out, "run.json")))
g = d.get("gpu", {})
exe = os.path.join(out, "gpu_check")
def mine(s):
    return any((f.get("module") or "").endswith("/gpu_check") or f.get("function") == "main" for f in s["frames"])
prog = [s for s in g.get("sites", []) if mine(s)]
rows = []
def row(what, got, exp, exact=True):
    ok = got == exp if exact else None
    rows.append((what, got, exp, "ok" if ok else ("-" if ok is None else "DIFFERS")))
row("device bytes from the program's calls", sum(s["bytes"] for s in prog), want["program_bytes"])
row("of them live at the device's peak", sum(s["live_at_peak_bytes"] for s in prog), want["program_peak"])
row("of them still allocated at exit", sum(s["live_at_exit_bytes"] for s in prog), want["left"])
dev = g.get("devices", [{}])[0] if g.get("devices") else {}
row("device peak, all (cuBLAS's workspace too)", dev.get("peak_bytes"), ">= %d" % want["program_peak"], False)
cp = {c["direction"]: c for c in g.get("copies", [])}
row("bytes host to device", cp.get("htod", {}).get("bytes", 0), want["htod"])
row("bytes device to host", cp.get("dtoh", {}).get("bytes", 0), want["dtoh"])
k = [x for x in g.get("kernels", []) if x["name"] and "scale" in x["name"]]
row("launches of scale", k[0]["launches"] if k else 0, want["scale_launches"])
row("kernels named / launched", "%d / %d" % (sum(1 for x in g.get("kernels", []) if x["name"]), sum(x["launches"] for x in g.get("kernels", []))), "-", False)
gm = [x for x in g.get("gemms", []) if x["function"] == "cublasSgemm_v2" and (x["m"], x["n"], x["k"]) == (512, 512, 512)]
row("cublasSgemm_v2 512x512x512 calls", gm[0]["calls"] if gm else 0, want["gemm_calls"])
row("cublasSgemm_v2 512x512x512 FLOPs", gm[0]["flops"] if gm else 0, want["gemm_flops"])
row("cuBLAS launch time on the host, ns", gm[0]["host_ns"] if gm else 0, "-", False)
sy = g.get("syncs", [])
row("host waiting in synchronise calls, ns", sum(s["ns"] for s in sy), "-", False)
kern = os.path.join(out, "kern.csv")
if os.path.exists(kern) and os.path.getsize(kern):
    for r in csv.DictReader(open(kern)):
        name = r.get("Name", "")
        row("nsys: %s total ns (%s instances)" % (name[:40], r.get("Instances", "?")), r.get("Total Time (ns)", "?"), "tprof: not measured", False)
else:
    row("kernel time on the device", "tprof: not measured", "nsys not installed", False)
w = max(len(r[0]) for r in rows)
for r in rows:
    print("%-*s  %-34s %-22s %s" % (w, r[0], r[1], r[2], r[3]))
sys.exit(1 if any(r[3] == "DIFFERS" for r in rows) else 0)
PY
