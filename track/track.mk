# track/: what the interposer keeps while the program runs, testable without LD_PRELOAD: the
# live-block table and heap accounting, call sites, the stack walk, the module map, symbols,
# ops, steps, the op tree, the trace buffer and the collection of all of it into a report.
# Defines no libc or BLAS name. Calls report/ and common/.
libtptrack_la_SOURCES = track/runtime.c track/runtime.h track/rawalloc.c track/rawalloc.h \
	track/output.c track/output.h track/output_exec.c track/output_exec.h track/uthash_tp.h track/heap.c track/heap.h \
	track/unwind.c track/unwind.h track/cfarules.c track/cfarules.h track/cfatable.h track/cfaexpr.c track/cfaexpr.h track/ehframe.c track/ehframe.h track/ehrule.c track/ehrule.h track/ehread.h track/ehplay.c track/ehplay.h \
	track/livetable.c track/livetable.h track/sites.c track/sites.h track/sitetally.c track/sitetally.h track/siteindex.c track/siteindex.h track/stacktrie.c track/stacktrie.h track/rollup.c track/rollup.h \
	track/stack.c track/stack.h track/modmap.c track/modmap.h \
	track/symtab.c track/symtab.h track/symindex.c track/symindex.h track/symdebug.c track/symdebug.h track/symbolize.c track/symbolize.h \
	track/syminline.c track/syminline.h track/dwlib.c track/dwlib.h \
	track/tlsown.c track/tlsown.h \
	track/ops.c track/ops.h track/ops_wait.c track/wait.c track/wait.h track/lifeunit.c track/lifeunit.h track/ops_table.h track/ops_table.c track/opwall.h track/threads.c track/threads.h track/cpu.c track/cpu.h track/ops_collect.c track/ops_collect.h \
	track/optree.c track/optree.h track/demote.c track/demote.h track/tracebuf.c track/tracebuf.h track/trace_heap.c track/trace_heap.h \
	track/trace_file.c track/trace_file.h track/collect.c track/collect.h track/collect_machine.c track/collect_machine.h track/opnames.c track/opnames.h \
	track/seen.c track/seen.h track/sample.c track/sample.h track/outside_fn.c track/outside_fn.h track/syslibs.c track/syslibs.h track/unmatched.c track/unmatched.h \
	track/series.c track/series.h track/steps.c track/stepcpu.c track/stepcpu.h track/steps.h \
	track/argcall.c track/argcall.h track/argexpr.c track/argexpr.h track/argloc.c track/argloc.h track/argwork.c track/argwork.h
libtptrack_la_CFLAGS = $(AM_CFLAGS) $(TP_LIB_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
EXTRA_DIST += docs/ops.md
