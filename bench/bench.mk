# Benchmarks: built on demand by `make bench`, which then runs bench/run.sh; never part of
# `make all` or `make check`.
EXTRA_PROGRAMS = bench/churn bench/sites
bench_churn_SOURCES = bench/churn.c
bench_churn_CFLAGS = -std=gnu11 -O2 -g
bench_churn_LDADD = -lpthread
# The call chains of sites must survive compilation: no inlining, no sibling calls, no folding.
bench_sites_SOURCES = bench/sites.c
bench_sites_CFLAGS = $(VICTIM_CFLAGS)
CLEANFILES += bench/churn bench/sites
EXTRA_DIST += bench/run.sh bench/RESULTS.md docs/bench.md

bench: all bench/churn bench/sites
	bash $(srcdir)/bench/run.sh $(abs_top_builddir)
.PHONY: bench
