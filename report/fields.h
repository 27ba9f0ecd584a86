/* The report's scalar fields, listed once: the JSON writer (report/render/render_json.c), the JSON reader
 * (cli/read/json_read.c) and tp_report_free (report/report.c) each expand these lists, so that a field
 * added here is written, read back and freed alike, and the three can never disagree on a key.
 *
 * Each list is X(KIND, member, default) in the order the JSON writes the keys; the member's name
 * is the JSON key. Members that are arrays or nested objects (frames, shapes, latency_ns, ...)
 * are written and read by hand between the lists, which is why some structs have two.
 *
 * KIND      C type     JSON
 * U64       uint64_t   unsigned integer
 * I64       int64_t    integer; default: the value when the key is absent or null
 * LINE      int        integer 0 to INT_MAX (a source line)
 * DBL       double     number (finite)
 * NS        double     number of nanoseconds, 0 to 2^64 (a mean or a spread)
 * BOOL      int        true or false
 * CHR       char       a one-character string, or null for 0
 * STR       char *     string or null; default: what the writer puts for NULL (NULL: null);
 *                      owned by the model and freed by tp_report_free */
#ifndef TPROF_FIELDS_H
#define TPROF_FIELDS_H

/* One field per X, several to a line: clang-format would put one list on ragged lines. */
/* clang-format off */

/* The top level: after "schema", before "notes". */
#define TP_REPORT_FIELDS(X) \
    X(STR, tprof_version, NULL) X(BOOL, partial, 0) X(U64, merged_processes, 0)

/* struct tp_record ("record": only in a record, version > 0) */
#define TP_RECORD_FIELDS(X) \
    X(U64, version, 0) X(BOOL, last, 0) X(U64, leak_sites, 0) X(U64, json_sites, 0) \
    X(STR, suppress, NULL) X(BOOL, debuginfod, 0) X(DBL, peak_gflops, 0) X(DBL, peak_gbps, 0)

/* struct tp_latency ("latency_ns" of an op, and of steps) */
#define TP_LATENCY_FIELDS(X) \
    X(U64, n, 0) X(U64, min, 0) X(U64, p50, 0) X(U64, p95, 0) X(U64, p99, 0) X(U64, max, 0) \
    X(NS, mean, 0) X(NS, stddev, 0) X(NS, p50_ci_lo, 0) X(NS, p50_ci_hi, 0)

/* struct tp_shape (an op's "shapes") */
#define TP_SHAPE_FIELDS(X) \
    X(STR, desc, NULL) X(I64, m, 0) X(I64, n, 0) X(I64, k, 0) X(CHR, transa, 0) \
    X(CHR, transb, 0) X(CHR, layout, 0) X(U64, calls, 0) X(U64, total_ns, 0) X(U64, flops, 0) \
    X(U64, bytes, 0)

/* struct tp_op: these, then "latency_ns" and "shapes" */
#define TP_OP_FIELDS(X) \
    X(STR, name, NULL) X(STR, kind, NULL) X(STR, source, NULL) X(U64, calls, 0) \
    X(U64, total_ns, 0) X(U64, self_ns, 0) X(U64, wall_ns, 0) X(U64, self_wall_ns, 0) \
    X(U64, flops, 0) X(U64, bytes, 0) \
    X(BOOL, flops_known, 0) X(U64, warmup_calls, 0) X(U64, warmup_ns, 0) X(DBL, gflops, 0) \
    X(DBL, intensity, 0) X(DBL, attainable_gflops, 0) X(DBL, efficiency, 0) X(DBL, share, 0) \
    X(DBL, self_share, 0) X(DBL, self_wall_share, 0) X(STR, bound, "unknown") \
    X(U64, alloc_bytes, 0) \
    X(U64, alloc_count, 0) X(STR, parent, NULL) X(U64, nprocs, 0) X(NS, proc_min_ns, 0) X(NS, proc_mean_ns, 0) \
    X(NS, proc_max_ns, 0) X(DBL, imbalance, 0) X(BOOL, demoted, 0) X(U64, counted_calls, 0) \
    X(U64, counted_est_ns, 0) X(STR, counted_est_method, NULL) \
    X(U64, cpu_ns, 0) X(STR, cpu_method, NULL) X(U64, work_ns, 0) X(STR, work_method, NULL) \
    X(U64, wait_ns, 0) X(U64, wait_blocked_ns, 0) X(U64, wait_spin_ns, 0) \
    X(STR, wait_spin_method, NULL) X(STR, wait_kinds, NULL) X(DBL, wait_share, 0)

/* struct tp_frame (a site's "frames") */
#define TP_FRAME_FIELDS(X) \
    X(STR, function, NULL) X(STR, file, NULL) X(LINE, line, 0) X(STR, module, NULL) \
    X(U64, offset, 0)

/* struct tp_site: "frames", then these */
#define TP_SITE_FIELDS(X) \
    X(U64, allocs, 0) X(U64, frees, 0) X(U64, bytes, 0) X(U64, peak_live_bytes, 0) \
    X(U64, live_at_peak_bytes, 0) X(U64, live_at_exit_bytes, 0) X(U64, live_at_exit_allocs, 0) \
    X(BOOL, system, 0) X(BOOL, suppressed, 0) X(BOOL, interpreter, 0)

/* struct tp_site_rollup (memory "site_rollups", written when some sites were rolled up) */
#define TP_ROLLUP_FIELDS(X) \
    X(STR, function, NULL) X(STR, module, NULL) X(U64, sites, 0) X(U64, allocs, 0) \
    X(U64, frees, 0) X(U64, bytes, 0) X(U64, live_at_peak_bytes, 0) \
    X(U64, live_at_exit_bytes, 0) X(U64, live_at_exit_allocs, 0)

/* struct tp_memory: these, then "sites", "site_rollups" (when there are any), "series" */
#define TP_MEMORY_FIELDS(X) \
    X(U64, peak_bytes, 0) X(U64, peak_ns, 0) X(STR, peak_op, NULL) X(U64, allocs, 0) \
    X(U64, frees, 0) X(U64, bytes_allocated, 0) X(U64, live_at_exit_bytes, 0) \
    X(U64, live_at_exit_allocs, 0) X(U64, live_at_exit_program_bytes, 0) \
    X(U64, live_at_exit_program_allocs, 0) X(U64, live_at_exit_system_bytes, 0) \
    X(U64, live_at_exit_system_allocs, 0) X(U64, live_at_exit_suppressed_bytes, 0) \
    X(U64, live_at_exit_suppressed_allocs, 0) X(U64, live_at_exit_interpreter_bytes, 0) \
    X(U64, live_at_exit_interpreter_allocs, 0) X(U64, peak_rss_bytes, 0) X(U64, unknown_frees, 0) \
    X(U64, failed_allocs, 0) X(U64, alloc_ns, 0) X(STR, alloc_ns_method, NULL) \
    X(U64, persistent_bytes, 0) X(U64, transient_bytes, 0) X(STR, lifetime_unit, NULL) \
    X(STR, lifetime_step, NULL) \
    X(U64, nsites_total, 0) X(U64, peak_rss_ns, 0) X(U64, ledger_rss_bytes, 0) \
    X(U64, ledger_pss_bytes, 0) X(U64, ledger_reads, 0) X(U64, ledger_ns, 0) \
    X(STR, ledger_method, NULL)

/* struct tp_program: "argv", then these */
#define TP_PROGRAM_FIELDS(X) \
    X(STR, exe, NULL) X(STR, host, NULL) X(I64, pid, -1) X(I64, ppid, -1) X(I64, rank, 0) \
    X(U64, wall_ns, 0) X(U64, threads, 0) X(U64, start_unix_ns, 0) X(U64, in_ops_ns, 0) \
    X(I64, main_in_ops_ns, -1) X(U64, hooks_ns, 0) X(DBL, hook_ns, 0) \
    X(U64, cpu_ns, 0) \
    X(U64, runq_ns, 0) X(STR, cpu_source, "none") X(DBL, load_avg, 0) X(U64, cpus_allowed, 0) \
    X(DBL, cpu_quota, 0) X(STR, thread_runtimes, NULL) X(DBL, demote_line_ns, 0) \
    X(STR, demote_line_from, NULL)

/* struct tp_thread (an element of the top-level "threads") */
#define TP_THREAD_FIELDS(X) \
    X(I64, tid, 0) X(STR, name, NULL) X(U64, wall_ns, 0) X(U64, cpu_ns, 0) X(U64, runq_ns, 0) \
    X(U64, nvcsw, 0) X(U64, nivcsw, 0) X(BOOL, exited, 0) X(U64, wait_ns, 0) \
    X(U64, wait_spin_ns, 0) X(STR, wait_spin_method, NULL)

/* struct tp_kernel (an element of an op's "kernels") */
#define TP_KERNEL_FIELDS(X) X(STR, name, NULL) X(U64, samples, 0) X(DBL, share, 0)

/* struct tp_ggml_buffer (an element of "memory.ggml_buffers") */
#define TP_GGML_BUFFER_FIELDS(X) \
    X(STR, name, NULL) X(STR, usage, NULL) X(U64, bytes, 0) X(U64, alloc_ns, 0) \
    X(I64, free_ns, -1) X(BOOL, at_peak, 0)

/* struct tp_ledger_row (an element of "memory.ledger") */
#define TP_LEDGER_ROW_FIELDS(X) \
    X(STR, kind, NULL) X(STR, name, NULL) X(U64, resident_bytes, 0) X(U64, mapped_bytes, 0) \
    X(I64, mapping, -1)

/* struct tp_mapping (an element of "memory.mappings"): "frames", then these */
#define TP_MAPPING_FIELDS(X) \
    X(STR, kind, NULL) X(STR, file, NULL) X(STR, prot, NULL) X(STR, flags, NULL) \
    X(U64, offset, 0) X(U64, maps, 0) X(U64, unmaps, 0) X(U64, mapped_bytes, 0) \
    X(U64, live_at_peak_bytes, 0) X(U64, resident_at_peak_bytes, 0) \
    X(U64, live_at_exit_bytes, 0) X(U64, advised_bytes, 0)

/* "gpu" (struct tp_gpu): these, then "devices", "sites", "copies", "kernels", "syncs" */
#define TP_GPU_FIELDS(X) \
    X(BOOL, used, 0) X(STR, method, NULL) X(U64, driver_calls, 0) X(U64, unknown_frees, 0) \
    X(U64, untracked_allocs, 0) X(U64, memset_calls, 0) X(U64, memset_bytes, 0) \
    X(U64, gemms_untracked, 0)
#define TP_GPU_DEVICE_FIELDS(X) \
    X(I64, device, 0) X(U64, peak_bytes, 0) X(U64, peak_ns, 0) X(STR, peak_op, NULL) \
    X(U64, allocs, 0) X(U64, frees, 0) X(U64, bytes_allocated, 0) X(U64, live_at_exit_bytes, 0) \
    X(U64, live_at_exit_allocs, 0)
/* struct tp_gpu_site: "frames", then these */
#define TP_GPU_SITE_FIELDS(X) \
    X(I64, device, 0) X(STR, kind, NULL) X(U64, allocs, 0) X(U64, frees, 0) X(U64, bytes, 0) \
    X(U64, live_at_peak_bytes, 0) X(U64, live_at_exit_bytes, 0)
#define TP_GPU_COPY_FIELDS(X) \
    X(STR, direction, NULL) X(U64, calls, 0) X(U64, async_calls, 0) X(U64, bytes, 0) \
    X(U64, sync_ns, 0)
#define TP_GPU_KERNEL_FIELDS(X) \
    X(STR, name, NULL) X(U64, launches, 0) X(U64, grid_x, 0) X(U64, grid_y, 0) X(U64, grid_z, 0) \
    X(U64, block_x, 0) X(U64, block_y, 0) X(U64, block_z, 0) X(U64, shared_bytes, 0) \
    X(STR, op, NULL)
#define TP_GPU_SYNC_FIELDS(X) X(STR, kind, NULL) X(U64, calls, 0) X(U64, ns, 0) X(U64, in_ops_ns, 0)
#define TP_GPU_GEMM_FIELDS(X) \
    X(STR, function, NULL) X(STR, dtype, NULL) X(STR, transa, NULL) X(STR, transb, NULL) \
    X(U64, m, 0) X(U64, n, 0) X(U64, k, 0) X(U64, batch, 0) X(U64, calls, 0) X(U64, flops, 0) \
    X(U64, host_ns, 0)

/* struct tp_ledger_point (an element of "memory.ledger_series") */
#define TP_LEDGER_POINT_FIELDS(X) \
    X(U64, ns, 0) X(U64, rss_bytes, 0) X(U64, heap_bytes, 0) X(U64, allocator_bytes, 0) \
    X(U64, file_bytes, 0) X(U64, anonymous_bytes, 0) X(U64, stacks_bytes, 0) \
    X(U64, libraries_bytes, 0) X(U64, tprof_bytes, 0) X(U64, other_bytes, 0)

/* struct tp_modinfo (an element of the top-level "modules") */
#define TP_MODULE_FIELDS(X) \
    X(STR, path, NULL) X(STR, build_id, NULL) X(U64, base, 0) X(U64, lo, 0) X(U64, hi, 0) \
    X(BOOL, departed, 0)

/* struct tp_machine */
#define TP_MACHINE_FIELDS(X) \
    X(DBL, peak_gflops, 0) X(DBL, peak_gbps, 0) X(STR, source, "none") \
    X(STR, measured_at, NULL) X(STR, conditions, NULL) X(STR, busy_why, NULL) \
    X(STR, cpu_model, NULL) X(STR, cpus, NULL) X(DBL, load_avg, 0)

/* struct tp_steps: the first list, "latency_ns", then the second, then "series" */
#define TP_STEPS_FIELDS(X) \
    X(STR, name, NULL) X(U64, count, 0) X(U64, warmup, 0) X(U64, seen, 0) X(U64, wall_ns, 0) \
    X(U64, cpu_ns, 0) \
    X(I64, thread_cpu_ns, -1) X(I64, runq_ns, -1)
#define TP_STEPS_WINDOW_FIELDS(X) X(I64, window_first, -1) X(I64, window_last, -1)

/* struct tp_verdict: these, then "amdahl" */
#define TP_VERDICT_FIELDS(X) \
    X(STR, op, NULL) X(DBL, share, 0) X(STR, bound, NULL) X(DBL, efficiency, 0) \
    X(STR, text, NULL) X(U64, outside_ops_ns, 0) X(U64, threads_wall_ns, 0) \
    X(U64, threads_time_ns, 0) X(U64, alloc_ns, 0) \
    X(DBL, cpu_wait_share, 0) X(STR, cpu_text, NULL) X(STR, wait_op, NULL) X(STR, wait_text, NULL)

/* struct tp_amdahl (the verdict's "amdahl") */
#define TP_AMDAHL_FIELDS(X) \
    X(STR, op, NULL) X(DBL, share, 0) X(DBL, speedup_2x, 0) X(DBL, speedup_max, 0)

/* struct tp_opstack: "ops", then these */
#define TP_OPSTACK_FIELDS(X) \
    X(U64, calls, 0) X(U64, total_ns, 0) X(U64, self_ns, 0) X(U64, flops, 0)

/* struct tp_outputs */
#define TP_OUTPUTS_FIELDS(X) \
    X(STR, trace, NULL) X(U64, trace_calls, 0) X(U64, trace_events, 0) \
    X(U64, trace_past_cap, 0) X(U64, trace_past_max, 0) X(U64, trace_past_deadline, 0) \
    X(U64, trace_heap_samples, 0) \
    X(U64, trace_bytes, 0) X(STR, folded_time, NULL) X(STR, folded_heap, NULL) \
    X(STR, json, NULL) X(STR, html, NULL) X(STR, pprof, NULL) X(STR, pprof_time, NULL)

/* struct tp_samples ("samples") */
#define TP_SAMPLES_FIELDS(X) \
    X(U64, hz, 0) X(U64, total, 0) X(U64, in_ops, 0) X(U64, outside_ops, 0) \
    X(U64, outside_spin, 0) X(U64, other_threads, 0) X(U64, other_threads_outside, 0) \
    X(U64, in_tprof, 0) X(STR, method, NULL)

/* struct tp_outside_fn (an element of "outside_ops"): these, then "sampled_at" in a record */
#define TP_OUTSIDE_FIELDS(X) \
    X(STR, name, NULL) X(STR, module, NULL) X(U64, samples, 0) X(DBL, share, 0) \
    X(STR, kind, NULL) X(STR, inlined, NULL) X(BOOL, stripped, 0) \
    X(U64, size, 0)

/* struct tp_sampled_at (an element of a record's "sampled_at") */
#define TP_SAMPLED_AT_FIELDS(X) X(STR, module, NULL) X(U64, offset, 0) X(U64, n, 0)

/* struct tp_heap_point (an element of the memory's "series") */
#define TP_HEAP_POINT_FIELDS(X) \
    X(U64, ns, 0) X(U64, live_bytes, 0) X(U64, persistent_bytes, 0) X(STR, op, NULL)

/* struct tp_step_point (an element of the steps' "series") */
#define TP_STEP_POINT_FIELDS(X) X(U64, index, 0) X(U64, end_ns, 0) X(U64, ns, 0)

/* struct tp_estimate (a site's "estimate", only in reports of the sampled heap, read back) */
#define TP_ESTIMATE_FIELDS(X) \
    X(U64, samples, 0) X(DBL, error_pct, 0) X(DBL, live_error_pct, 0)

/* struct tp_sampling (memory's "sampling", only in reports of the sampled heap, read back) */
#define TP_SAMPLING_FIELDS(X) X(U64, mean_bytes, 0) X(U64, seed, 0) X(U64, samples, 0)

/* clang-format on */

#endif
