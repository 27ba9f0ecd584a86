# The CPU and the machine: per-thread CPU and run-queue figures, the parsers of the kernel's
# files and the rule of the CPU verdict (check_cpu), and the verdict on a run that waited for
# its CPU beside a busy loop (cpu_wait.sh) and on one that did not (cpu_quiet.sh); one busy
# thread allowed two CPUs both taken by busy loops is told the wait is other load (cpu_single.sh).
check_PROGRAMS += tests/check_cpu tests/victims/v_cpu
tests_check_cpu_SOURCES = tests/check_cpu.c
tests_check_cpu_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS)
tests_check_cpu_LDADD = $(TP_TRACK) $(TEST_LIBS)
tests_victims_v_cpu_CFLAGS = $(VICTIM_CFLAGS) -I$(top_srcdir)/include
tests_victims_v_cpu_LDADD = -lpthread
TESTS += tests/check_cpu tests/cpu_wait.sh tests/cpu_quiet.sh
EXTRA_DIST += tests/cpu_wait.sh tests/cpu_quiet.sh tests/cpu_text.py
# A library whose constructor spins before libtprof.so's: its CPU is not the run's (cpu_start.sh).
check_PROGRAMS += tests/victims/libtpburn.so tests/victims/v_burnctor
tests_victims_libtpburn_so_SOURCES = tests/victims/libtpburn.c
tests_victims_libtpburn_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpburn_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpburn.so
tests_victims_v_burnctor_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_burnctor_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_burnctor_LDADD = tests/victims/libtpburn.so
TESTS += tests/cpu_start.sh tests/cpu_single.sh
EXTRA_DIST += tests/cpu_start.sh tests/cpu_single.sh
