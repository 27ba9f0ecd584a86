# Foundation tests: unit tests of the shared core, and victims run under LD_PRELOAD.
check_PROGRAMS += tests/check_core tests/check_heap tests/victims/v_sites tests/victims/v_private tests/victims/v_realloc \
	tests/victims/v_aligned tests/victims/v_cxx tests/victims/v_threads tests/victims/v_fork \
	tests/victims/v_thread_exit tests/victims/v_signal tests/victims/v_exec tests/victims/v_loop \
	tests/victims/v_load tests/victims/v_manythreads tests/victims/v_forkthreads tests/victims/v_spawn
tests_check_core_SOURCES = tests/check_core.c
tests_check_core_CFLAGS = $(TEST_CFLAGS)
tests_check_core_LDADD = $(TEST_LIBS)
# The library's tables, linked straight into a test (each Check test forks, so each starts from
# fresh tables).
tests_check_heap_SOURCES = tests/check_heap.c
tests_check_heap_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS)
tests_check_heap_LDADD = $(TP_TRACK) $(TEST_LIBS)
# The shims' stack walk against libunwind's, from the same frames (libunwind is linked into the
# test only). elfutils is loaded by track/sym/dwlib.c, as in the library.
if HAVE_LIBUNWIND
check_PROGRAMS += tests/check_unwind
TESTS += tests/check_unwind
endif
tests_check_unwind_SOURCES = tests/check_unwind.c
tests_check_unwind_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS) $(LIBUNWIND_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
tests_check_unwind_LDADD = $(TP_TRACK) $(TEST_LIBS) $(LIBUNWIND_LIBS) -ldl -lpthread
tests_victims_v_sites_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_realloc_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_private_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_aligned_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_cxx_SOURCES = tests/victims/v_cxx.cc
tests_victims_v_cxx_CXXFLAGS = -g -O1 -fno-inline -fno-optimize-sibling-calls -fno-ipa-icf
tests_victims_v_threads_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_threads_LDADD = -lpthread
tests_victims_v_fork_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_thread_exit_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_thread_exit_LDADD = -lpthread
tests_victims_v_signal_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_exec_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_loop_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_load_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_load_LDADD = -lpthread
tests_victims_v_manythreads_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_manythreads_LDADD = -lpthread
tests_victims_v_forkthreads_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_forkthreads_LDADD = -lpthread
tests_victims_v_spawn_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/check_core tests/check_heap tests/heap_sites.sh tests/heap_private.sh tests/heap_realloc.sh tests/heap_aligned.sh \
	tests/heap_cxx.sh tests/heap_threads.sh tests/proc_fork.sh tests/proc_thread_exit.sh \
	tests/proc_signal.sh tests/proc_exec.sh tests/env_config.sh tests/long_signal.sh \
	tests/long_snapshot.sh tests/load_mixed.sh tests/load_threads.sh tests/load_forkthreads.sh \
	tests/proc_spawn.sh
EXTRA_DIST += tests/lib.sh tests/jcheck.py tests/heap_sites.sh tests/heap_private.sh tests/heap_realloc.sh \
	tests/heap_aligned.sh tests/heap_cxx.sh tests/heap_threads.sh tests/proc_fork.sh \
	tests/proc_thread_exit.sh tests/proc_signal.sh tests/proc_exec.sh tests/env_config.sh \
	tests/long_signal.sh tests/long_snapshot.sh tests/load_mixed.sh tests/load_threads.sh \
	tests/load_forkthreads.sh tests/proc_spawn.sh
# Call sites through inlined code: built with -O2, so that the helpers are inlined.
check_PROGRAMS += tests/victims/v_inline tests/victims/v_inline_cxx
tests_victims_v_inline_CFLAGS = -std=gnu11 -g -O2 -fno-optimize-sibling-calls
tests_victims_v_inline_cxx_SOURCES = tests/victims/v_inline_cxx.cc
tests_victims_v_inline_cxx_CXXFLAGS = -g -O2 -fno-optimize-sibling-calls
TESTS += tests/heap_inline.sh
EXTRA_DIST += tests/heap_inline.sh
# track/unwind/ehframe.c's CFA rules against libdw's: every row of every FDE of real binaries.
check_PROGRAMS += tests/check_ehframe
tests_check_ehframe_SOURCES = tests/check_ehframe.c tests/probe_ehframe.c tests/probe.h
tests_check_ehframe_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
tests_check_ehframe_LDADD = $(TP_TRACK) $(TEST_LIBS) -ldl
TESTS += tests/check_ehframe
# The call sites' frame trees and the table's bytes (track/sites/stacktrie.c, track/sites/sites.c).
check_PROGRAMS += tests/check_stacktrie
tests_check_stacktrie_SOURCES = tests/check_stacktrie.c
tests_check_stacktrie_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS)
tests_check_stacktrie_LDADD = $(TP_TRACK) $(TEST_LIBS)
TESTS += tests/check_stacktrie
check_PROGRAMS += tests/check_rollup
tests_check_rollup_SOURCES = tests/check_rollup.c
tests_check_rollup_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS)
tests_check_rollup_LDADD = $(TP_TRACK) $(TEST_LIBS)
TESTS += tests/check_rollup
