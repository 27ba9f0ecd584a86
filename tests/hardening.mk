# Hardening tests: a program with its own fatal-signal handlers under tprof (signal chaining),
# and the CLI on good and bad reports under valgrind.
check_PROGRAMS += tests/victims/sighost
tests_victims_sighost_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_sighost.sh tests/cli_valgrind.sh
EXTRA_DIST += tests/proc_sighost.sh tests/cli_valgrind.sh
# Issue 6's load and fault cases not covered elsewhere: a fork+exec chain two levels deep, death
# by SIGSEGV/SIGABRT with core dumps enabled, and OpenBLAS running its own thread pool.
check_PROGRAMS += tests/victims/v_chain
tests_victims_v_chain_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_chain.sh tests/proc_core.sh
EXTRA_DIST += tests/proc_chain.sh tests/proc_core.sh
# The TPROF_* parser's fuzz target and the script that runs every target (fuzz/README.md);
# never built by make. fuzz/corpus, env/ included, is distributed by src/cli.mk.
EXTRA_DIST += fuzz/fuzz_env.c fuzz/env.dict fuzz/run.sh
# Wrapped programs: the report's plain name belongs to the last image of a process (env X=1
# prog, sh -c 'exec prog', chains of them); an image that execs after working of its own
# reports under its name; a failed exec keeps the plain name.
check_PROGRAMS += tests/victims/v_wrap
tests_victims_v_wrap_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_wrap.sh
EXTRA_DIST += tests/proc_wrap.sh
# Every value a warning echoes is escaped once: settings, paths, names from the program.
check_PROGRAMS += tests/victims/v_dlname
tests_victims_v_dlname_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_dlname_LDADD = -ldl
TESTS += tests/env_escape.sh
EXTRA_DIST += tests/env_escape.sh
