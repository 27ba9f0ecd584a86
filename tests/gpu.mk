# CUDA without a GPU: a stand-in driver (libtpfakecuda.so, soname libcuda.so.1) and a program that
# reaches it as nvcc's runtime does (through cuGetProcAddress) and through the exported names
# (tests/gpu.sh); a program whose driver is missing behaves as it does natively.
check_PROGRAMS += tests/victims/libtpfakecuda.so tests/victims/libtpfakecublas.so tests/victims/v_cuda \
	tests/victims/v_cuda_linked
tests_victims_libtpfakecuda_so_SOURCES = tests/victims/libtpfakecuda.c
tests_victims_libtpfakecuda_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpfakecuda_so_LDFLAGS = -Wc,-shared -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic
tests_victims_libtpfakecublas_so_SOURCES = tests/victims/libtpfakecublas.c
tests_victims_libtpfakecublas_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpfakecublas_so_LDFLAGS = -Wc,-shared -Wl,-soname,libcublas.so.12 -Wl,-Bsymbolic
tests_victims_v_cuda_SOURCES = tests/victims/v_cuda.c
tests_victims_v_cuda_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions
tests_victims_v_cuda_LDADD = -ldl
tests_victims_v_cuda_linked_SOURCES = tests/victims/v_cuda.c
tests_victims_v_cuda_linked_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions -DLINKED
tests_victims_v_cuda_linked_LDADD = tests/victims/libtpfakecuda.so tests/victims/libtpfakecublas.so -ldl
TESTS += tests/gpu.sh
EXTRA_DIST += tests/gpu.sh
# The text's GPU section, every line it can print, on hand-made reports.
check_PROGRAMS += tests/check_gpu
tests_check_gpu_SOURCES = tests/check_gpu.c
tests_check_gpu_CFLAGS = $(TEST_CFLAGS)
tests_check_gpu_LDADD = $(TEST_LIBS)
TESTS += tests/check_gpu
