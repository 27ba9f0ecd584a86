/* The report model: everything a tprof report says, as plain data.
 *
 * The preloaded library fills one at exit from its live tables (track/out/collect.c); the CLI fills
 * one from a JSON file (cli/read/json_read.c). Both then hand it to the same code: tp_analyze()
 * derives the roofline, verdict and Amdahl figures, tp_render_json() and tp_render_text() write it.
 * Keeping one model is what makes `tprof report run.json` print exactly what the run printed.
 *
 * Ownership: every pointer in a model is owned by the model and released by tp_report_free().
 * Strings are NUL-terminated and may be NULL where the JSON key is null. Times are nanoseconds,
 * sizes bytes, both unsigned 64-bit. */
#ifndef TPROF_REPORT_H
#define TPROF_REPORT_H

#include "report/estimate.h" /* and stddef.h, stdint.h */

#include "report/series.h"

#define TP_SCHEMA_VERSION 1

/* Latency distribution of one op (or of steps), warm-up calls excluded. */
struct tp_latency {
    uint64_t n; /* samples in the distribution */
    uint64_t min, p50, p95, p99, max;
    double mean, stddev;
    double p50_ci_lo, p50_ci_hi; /* 95% confidence interval of the median */
};

/* One distinct call shape of a typed op (gemm: m, n, k, transposes, layout). */
struct tp_shape {
    char *desc;          /* human form, e.g. "128x256x64 NT row" */
    int64_t m, n, k;     /* k = 0 where it does not apply (gemv) */
    char transa, transb; /* 'N', 'T', 'C', or 0 */
    char layout;         /* 'R' row-major, 'C' column-major */
    uint64_t calls, total_ns, flops, bytes;
};

/* A function that CPU-time samples taken inside an op landed in: what the op's time ran (a ggml
 * mul_mat's ggml_vec_dot_f16, a conv's im2col). */
#define TP_KERNELS 5
struct tp_kernel {
    char *name;       /* the function, demangled; "[module]" when no symbol covers it */
    uint64_t samples; /* the op's samples in it */
    double share;     /* of the op's samples */
};

struct tp_op {
    char *name;     /* symbol as the program knows it: cblas_sgemm, gemm, conv2d_forward */
    char *kind;     /* family: matmul, gemv, conv, attention, norm, softmax, region, op */
    char *source;   /* how it was seen: blas, instrumented, plt, api */
    uint64_t calls; /* every call, warm-up included */
    uint64_t total_ns, self_ns; /* inclusive and exclusive time, summed over threads */
    /* Wall-clock time: while at least one thread was inside the op (anywhere on its stack), and
     * that in the proportion self_ns / total_ns. Never more than total_ns and self_ns; equal to
     * them on one thread; 0 in reports of tprof before they existed. */
    uint64_t wall_ns, self_wall_ns;
    uint64_t flops, bytes; /* 0 when unknown */
    int flops_known;       /* 1 when flops/bytes come from a known signature or the API */
    uint64_t warmup_calls, warmup_ns;
    struct tp_latency latency;
    uint64_t alloc_bytes, alloc_count; /* heap requested while the op ran */
    char *parent; /* the op every call of this one ran directly inside, NULL: none or several */
    struct tp_shape *shapes;
    size_t nshapes;
    struct tp_kernel *kernels; /* most samples first, at most TP_KERNELS; empty without samples */
    size_t nkernels;
    /* Derived by tp_analyze(): */
    double gflops, intensity, attainable_gflops, efficiency, share, self_share;
    double self_wall_share; /* self_wall_ns / program time: what the verdict and Amdahl use */
    char *bound;            /* "compute", "memory" or "unknown" */
    /* Set by `tprof merge` (nprocs > 1): total_ns across the merged processes. */
    uint64_t nprocs;
    double proc_min_ns, proc_mean_ns, proc_max_ns, imbalance; /* imbalance = max / mean */
    /* Too short to time (track/ops/demote.c): after its first calls each call was counted, not
     * timed; counted_calls of calls (the rest were timed). */
    int demoted;
    uint64_t counted_calls;
    /* Their time, estimated (counted_est_method). It is in the enclosing ops' self time, not in
     * this op's total_ns and self_ns. */
    uint64_t counted_est_ns;
    /* "median": counted_calls x the median of the judged calls under the line; "median, bounded
     * by the enclosing ops' self time": that was more than the self time of the ops every counted
     * call ran in, which holds their time, and that self time was taken. NULL when not demoted. */
    char *counted_est_method;
    /* Work or wait (report/analyze/opwait.c says what each is; methods: "samples" or
     * "time_less_waits", NULL when none; wait_share derived) */
    uint64_t cpu_ns, work_ns, wait_ns, wait_blocked_ns, wait_spin_ns;
    char *cpu_method, *work_method, *wait_spin_method, *wait_kinds;
    double wait_share;
};

struct tp_frame {
    char *function;  /* NULL when no symbol covers the address */
    char *file;      /* NULL without debug info */
    int line;        /* 0 without debug info */
    char *module;    /* path of the ELF object */
    uint64_t offset; /* address - load bias of module */
    /* 1: a function the compiler inlined into the next frame, which has the same module and
     * offset and, as line, that of its call to this one (JSON "inlined": true, written only then) */
    int inlined;
};

struct tp_site {
    struct tp_frame *frames; /* frames[0] called the allocator */
    size_t nframes;
    uint64_t allocs, frees, bytes;
    uint64_t peak_live_bytes;    /* this site's own maximum of live bytes */
    uint64_t live_at_peak_bytes; /* its live bytes when the whole heap peaked */
    uint64_t live_at_exit_bytes, live_at_exit_allocs;
    int system, suppressed; /* a system library's keeping (tp_site_system); TPROF_SUPPRESS'd */
    int interpreter, role;  /* under an interpreter (exit: no leak); TP_ROLE_* (siteclass.h) */
    struct tp_estimate est;
};

/* A ggml backend buffer (track/heap/ggmlbuf.c): its buffer type's name ("CPU"), what ggml was
 * told it holds, its size, when it was allocated and freed (since the program started; -1: live
 * at exit), and whether it was live at the heap's peak. */
struct tp_ggml_buffer {
    char *name;
    char *usage; /* "weights", "compute" or "any" (ggml's GGML_BACKEND_BUFFER_USAGE_*) */
    uint64_t bytes, alloc_ns;
    int64_t free_ns;
    int at_peak;
};

/* One row of the memory ledger (track/heap/ledger.c): a part of the resident memory when RSS was
 * highest. kind is one of "heap", "allocator", "file", "anonymous", "stacks", "libraries",
 * "tprof", "other", "unexplained"; name says which (a file's path, a call site's function, ...);
 * mapping: the memory.mappings entry the row is (its call site names it), -1 for none. */
struct tp_ledger_row {
    char *kind, *name;
    uint64_t resident_bytes, mapped_bytes;
    int64_t mapping;
};

/* The program's own mmap calls from one call site, of one file or anonymous (track/heap/maps.c):
 * like a heap site, with what was mapped at the RSS peak and what of it was resident. */
struct tp_mapping {
    struct tp_frame *frames; /* frames[0] called mmap */
    size_t nframes;
    char *kind;  /* "file" or "anonymous" */
    char *file;  /* the file's path, NULL for anonymous memory */
    char *prot;  /* of the latest mapping: "rw-", "r--", ... */
    char *flags; /* "private" or "shared", then " fixed", " noreserve", " stack", " hugetlb" */
    uint64_t offset, maps, unmaps, mapped_bytes, live_at_peak_bytes, resident_at_peak_bytes,
        live_at_exit_bytes, advised_bytes;
};

/* The ledger's kinds at one reading of /proc/self/smaps, for the memory over time. */
struct tp_ledger_point {
    uint64_t ns, rss_bytes, heap_bytes, allocator_bytes, file_bytes, anonymous_bytes, stacks_bytes,
        libraries_bytes, tprof_bytes, other_bytes;
};

struct tp_memory {
    uint64_t peak_bytes, peak_ns; /* peak_ns: since the program started */
    char *peak_op;                /* op running on the thread that set the peak, or NULL */
    uint64_t allocs, frees, bytes_allocated;
    uint64_t live_at_exit_bytes, live_at_exit_allocs;
    /* live_at_exit split, adding up to it: the program's leaks, what system libraries keep (system
     * sites), TPROF_SUPPRESS's, the interpreter's at its exit (interpreter sites); 0 if older. */
    uint64_t live_at_exit_program_bytes, live_at_exit_program_allocs;
    uint64_t live_at_exit_system_bytes, live_at_exit_system_allocs;
    uint64_t live_at_exit_suppressed_bytes, live_at_exit_suppressed_allocs,
        live_at_exit_interpreter_bytes, live_at_exit_interpreter_allocs;
    uint64_t peak_rss_bytes;
    uint64_t unknown_frees; /* frees of pointers tprof never saw (passed through) */
    uint64_t failed_allocs;
    uint64_t alloc_ns;     /* time inside the real allocator, an estimate: */
    char *alloc_ns_method; /* how it was made (NULL: no heap accounting, or an older report) */
    /* Of the peak: bytes that outlived the unit (step) that allocated them, and bytes freed
     * within it; both 0 when no unit ended. */
    uint64_t persistent_bytes, transient_bytes;
    char *
        lifetime_unit; /* "step", "step_marker", "ggml_graph", "detected_step", "op_call" or NULL */
    char *lifetime_step;   /* the step's name (function, "tprof_step", op), or NULL */
    uint64_t nsites_total; /* sites seen; nsites may be fewer when the JSON was capped */
    struct tp_site *sites;
    struct tp_site_rollup *rollups; /* the sites not in sites[], rolled up (siterollup.h) */
    size_t nsites, nrollups;
    /* Heap over time, oldest first, at most TP_SERIES_MAX points, the peak among them exactly
     * (tp_series_downsample), each with its op (track/out/series.c says where points are taken). */
    struct tp_heap_point *series;
    size_t nseries;
    struct tp_ggml_buffer *ggml_buffers; /* in order of allocation; empty without ggml */
    size_t nggml_buffers;
    /* The ledger of RSS at its highest reading (track/heap/ledger.c): rows adding up to
     * peak_rss_bytes, the last one the part no reading explained; ledger_rss_bytes: RSS at that
     * reading, peak_rss_ns its time; ledger_method: how it was read ("smaps"), NULL: no ledger. */
    uint64_t peak_rss_ns, ledger_rss_bytes, ledger_pss_bytes, ledger_reads;
    uint64_t ledger_ns; /* time the readings took, tprof's own */
    char *ledger_method;
    struct tp_ledger_row *ledger;
    size_t nledger;
    struct tp_mapping *mappings; /* the program's mmap calls by call site, most resident first */
    size_t nmappings;
    struct tp_ledger_point *ledger_series; /* oldest first */
    size_t nledger_series;
    struct tp_sampling sampling;
};

struct tp_machine {
    double peak_gflops, peak_gbps,
        load_avg; /* peaks 0 when unknown; load_avg: report/peaks/peaks.h */
    char *source, *measured_at, *conditions, *busy_why, *cpu_model,
        *cpus; /* report/peaks/peaks.h */
};

struct tp_program {
    char **argv;
    size_t argc;
    char *exe, *host;
    int64_t pid, ppid, rank;
    uint64_t wall_ns;
    uint64_t threads;                  /* threads that ran (track/steps/threads.c) */
    uint64_t start_unix_ns, in_ops_ns; /* in_ops_ns: threads' wall time inside ops, summed */
    int64_t main_in_ops_ns; /* of in_ops_ns, the main thread's (tid == pid); -1 unknown */
    uint64_t hooks_ns; /* of in_ops_ns, tprof's hooks of non-op functions, out of the ops' times */
    double hook_ns;    /* what one such hook costs (TPROF_HOOK_NS or measured); 0 when none ran */
    /* Summed over the program's threads (tprof's own left out): time on a CPU, and time runnable
     * but waiting for one (the run queue); how they were read: "schedstat" (both), "stat" (CPU
     * time only, in clock ticks), "none" (a report of a tprof before them). */
    uint64_t cpu_ns, runq_ns;
    char *cpu_source;
    double load_avg;       /* the machine's 1-minute load average at the report, 0 unknown */
    uint64_t cpus_allowed; /* CPUs in the process's affinity mask, 0 unknown */
    /* The runtimes with thread pools of their own loaded at the report (report/analyze/cpuverdict.c:
     * TP_RUNTIME_NAMES), space-separated; "" none, NULL unknown (a report before it) */
    char *thread_runtimes;
    double cpu_quota; /* CPUs the cgroup v2 cpu.max allows, 0 for no limit */
    /* An op whose calls' median is under this is demoted (track/ops/demote.c), 0 unknown; where its
     * hook cost came from: "host best", "this run", "TPROF_HOOK_NS" (NULL unknown) */
    double demote_line_ns;
    char *demote_line_from;
};

struct tp_amdahl {
    char *op;
    double share;       /* fraction of wall time (self time) */
    double speedup_2x;  /* whole-program speed-up if the op ran 2x faster */
    double speedup_max; /* ... if it took no time at all */
};

struct tp_verdict {
    char *op; /* dominant op by self time, NULL when no ops */
    double share, efficiency;
    char *bound;
    char *text; /* one-paragraph plain-words verdict */
    /* The threads' run-queue delay over their runnable time (CPU + run queue), 0 unknown; and
     * the CPU verdict (report/analyze/cpuverdict.c), NULL when the rule does not hold */
    double cpu_wait_share;
    char *cpu_text;
    char *wait_op,
        *wait_text; /* the op mostly waiting, and why (report/analyze/opwait.c), or NULL */
    /* The time outside every op (report/analyze/analyze.c), threads[]' wall time (0: the program's time
     * less the ops'), and the threads' time outside_ops_ns is a share of: the main thread's wall
     * time and the others' on a CPU or waiting for one (0: every thread's whole life counts, and
     * it is threads_wall_ns) */
    uint64_t outside_ops_ns, threads_wall_ns, threads_time_ns;
    uint64_t alloc_ns;
    struct tp_amdahl *amdahl;
    size_t namdahl;
};

struct tp_steps {
    char *name;             /* TPROF_STEP function or "tprof_step" */
    uint64_t count, warmup; /* count includes warm-up steps */
    uint64_t seen;          /* steps the run began, in the TPROF_SCHEDULE window or not */
    /* The recorded steps, warm-up ones included: their wall time, the process's CPU time during
     * them (counted at the kernel's ticks while tprof samples), and the time on a CPU and in the
     * run queue of the thread that ran them, -1 unknown (track/steps/stepcpu.c). */
    uint64_t wall_ns, cpu_ns;
    int64_t thread_cpu_ns, runq_ns;
    struct tp_latency latency;
    int64_t window_first, window_last; /* TPROF_SCHEDULE window (step indices), -1 if unset */
    /* Latency over the run, oldest first, at most TP_SERIES_MAX points (the fastest and the
     * slowest step of each stretch when there were more steps) */
    struct tp_step_point *series;
    size_t nseries;
};

/* One path of nested ops (outermost first) with the time spent in its innermost op: the op-time
 * flame graph (TPROF_FOLDED) and profile (TPROF_PPROF_TIME). An op's paths add up to its own
 * figures: calls, self time and FLOPs (track/ops/ops_collect.c rounds the times so). */
struct tp_opstack {
    char **ops; /* op names, outermost first */
    size_t depth;
    uint64_t calls, self_ns, total_ns, flops;
};

/* What the run wrote besides the report, and what the trace had to leave out. */
struct tp_outputs {
    char *trace;                     /* path of the Chrome trace written, NULL when none */
    uint64_t trace_calls;            /* op calls the run recorded while the trace was on */
    uint64_t trace_events;           /* of those, calls written as complete events */
    uint64_t trace_past_cap;         /* calls summarised per op: past TPROF_TRACE_CAP */
    uint64_t trace_past_max;         /* calls summarised per op: past TPROF_TRACE_MAX */
    uint64_t trace_past_deadline;    /* calls summarised per op: a signal hurried the report */
    uint64_t trace_heap_samples;     /* heap counter samples written */
    uint64_t trace_bytes;            /* size of the file */
    char *folded_time, *folded_heap; /* paths of the folded-stack files written, NULL when none */
    char *json, *html;        /* where the JSON and HTML reports of this run go, NULL when none */
    char *pprof, *pprof_time; /* the pprof profiles of the heap and of op time, NULL when none */
};

/* Where the time outside every op went, from CPU-time samples of the program counter
 * (TPROF_SAMPLE_HZ): the samples the hooks could not place in an op, by function. */
struct tp_samples {
    uint64_t hz;           /* samples per second of CPU time asked for, 0 when off */
    uint64_t total;        /* samples taken */
    uint64_t in_ops;       /* of those, while an op was open on the sampled thread */
    uint64_t outside_ops;  /* while none was (the rest landed in tprof's own work) */
    uint64_t outside_spin; /* of those, in an OpenMP runtime's code: waiting (track/ops/wait.c) */
    /* Of in_ops and outside_ops, those on threads other than the main one, and of those the ones
     * outside every op: not working for an op another thread ran (report/analyze/outside.c) */
    uint64_t other_threads, other_threads_outside;
    uint64_t in_tprof; /* in libtprof.so's own code: tprof's work, in neither of the above */
    char *method;      /* how the shares are estimated, NULL when off or from before it */
};

/* Where a record's samples outside every op fell in one function: module file, offset from its
 * load bias, samples there (for the reporter's "inlined"; never in a report). */
struct tp_sampled_at {
    char *module;
    uint64_t offset, n;
};

struct tp_outside_fn {
    char *name;       /* the function, NULL when no symbol covers its samples */
    char *module;     /* file name of the object it is in, NULL when unknown */
    uint64_t samples; /* samples in it */
    double share;     /* samples / samples.outside_ops */
    /* What TPROF_OPS can do with it (report/analyze/advice.c; NULL in a report from before it):
     * "export" (a shared library's: TPROF_OPS hooks its calls), "instrumented" (in a module
     * built with -finstrument-functions: so does TPROF_OPS), "local" (the executable's, or a
     * library's static or hidden function: nothing hooks it), "no_symbol", "wait" (a runtime's
     * spin or yield loop: threads waiting) */
    char *kind;
    char *inlined; /* the function inlined into this one that holds most of its samples, or NULL */
    int stripped;  /* its module's file has no .symtab */
    uint64_t size; /* its code's size in bytes (the symbol's st_size), 0 when unknown */
    /* In a record: its sampled addresses, whose inlined functions the reporter reads (then
     * inlined is set and these go); JSON "sampled_at", written only when there are some. */
    struct tp_sampled_at *at;
    size_t nat;
};

/* One module the process loaded, for a symboliser outside the process: addresses in the report
 * (a frame's pc, a sample's) map to a file and its build-id through these. */
struct tp_modinfo {
    char *path;     /* the file as the loader named it; the executable's from /proc/self/exe */
    char *build_id; /* lowercase hex of its NT_GNU_BUILD_ID note, NULL when it has none */
    uint64_t base, lo, hi; /* load bias; the range its PT_LOAD segments span */
    int departed;          /* unloaded (dlclose) before the report */
};

/* What a CUDA program did with its devices (track/gpu/gpu.c, from the driver API calls that
 * preload/hook/hook_cuda.c interposes). Device memory: per device and per call site (host stacks)
 * with the kind of the call that made it ("device": cuMemAlloc, cuMemAllocPitch; "managed":
 * cuMemAllocManaged; "async": cuMemAllocAsync, stream-ordered). */
struct tp_gpu_device {
    int64_t device;
    uint64_t peak_bytes, peak_ns; /* the most live at once, and when (since the program started) */
    char *peak_op;                /* the op running on the thread that set the peak, or NULL */
    uint64_t allocs, frees, bytes_allocated, live_at_exit_bytes, live_at_exit_allocs;
};

struct tp_gpu_site {
    struct tp_frame *frames; /* frames[0] called the driver */
    size_t nframes;
    int64_t device;
    char *kind;
    uint64_t allocs, frees, bytes, live_at_peak_bytes, live_at_exit_bytes;
};

/* Copies by direction ("htod", "dtoh", "dtod", "htoh"): calls, of which asynchronous, bytes, and
 * the host's time in the synchronous ones (which return once the copy is done). */
struct tp_gpu_copy {
    char *direction;
    uint64_t calls, async_calls, bytes, sync_ns;
};

/* Launches of one kernel (a CUfunction, named from cuModuleGetFunction; NULL: unknown), with the
 * grid and block of its last launch, and the op open on the launching thread at every launch
 * (NULL: none, or not the same one each time). */
struct tp_gpu_kernel {
    char *name;
    uint64_t launches, grid_x, grid_y, grid_z, block_x, block_y, block_z, shared_bytes;
    char *op;
};

/* The host blocked in a synchronise call ("context", "stream", "event"), waiting for the device:
 * calls, time, and of it the time inside an op. */
struct tp_gpu_sync {
    char *kind;
    uint64_t calls, ns, in_ops_ns;
};

/* cuBLAS matrix products by function, shape and element type: calls, FLOPs (2mnk per product,
 * batch times: exact for the shapes asked), and the host's time in the calls (their launch). */
struct tp_gpu_gemm {
    char *function, *dtype, *transa, *transb;
    uint64_t m, n, k, batch, calls, flops, host_ns;
};

struct tp_gpu {
    int used;     /* the program made driver calls the hooks saw */
    char *method; /* how it was recorded; NULL when no driver call was seen */
    uint64_t driver_calls, unknown_frees, untracked_allocs, memset_calls, memset_bytes;
    struct tp_gpu_device *devices;
    size_t ndevices;
    struct tp_gpu_site *sites; /* most live at the devices' peaks first */
    size_t nsites;
    struct tp_gpu_copy *copies;
    size_t ncopies;
    struct tp_gpu_kernel *kernels; /* most launches first */
    size_t nkernels;
    struct tp_gpu_sync *syncs;
    size_t nsyncs;
    struct tp_gpu_gemm *gemms; /* most FLOPs first */
    size_t ngemms;
    uint64_t gemms_untracked; /* products past the table's 512 shapes: counted nowhere else */
};

/* A record: what libtprof.so writes at a report's moment for the tprof program to report
 * (version 1), not yet a report (version 0, no "record" key). Its call sites' frames are not
 * yet named: each has its module and offset, and a function only where the recorder knew one
 * without reading a file ("[call-site table full]"). The reporter names them (libdw), merges the
 * sites that name the same lines, classifies them, finds the machine's peaks, analyses and
 * renders; the figures below are the settings of the process those steps need. */
struct tp_record {
    uint64_t version;
    int last;            /* the report that ends the process: the machine's peaks may be measured */
    uint64_t leak_sites; /* memory.sites' last leak_sites entries are there only to classify what
                          * is live at exit (they are also in the rollups), then dropped */
    uint64_t json_sites; /* TPROF_JSON_SITES */
    char *suppress;      /* TPROF_SUPPRESS */
    int debuginfod;      /* TPROF_DEBUGINFOD=1 */
    double peak_gflops, peak_gbps; /* TPROF_PEAK_GFLOPS / TPROF_PEAK_GBPS, 0 when not given */
};

struct tp_report {
    int schema;
    struct tp_record record;
    char *tprof_version;
    int partial;               /* 1 when tables overflowed and data was dropped */
    uint64_t merged_processes; /* 0 for one process; N when made by `tprof merge` */
    char **notes;              /* human-readable remarks: dropped data, clock warnings... */
    size_t nnotes;
    struct tp_program program;
    struct tp_machine machine;
    struct tp_op *ops;
    size_t nops;
    struct tp_memory memory;
    struct tp_steps steps; /* count == 0 when no step was seen */
    struct tp_verdict verdict;
    struct tp_opstack *opstacks; /* empty unless TPROF_FOLDED, _HTML or _PPROF_TIME was set */
    size_t nopstacks;
    uint64_t opstacks_dropped; /* op calls whose stack did not fit the table */
    struct tp_outputs outputs;
    struct tp_samples samples;
    struct tp_outside_fn *outside_ops; /* most samples first, at most 10 */
    size_t noutside_ops;
    struct tp_thread
        *threads; /* report/analyze/cpuverdict.c; in order of tid, empty in old reports */
    size_t nthreads;
    /* loaded ones in load order (the executable first), then the departed ones, oldest first;
     * empty in old reports */
    struct tp_modinfo *modules;
    size_t nmodules;
    struct tp_gpu gpu; /* zeros and empty lists for a program that made no CUDA driver call */
};

/* A function that is the allocator seen from C++ (operator new, mangled or not): a call site is
 * the frame above it. */
int tp_frame_is_allocator(const char *function);

/* Release the report's threads (leaves nthreads 0). */
void tp_threads_free(struct tp_report *r);

/* The runtimes whose thread pools have a setting of their own, by the file name of a loaded
 * module: "openblas" (libopenblas*: OPENBLAS_NUM_THREADS), "openmp" (libgomp, libomp, libiomp5:
 * OMP_NUM_THREADS), "mkl" (libmkl_*: MKL_NUM_THREADS); NULL for any other module. */
const char *tp_thread_runtime(const char *path);

/* Whether a module's file name is an OpenMP runtime whose text is waiting and scheduling, not
 * work (libgomp, LLVM's libomp, Intel's libiomp5, and the copies wheels ship renamed with a hash):
 * a parallel region's work runs in the program's own outlined functions. */
int tp_spin_module(const char *path);
/* The i-th exported function that is a runtime's spin wait, not work (ggml_barrier: ggml's
 * threads spin in it between and inside graph nodes); NULL past the last. */
const char *tp_spin_function(size_t i);

/* The hooked waits' kinds (track/ops/wait.c's bits) as the calls' names, comma-separated, into out
 * ("" for none). */
void tp_wait_kind_names(unsigned kinds, char *out, size_t n);

/* What a site's memory is (its role, report/siteclass.h): "tensor data (torch)", "array data (numpy)"; NULL for none. parse: the reverse, NONE if
 * unknown. */
const char *tp_site_role_name(int role);
int tp_site_role_parse(const char *name);

void tp_report_init(struct tp_report *r);
/* Release n frames and the array. */
void tp_frames_free(struct tp_frame *frames, size_t n);
/* Release the frames of one site (leaves nframes 0). */
void tp_site_free_frames(struct tp_site *s);
/* Merge sites whose frames name the same functions and source lines (compilers duplicate call
 * sites when they unroll or clone code). Counts, bytes and live figures add up exactly; a merged
 * site's own peak is the sum of its parts' peaks, capped at cap. Returns the new count; the
 * merged-away sites' frames are released. */
size_t tp_sites_merge_same_lines(struct tp_site *s, size_t n, uint64_t cap);
void tp_report_free(struct tp_report *r);
/* Release a record's sampled addresses of one function outside ops (leaves nat 0). */
void tp_outside_free_at(struct tp_outside_fn *f);
/* Append a note (copied). */
void tp_report_note(struct tp_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The order in which sites are reported, for qsort-like use (< 0: x first): what held the peak
 * first, then what grew largest, then what allocated most; 0 when the three are equal. */
int tp_site_cmp_importance(const struct tp_site *x, const struct tp_site *y);
/* Where a one-line view of s starts: past the functions of system headers (the C++ library's
 * containers and allocators, under /usr/) that were inlined where the allocator is called, at the
 * frame that called them from the program's own code; 0 when there are none, or nothing else. */
size_t tp_site_first_own(const struct tp_site *s);
/* What the persistent/transient split is relative to, as a noun: "op call" when the unit was an
 * outermost op call, else "step". */
const char *tp_lifetime_noun(const struct tp_memory *m);

/* Ops ran on several threads at once: some op's wall-clock time is less than its thread time. */
int tp_ops_overlapped(const struct tp_report *r);

#include "report/siteclass.h" /* which sites are a system library's, what is leaked */

#endif
