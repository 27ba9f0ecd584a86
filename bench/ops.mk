# BLAS-wrapper benchmark: `make bench-ops` builds bench/mlp_blas (an sgemm-bound MLP on OpenBLAS)
# and runs bench/run_ops.sh (the detail behind the sgemm row of `make bench`: tiny passes, medians,
# OpenBLAS's own threads). A check program when OpenBLAS is found, so that `make check` builds it
# for bench/smoke.sh.
if HAVE_OPENBLAS
check_PROGRAMS += bench/mlp_blas
BENCH_BLAS = bench/mlp_blas
endif
bench_mlp_blas_SOURCES = bench/mlp_blas.c
bench_mlp_blas_CFLAGS = -std=gnu11 -O2 -g
bench_mlp_blas_LDADD = $(OPENBLAS_LIBS) -lm
EXTRA_DIST += bench/run_ops.sh

bench-ops: all $(BENCH_BLAS)
	@test -n "$(BENCH_BLAS)" || { echo "make bench-ops: bench/mlp_blas needs OpenBLAS (apt-get install libopenblas-dev, then configure)"; exit 1; }
	bash $(srcdir)/bench/run_ops.sh $(abs_top_builddir)
.PHONY: bench-ops
