# Ways out of a process image and the names of its reports: shells, quick_exit, a signal during
# the report, fork while another thread holds one of tprof's locks, snapshots.
# libtpcount.so counts process images independently of tprof (preloaded beside it).
check_PROGRAMS += tests/victims/libtpcount.so
tests_victims_libtpcount_so_SOURCES = tests/victims/libtpcount.c
tests_victims_libtpcount_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpcount_so_LDFLAGS = -Wc,-shared
tests_victims_libtpcount_so_LDADD = -lpthread
TESTS += tests/proc_shells.sh tests/proc_collide.sh
EXTRA_DIST += tests/proc_shells.sh tests/proc_collide.sh
check_PROGRAMS += tests/victims/v_quickexit
tests_victims_v_quickexit_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_quickexit.sh
EXTRA_DIST += tests/proc_quickexit.sh
check_PROGRAMS += tests/victims/v_wait
tests_victims_v_wait_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_prompt.sh
EXTRA_DIST += tests/proc_prompt.sh
# fork while another thread holds tprof's locks.
check_PROGRAMS += tests/victims/libtpfork.so tests/victims/v_forklocks
tests_victims_libtpfork_so_SOURCES = tests/victims/libtpfork.c
tests_victims_libtpfork_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC -finstrument-functions
tests_victims_libtpfork_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpfork.so
tests_victims_v_forklocks_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions -I$(top_srcdir)/include
tests_victims_v_forklocks_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_forklocks_LDADD = -ldl -lpthread
TESTS += tests/proc_forklocks.sh
EXTRA_DIST += tests/proc_forklocks.sh
# Snapshots leave no trace in the figures.
check_PROGRAMS += tests/victims/v_snapfree
tests_victims_v_snapfree_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_snapfree_LDADD = -lgcc_s
TESTS += tests/long_snapfree.sh
EXTRA_DIST += tests/long_snapfree.sh
# The report signal in a forked child.
check_PROGRAMS += tests/victims/v_sigfork
tests_victims_v_sigfork_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_sigfork.sh
EXTRA_DIST += tests/proc_sigfork.sh
# The text report reaches the stderr the program started with, never the program's own files.
check_PROGRAMS += tests/victims/v_stderr_swap
tests_victims_v_stderr_swap_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_stderr.sh tests/run_relative_lib.sh
EXTRA_DIST += tests/proc_stderr.sh tests/run_relative_lib.sh
# Exit cost in proportion to what is written (needs strace; skipped without it).
TESTS += tests/exit_cost.sh
EXTRA_DIST += tests/exit_cost.sh
# elfutils loaded only for a report's symbols, never by a process that writes none (needs strace).
TESTS += tests/lazy_dw.sh
EXTRA_DIST += tests/lazy_dw.sh
# What tprof adds to the environment reaches only the programs it profiles: exec, posix_spawn,
# system() and popen() with LD_PRELOAD emptied, naming another library, removed or kept.
check_PROGRAMS += tests/victims/v_envleak
tests_victims_v_envleak_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_envleak.sh
EXTRA_DIST += tests/proc_envleak.sh
# A broken pipe (`program | head`): the report is written, the program dies of SIGPIPE.
check_PROGRAMS += tests/victims/v_sigpipe
tests_victims_v_sigpipe_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_sigpipe.sh
EXTRA_DIST += tests/proc_sigpipe.sh
# A signal while the report at exit is written: the report is finished (the trace cut at a
# deadline), then the process ends by that signal; process pools keep every worker's report.
check_PROGRAMS += tests/victims/v_hurry
tests_victims_v_hurry_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_hurry_LDADD = -lpthread
TESTS += tests/proc_hurry.sh tests/proc_pool.sh
EXTRA_DIST += tests/proc_hurry.sh tests/proc_pool.sh
# Children sent SIGTERM as they start, in tprof's fork handlers: they die by it, as natively.
check_PROGRAMS += tests/victims/v_forkterm
tests_victims_v_forkterm_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_forkterm.sh
EXTRA_DIST += tests/proc_forkterm.sh
# Children of clone system calls that glibc's fork does not wrap: through syscall(), vfork, and
# the program's own syscall instruction.
check_PROGRAMS += tests/victims/v_clone
tests_victims_v_clone_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_clone.sh
EXTRA_DIST += tests/proc_clone.sh
# The test suite's hold on the report at the end, preloaded before libtprof.so (proc_prompt.sh,
# proc_hurry.sh).
check_PROGRAMS += tests/victims/libtpdelay.so
tests_victims_libtpdelay_so_SOURCES = tests/victims/libtpdelay.c
tests_victims_libtpdelay_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpdelay_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpdelay.so
