# TPROF_WORK where -O2/-O3 keep a size only as a computation, in a stack slot of the function a
# kernel was inlined into, or nowhere (tests/work_o3.sh). Plain rules, as tests/cyg.mk's
# v_work_O*: automake would put the user's CFLAGS after the per-program ones.
check_DATA += tests/victims/v_work_o3_O2 tests/victims/v_work_o3_O3
# (CLEANFILES takes check_DATA whole: tests/cyg.mk)
EXTRA_DIST += tests/victims/v_work_o3.c tests/work_o3.sh
tests/victims/v_work_o3_O2: $(srcdir)/tests/victims/v_work_o3.c
	$(AM_V_CC)$(CC) -std=gnu11 -finstrument-functions -g -O2 -o $@ $(srcdir)/tests/victims/v_work_o3.c
tests/victims/v_work_o3_O3: $(srcdir)/tests/victims/v_work_o3.c
	$(AM_V_CC)$(CC) -std=gnu11 -finstrument-functions -g -O3 -o $@ $(srcdir)/tests/victims/v_work_o3.c
TESTS += tests/work_o3.sh
# The expression compiler and runner alone, on hand-written DWARF expressions.
check_PROGRAMS += tests/check_argexpr
tests_check_argexpr_SOURCES = tests/check_argexpr.c
tests_check_argexpr_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
tests_check_argexpr_LDADD = $(TP_TRACK) $(TEST_LIBS) -ldl
TESTS += tests/check_argexpr
