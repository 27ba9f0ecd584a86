# Ops-by-name benchmark: `make bench-cyg` builds bench/cyg_storm (-finstrument-functions), its
# uninstrumented twin and libcygstorm.so, then runs bench/run_cyg.sh (the detail behind the storm
# row of `make bench`). Check programs, so that `make check` builds them for bench/smoke.sh.
check_PROGRAMS += bench/cyg_storm bench/cyg_storm_native bench/libcygstorm.so
bench_libcygstorm_so_SOURCES = bench/cyg_storm_lib.c
bench_libcygstorm_so_CFLAGS = -std=gnu11 -O2 -g -fPIC
bench_libcygstorm_so_LDFLAGS = -Wc,-shared -Wl,-soname,libcygstorm.so
bench_cyg_storm_SOURCES = bench/cyg_storm.c
bench_cyg_storm_CFLAGS = -std=gnu11 -O2 -g -finstrument-functions
bench_cyg_storm_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
bench_cyg_storm_LDADD = bench/libcygstorm.so
bench_cyg_storm_native_SOURCES = bench/cyg_storm.c
bench_cyg_storm_native_CFLAGS = -std=gnu11 -O2 -g
bench_cyg_storm_native_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
bench_cyg_storm_native_LDADD = bench/libcygstorm.so
EXTRA_DIST += bench/run_cyg.sh

bench-cyg: all bench/cyg_storm bench/cyg_storm_native bench/libcygstorm.so
	bash $(srcdir)/bench/run_cyg.sh $(abs_top_builddir)
.PHONY: bench-cyg
# The cost of an op's TPROF_WORK entry (bench/run_work.sh).
check_PROGRAMS += bench/work_storm
bench_work_storm_SOURCES = bench/work_storm.c
bench_work_storm_CFLAGS = -std=gnu11 -O2 -g -finstrument-functions
EXTRA_DIST += bench/run_work.sh
