# Benchmarks (docs/bench.md): `make bench` runs bench/run.sh, one table of what tprof, heaptrack and
# uftrace cost on allocation churn, an sgemm-bound MLP, an instrumented-call storm and the
# examples; `make bench-quick` the same with short runs (QUICK=1: checks that it runs, about a
# minute; not figures to quote). The programs are check programs so that `make check` builds them
# for bench/smoke.sh, which runs the script in its smallest form and checks the table's shape,
# never a figure: timings are measurements, not tests.
check_PROGRAMS += bench/churn bench/sites bench/costs
bench_churn_SOURCES = bench/churn.c bench/churn_mix.h
bench_churn_CFLAGS = -std=gnu11 -O2 -g
bench_churn_LDADD = -lpthread
# What each kind of hot-path work costs beside churn's calls, without tprof (bench/RESULTS.md).
bench_costs_SOURCES = bench/costs.c bench/churn_mix.h
bench_costs_CFLAGS = -std=gnu11 -O2 -g
bench_costs_LDADD = -lpthread
# The call chains of sites must survive compilation: no inlining, no sibling calls, no folding.
bench_sites_SOURCES = bench/sites.c
bench_sites_CFLAGS = $(VICTIM_CFLAGS)
TESTS += bench/smoke.sh
EXTRA_DIST += bench/run.sh bench/run_hook_cost.sh bench/smoke.sh bench/ab.sh bench/RESULTS.md docs/bench.md \
	bench/peaks_stability.sh bench/run_adapt.sh bench/storm30.c bench/run_real.sh bench/fwdshim.c \
	bench/callgrind_real.sh bench/calibrate_spread.sh bench/run_plt_perf.sh bench/shim_ab.sh \
	bench/lines.sh

BENCH_DEPS = bench/churn bench/sites bench/cyg_storm bench/cyg_storm_native bench/libcygstorm.so \
	$(BENCH_BLAS)
bench: all $(BENCH_DEPS)
	bash $(srcdir)/bench/run.sh $(abs_top_builddir)
bench-quick: all $(BENCH_DEPS)
	QUICK=1 bash $(srcdir)/bench/run.sh $(abs_top_builddir)
.PHONY: bench bench-quick
# Big programs (bench/big.sh: 10^6 generated call sites, python3-torch MLP): run by hand.
EXTRA_DIST += bench/big.sh bench/big.py bench/big_gen.py bench/torch_mlp.py
EXTRA_DIST += bench/exit_cost.sh
EXTRA_DIST += bench/lockadd.c
EXTRA_DIST += bench/make_ab.sh
# The call-site table's bytes a site for bench/big_gen.py's stacks (bench/RESULTS.md).
check_PROGRAMS += bench/site_bytes
bench_site_bytes_SOURCES = bench/site_bytes.c
bench_site_bytes_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS)
bench_site_bytes_LDADD = $(TP_TRACK) $(TEST_LIBS)
# The sources libtprof.so is built from, one a line: bench/lines.sh counts them.
print-libtprof-sources:
	@for f in $(libtprof_la_SOURCES) $(libtptrack_la_SOURCES) $(libtpreport_la_SOURCES) \
	  $(libtpcommon_la_SOURCES); do echo $$f; done
.PHONY: print-libtprof-sources
