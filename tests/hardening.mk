# Hardening tests: a program with its own fatal-signal handlers under tprof (signal chaining),
# and the CLI on good and bad reports under valgrind.
check_PROGRAMS += tests/victims/sighost
tests_victims_sighost_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/proc_sighost.sh tests/cli_valgrind.sh
EXTRA_DIST += tests/proc_sighost.sh tests/cli_valgrind.sh
# The TPROF_* parser's fuzz target and the script that runs every target (fuzz/README.md);
# never built by make. fuzz/corpus, env/ included, is distributed by src/cli.mk.
EXTRA_DIST += fuzz/fuzz_env.c fuzz/env.dict fuzz/run.sh
