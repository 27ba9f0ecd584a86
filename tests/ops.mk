# Ops tests: the typed BLAS wrappers against OpenBLAS and the reference BLAS.
if HAVE_OPENBLAS
check_PROGRAMS += tests/victims/v_blas
tests_victims_v_blas_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_blas_LDADD = -lblas
endif
TESTS += tests/blas_ops.sh
EXTRA_DIST += tests/blas_ops.sh
