# track/: what the interposer keeps while the program runs, testable without LD_PRELOAD: the
# live-block table and heap accounting, call sites, the stack walk, the module map, symbols,
# ops, steps, the op tree, the trace buffer and the collection of all of it into a report.
# Defines no libc or BLAS name. Calls report/ and common/.
libtptrack_la_SOURCES = track/rawalloc.c track/rawalloc.h track/runtime.c track/runtime.h track/uthash_tp.h \
	track/heap/heap.c track/heap/heap.h track/heap/livetable.c track/heap/ggmlbuf.c \
	track/heap/maps.c track/heap/smaps.c track/heap/ledger.c track/gpu/gpu.c track/gpu/gpu.h \
	track/ops/demote.c track/ops/hookcache.c track/ops/hookcache.h track/ops/opnames.c track/ops/ops.c track/ops/ops.h track/ops/ops_collect.c track/ops/ops_table.c track/ops/ops_wait.c track/ops/optree.c track/ops/opwall.h track/ops/seen.c track/ops/unmatched.c track/ops/wait.c \
	track/out/collect.c track/out/out.h track/out/output.c track/out/output_exec.c track/out/output_exec.h track/out/sample.c track/out/series.c track/out/trace_file.c track/out/trace_file.h track/out/trace_heap.c track/out/tracebuf.c \
	track/sites/rollup.c track/sites/siteindex.c track/sites/siteindex.h track/sites/sites.c track/sites/sites.h track/sites/sitetally.c track/sites/sitetally.h track/sites/stacktrie.c track/sites/stacktrie.h \
	track/steps/cpu.c track/steps/lifeunit.c track/steps/stepcpu.c track/steps/steps.c track/steps/steps.h track/steps/threads.c \
	track/sym/dwlib.c track/sym/dynsym.c track/sym/modmap.c track/sym/outside_fn.c track/sym/sym.h track/sym/symtab.c track/sym/syslibs.c track/sym/tlsown.c \
	track/unwind/cfaexpr.c track/unwind/cfarules.c track/unwind/cfarules.h track/unwind/cfatable.h track/unwind/ehframe.c track/unwind/ehframe.h track/unwind/ehplay.c track/unwind/ehplay.h track/unwind/ehread.h track/unwind/ehrule.c track/unwind/ehrule.h track/unwind/stack.c track/unwind/unwind.c track/unwind/unwind.h \
	track/work/argcall.c track/work/argcall.h track/work/argexpr.c track/work/argexpr.h track/work/argloc.c track/work/argloc.h track/work/argwork.c track/work/ggml.c track/work/work.h
libtptrack_la_CFLAGS = $(AM_CFLAGS) $(TP_LIB_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
EXTRA_DIST += docs/ops.md
