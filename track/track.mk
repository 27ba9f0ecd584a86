# track/: what the interposer keeps while the program runs, testable without LD_PRELOAD: the
# live-block table and heap accounting, call sites, the stack walk, the module map, symbols,
# ops, steps, the op tree, the trace buffer and the collection of all of it into a report.
# Defines no libc or BLAS name. Calls report/ and common/.
libtptrack_la_SOURCES = track/runtime.c track/runtime.h track/rawalloc.c track/rawalloc.h \
	track/out/output.c track/out/output.h track/out/output_exec.c track/out/output_exec.h track/uthash_tp.h track/heap/heap.c track/heap/heap.h \
	track/unwind/unwind.c track/unwind/unwind.h track/unwind/cfarules.c track/unwind/cfarules.h track/unwind/cfatable.h track/unwind/cfaexpr.c track/unwind/cfaexpr.h track/unwind/ehframe.c track/unwind/ehframe.h track/unwind/ehrule.c track/unwind/ehrule.h track/unwind/ehread.h track/unwind/ehplay.c track/unwind/ehplay.h \
	track/heap/livetable.c track/heap/livetable.h track/sites/sites.c track/sites/sites.h track/sites/sitetally.c track/sites/sitetally.h track/sites/siteindex.c track/sites/siteindex.h track/sites/stacktrie.c track/sites/stacktrie.h track/sites/rollup.c track/sites/rollup.h \
	track/unwind/stack.c track/unwind/stack.h track/sym/modmap.c track/sym/modmap.h \
	track/sym/symtab.c track/sym/symtab.h track/sym/symindex.c track/sym/symindex.h track/sym/symdebug.c track/sym/symdebug.h track/sym/symbolize.c track/sym/symbolize.h \
	track/sym/syminline.c track/sym/syminline.h track/sym/dwlib.c track/sym/dwlib.h \
	track/sym/tlsown.c track/sym/tlsown.h \
	track/ops/ops.c track/ops/ops.h track/ops/ops_wait.c track/ops/wait.c track/ops/wait.h track/steps/lifeunit.c track/steps/lifeunit.h track/ops/ops_table.h track/ops/ops_table.c track/ops/opwall.h track/steps/threads.c track/steps/threads.h track/steps/cpu.c track/steps/cpu.h track/ops/ops_collect.c track/ops/ops_collect.h \
	track/ops/optree.c track/ops/optree.h track/ops/demote.c track/ops/demote.h track/out/tracebuf.c track/out/tracebuf.h track/out/trace_heap.c track/out/trace_heap.h \
	track/out/trace_file.c track/out/trace_file.h track/out/collect.c track/out/collect.h track/out/collect_machine.c track/out/collect_machine.h track/ops/opnames.c track/ops/opnames.h \
	track/ops/seen.c track/ops/seen.h track/out/sample.c track/out/sample.h track/sym/outside_fn.c track/sym/outside_fn.h track/sym/syslibs.c track/sym/syslibs.h track/ops/unmatched.c track/ops/unmatched.h \
	track/out/series.c track/out/series.h track/steps/steps.c track/steps/stepcpu.c track/steps/stepcpu.h track/steps/steps.h \
	track/work/argcall.c track/work/argcall.h track/work/argexpr.c track/work/argexpr.h track/work/argloc.c track/work/argloc.h track/work/argwork.c track/work/argwork.h
libtptrack_la_CFLAGS = $(AM_CFLAGS) $(TP_LIB_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
EXTRA_DIST += docs/ops.md
