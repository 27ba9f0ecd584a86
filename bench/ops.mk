# BLAS-wrapper benchmark: `make bench-ops` builds bench/mlp_blas (an sgemm-bound MLP on the
# system CBLAS) and runs bench/run_ops.sh: tprof/native in one run. Never part of `make all` or
# `make check`.
EXTRA_PROGRAMS += bench/mlp_blas
bench_mlp_blas_SOURCES = bench/mlp_blas.c
bench_mlp_blas_CFLAGS = -std=gnu11 -O2 -g
bench_mlp_blas_LDADD = -lblas -lm
CLEANFILES += bench/mlp_blas
EXTRA_DIST += bench/run_ops.sh

bench-ops: all bench/mlp_blas
	bash $(srcdir)/bench/run_ops.sh $(abs_top_builddir)
.PHONY: bench-ops
