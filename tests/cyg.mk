# Ops by name: instrumented functions, PLT/GOT hooks on shared-library exports (also in libraries
# loaded later), the annotation API, and the symbol tables behind them.

# -finstrument-functions victims.
check_PROGRAMS += tests/victims/v_cyg tests/victims/v_cyg_cost tests/victims/v_cyg_cxx \
	tests/victims/v_cyg_inline
tests_victims_v_cyg_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions
tests_victims_v_cyg_LDADD = -lpthread
tests_victims_v_cyg_inline_CFLAGS = -O2 -g -finstrument-functions
tests_victims_v_cyg_cost_CFLAGS = -O2 -g -finstrument-functions
tests_victims_v_cyg_cxx_SOURCES = tests/victims/v_cyg_cxx.cc
tests_victims_v_cyg_cxx_CXXFLAGS = -g -O1 -fno-inline -fno-optimize-sibling-calls -finstrument-functions
TESTS += tests/cyg_ops.sh tests/cyg_cost.sh tests/cyg_cxx.sh
EXTRA_DIST += tests/cyg_ops.sh tests/cyg_cost.sh tests/cyg_cxx.sh

# A prebuilt library and its users. The libraries are built as plain programs linked -shared
# (libtool would make them libtool libraries with wrapper scripts); the programs find them next to
# themselves through DT_RUNPATH $ORIGIN, as installed software finds its own libraries.
check_PROGRAMS += tests/victims/libtpop.so tests/victims/libtpop_user.so tests/victims/libtpop_free.so \
	tests/victims/v_cyg_plt \
	tests/victims/v_cyg_plt_nopie tests/victims/v_cyg_dl
tests_victims_libtpop_so_SOURCES = tests/victims/libtpop.c
tests_victims_libtpop_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpop_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpop.so
tests_victims_libtpop_user_so_SOURCES = tests/victims/libtpop_user.c
tests_victims_libtpop_user_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpop_user_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpop_user.so -Wl,-rpath,'$$ORIGIN'
tests_victims_libtpop_user_so_LDADD = tests/victims/libtpop.so
tests_victims_libtpop_free_so_SOURCES = tests/victims/libtpop_free.c
tests_victims_libtpop_free_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpop_free_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpop_free.so
tests_victims_v_cyg_plt_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_cyg_plt_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_cyg_plt_LDADD = tests/victims/libtpop.so -ldl
tests_victims_v_cyg_plt_nopie_SOURCES = tests/victims/v_cyg_plt.c
tests_victims_v_cyg_plt_nopie_CFLAGS = $(VICTIM_CFLAGS) -fno-pie
tests_victims_v_cyg_plt_nopie_LDFLAGS = -no-pie -Wl,-rpath,'$$ORIGIN'
tests_victims_v_cyg_plt_nopie_LDADD = tests/victims/libtpop.so -ldl
tests_victims_v_cyg_dl_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_cyg_dl_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_cyg_dl_LDADD = -ldl
check_PROGRAMS += tests/victims/v_cyg_threads
tests_victims_v_cyg_threads_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions
tests_victims_v_cyg_threads_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_cyg_threads_LDADD = tests/victims/libtpop.so -lpthread
TESTS += tests/plt_ops.sh tests/plt_dlopen.sh tests/cyg_threads.sh
EXTRA_DIST += tests/plt_ops.sh tests/plt_dlopen.sh tests/cyg_threads.sh tests/victims/libtpop.work
# Wall-clock time of ops run on two threads at once, and one after the other.
check_PROGRAMS += tests/victims/v_op_wall
tests_victims_v_op_wall_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions
tests_victims_v_op_wall_LDADD = -lpthread
TESTS += tests/op_wall.sh
EXTRA_DIST += tests/op_wall.sh

# The annotation API.
check_PROGRAMS += tests/victims/v_api
tests_victims_v_api_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/api_regions.sh
EXTRA_DIST += tests/api_regions.sh

# Symbol tables, unit-tested on the test program itself (needs libtpop.so, built above).
check_PROGRAMS += tests/check_symtab
tests_check_symtab_SOURCES = tests/check_symtab.c tests/symat.h
tests_check_symtab_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
tests_check_symtab_LDADD = $(TP_TRACK) $(TEST_LIBS) -ldl
TESTS += tests/check_symtab

# Loading order: a library whose constructor calls dlopen(NULL) while its dependents are still
# being initialised (libtpld_b), a dependent whose constructor needs it finished (libtpld_c), and
# the library the program dlopens (libtpld_a), whose constructor calls libtpld_c's op through its
# PLT.
check_PROGRAMS += tests/victims/libtpld_b.so tests/victims/libtpld_c.so tests/victims/libtpld_a.so \
	tests/victims/v_loadorder
tests_victims_libtpld_b_so_SOURCES = tests/victims/libtpld_b.c
tests_victims_libtpld_b_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpld_b_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpld_b.so
tests_victims_libtpld_b_so_LDADD = -ldl
tests_victims_libtpld_c_so_SOURCES = tests/victims/libtpld_c.c
tests_victims_libtpld_c_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpld_c_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpld_c.so -Wl,-rpath,'$$ORIGIN'
tests_victims_libtpld_c_so_LDADD = tests/victims/libtpld_b.so
tests_victims_libtpld_a_so_SOURCES = tests/victims/libtpld_a.c
tests_victims_libtpld_a_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpld_a_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpld_a.so -Wl,-rpath,'$$ORIGIN'
tests_victims_libtpld_a_so_LDADD = tests/victims/libtpld_b.so tests/victims/libtpld_c.so
tests_victims_v_loadorder_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_loadorder_LDADD = -ldl
TESTS += tests/plt_loadorder.sh tests/plt_torch.sh
EXTRA_DIST += tests/plt_loadorder.sh tests/plt_torch.sh

# Function identity: a library whose export compares its own address with a stored pointer, built
# with -O2 as OpenSSL is (the call through the pointer is then a jump: a regression hangs instead
# of overflowing the stack), and its user.
check_PROGRAMS += tests/victims/libtpself.so tests/victims/v_identity
tests_victims_libtpself_so_SOURCES = tests/victims/libtpself.c
tests_victims_libtpself_so_CFLAGS = -std=gnu11 -g -O2 -fPIC
tests_victims_libtpself_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpself.so
tests_victims_v_identity_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_identity_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_identity_LDADD = tests/victims/libtpself.so -ldl
TESTS += tests/plt_identity.sh tests/plt_runtimes.sh
EXTRA_DIST += tests/plt_identity.sh tests/plt_runtimes.sh

# Where the time outside every op goes (CPU-time samples), and settings that name no function.
check_PROGRAMS += tests/victims/v_hot
tests_victims_v_hot_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions
TESTS += tests/outside_ops.sh tests/unmatched.sh
EXTRA_DIST += tests/outside_ops.sh tests/unmatched.sh

# The persistent/transient split of the heap peak by lifetime.
check_PROGRAMS += tests/victims/v_life
tests_victims_v_life_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions
TESTS += tests/heap_lifetime.sh
EXTRA_DIST += tests/heap_lifetime.sh

# Work of a program's own kernels from their parameters (TPROF_WORK): the same kernels built at
# -O0, -O2 and -O3 with -g, and at -O2 without -g. Built by plain rules: automake would put the
# user's CFLAGS (-g -O2 by default) after the per-program ones, and every level would be -O2.
V_WORK_SRC = $(srcdir)/tests/victims/v_work.c $(srcdir)/tests/victims/v_work_k.c
V_WORK_DEP = $(V_WORK_SRC) $(srcdir)/tests/victims/v_work.h
check_DATA = tests/victims/v_work_O0 tests/victims/v_work_O2 tests/victims/v_work_O3 \
	tests/victims/v_work_nog tests/victims/v_work_inline tests/victims/v_work_threads \
	tests/victims/v_work_cxx
CLEANFILES += $(check_DATA)
EXTRA_DIST += $(V_WORK_DEP) tests/victims/v_work_inline.c tests/victims/v_work_threads.c \
	tests/victims/v_work_cxx.cc
tests/victims/v_work_O0: $(V_WORK_DEP)
	$(AM_V_CC)$(CC) -std=gnu11 -finstrument-functions -g -O0 -o $@ $(V_WORK_SRC)
tests/victims/v_work_O2: $(V_WORK_DEP)
	$(AM_V_CC)$(CC) -std=gnu11 -finstrument-functions -g -O2 -o $@ $(V_WORK_SRC)
tests/victims/v_work_O3: $(V_WORK_DEP)
	$(AM_V_CC)$(CC) -std=gnu11 -finstrument-functions -g -O3 -o $@ $(V_WORK_SRC)
tests/victims/v_work_nog: $(V_WORK_DEP)
	$(AM_V_CC)$(CC) -std=gnu11 -finstrument-functions -g0 -O2 -o $@ $(V_WORK_SRC)
tests/victims/v_work_threads: $(V_WORK_DEP) $(srcdir)/tests/victims/v_work_threads.c
	$(AM_V_CC)$(CC) -std=gnu11 -finstrument-functions -g -O2 -pthread -o $@ \
	  $(srcdir)/tests/victims/v_work_threads.c $(srcdir)/tests/victims/v_work_k.c
tests/victims/v_work_cxx: $(srcdir)/tests/victims/v_work_cxx.cc
	$(AM_V_CXX)$(CXX) -finstrument-functions -g -O2 -o $@ $(srcdir)/tests/victims/v_work_cxx.cc
tests/victims/v_work_inline: $(srcdir)/tests/victims/v_work_inline.c
	$(AM_V_CC)$(CC) -std=gnu11 -finstrument-functions -g -O2 -o $@ $(srcdir)/tests/victims/v_work_inline.c
TESTS += tests/cyg_work.sh
EXTRA_DIST += tests/cyg_work.sh
# Work entries of a library's export called through the PLT: parameters from the DWARF or from
# a prototype in the entry, in registers, xmm0 and on the stack.
check_PROGRAMS += tests/victims/libtpwork.so tests/victims/v_work_plt
tests_victims_libtpwork_so_SOURCES = tests/victims/libtpwork.c
tests_victims_libtpwork_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpwork_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpwork.so
tests_victims_v_work_plt_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_work_plt_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_work_plt_LDADD = tests/victims/libtpwork.so
TESTS += tests/plt_work.sh
EXTRA_DIST += tests/plt_work.sh
# The address-to-function lookup shared by the hooks' symbol tables and the report's symboliser.
check_PROGRAMS += tests/check_symindex
tests_check_symindex_SOURCES = tests/check_symindex.c tests/symat.h
tests_check_symindex_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS) $(LIBDW_CFLAGS) $(LIBELF_CFLAGS)
tests_check_symindex_LDADD = $(TP_TRACK) $(TEST_LIBS) -ldl
TESTS += tests/check_symindex

# C++ names demangled when the C++ runtime was loaded RTLD_LOCAL by a C program.
check_PROGRAMS += tests/victims/libtpcxxalloc.so tests/victims/v_dlcxx
tests_victims_libtpcxxalloc_so_SOURCES = tests/victims/libtpcxxalloc.cc
tests_victims_libtpcxxalloc_so_CXXFLAGS = -g -O1 -fno-inline -fPIC
tests_victims_libtpcxxalloc_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpcxxalloc.so
tests_victims_v_dlcxx_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_dlcxx_LDADD = -ldl
TESTS += tests/cxx_names.sh
EXTRA_DIST += tests/cxx_names.sh

# The heap over time on every run: points at op calls and steps with their ops, ticks without.
TESTS += tests/heap_series.sh
EXTRA_DIST += tests/heap_series.sh
# The built-in work entries of darknet's gemm and im2col_cpu, on a library exporting them by
# darknet's names (through the PLT) and on the same code built with -finstrument-functions.
check_PROGRAMS += tests/victims/libtpdkn.so tests/victims/v_dkn_plt
tests_victims_libtpdkn_so_SOURCES = tests/victims/libtpdkn.c tests/victims/v_dkn.h
tests_victims_libtpdkn_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpdkn_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpdkn.so
tests_victims_v_dkn_plt_SOURCES = tests/victims/v_dkn.c tests/victims/v_dkn.h
tests_victims_v_dkn_plt_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_dkn_plt_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_dkn_plt_LDADD = tests/victims/libtpdkn.so
V_DKN_SRC = $(srcdir)/tests/victims/v_dkn.c $(srcdir)/tests/victims/libtpdkn.c
V_DKN_DEP = $(V_DKN_SRC) $(srcdir)/tests/victims/v_dkn.h
check_DATA += tests/victims/v_dkn_O0 tests/victims/v_dkn_O2 tests/victims/v_dkn_O3
tests/victims/v_dkn_O0: $(V_DKN_DEP)
	$(AM_V_CC)$(CC) -std=gnu11 -finstrument-functions -g -O0 -o $@ $(V_DKN_SRC)
tests/victims/v_dkn_O2: $(V_DKN_DEP)
	$(AM_V_CC)$(CC) -std=gnu11 -finstrument-functions -g -O2 -o $@ $(V_DKN_SRC)
tests/victims/v_dkn_O3: $(V_DKN_DEP)
	$(AM_V_CC)$(CC) -std=gnu11 -finstrument-functions -g -O3 -o $@ $(V_DKN_SRC)
TESTS += tests/work_builtin.sh
EXTRA_DIST += tests/work_builtin.sh

# The PLT scan under the default ops: a library's exports reached through a versioned name (the
# default version and an old one) and through an alias, from the program at start-up and from a
# plugin loaded later with dlopen, every entry bound lazily.
check_PROGRAMS += tests/victims/libtpnames.so tests/victims/libtpnames_user.so \
	tests/victims/v_plt_names
tests_victims_libtpnames_so_SOURCES = tests/victims/libtpnames.c
tests_victims_libtpnames_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpnames_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpnames.so \
	-Wl,--version-script=$(srcdir)/tests/victims/libtpnames.map
EXTRA_tests_victims_libtpnames_so_DEPENDENCIES = tests/victims/libtpnames.map
tests_victims_libtpnames_user_so_SOURCES = tests/victims/libtpnames_user.c tests/victims/tpnames_calls.h
tests_victims_libtpnames_user_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpnames_user_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpnames_user.so \
	-Wl,-rpath,'$$ORIGIN' -Wl,-z,lazy
tests_victims_libtpnames_user_so_LDADD = tests/victims/libtpnames.so
tests_victims_v_plt_names_SOURCES = tests/victims/v_plt_names.c tests/victims/tpnames_calls.h
tests_victims_v_plt_names_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_plt_names_LDFLAGS = -Wl,-rpath,'$$ORIGIN' -Wl,-z,lazy
tests_victims_v_plt_names_LDADD = tests/victims/libtpnames.so -ldl
TESTS += tests/plt_names.sh
EXTRA_DIST += tests/plt_names.sh tests/victims/libtpnames.map
# PLT stubs past the built-in ones, made as needed within the memory budget; past it, a partial
# report that says how many functions were not hooked.
TESTS += tests/plt_grow.sh
EXTRA_DIST += tests/plt_grow.sh
# A model library installed with the system's libraries (under a /usr/lib-like root): its
# exports the program calls are default ops, one system library's calls into another are not.
check_PROGRAMS += tests/victims/libtpmhelp.so tests/victims/libtpmodel.so tests/victims/v_sysmodel \
    tests/victims/libtpvec.so
tests_victims_libtpvec_so_SOURCES = tests/victims/libtpvec.cc
tests_victims_libtpvec_so_CXXFLAGS = -g -O1 -fPIC
tests_victims_libtpvec_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpvec.so
tests_victims_libtpmhelp_so_SOURCES = tests/victims/libtpmodel.c
tests_victims_libtpmhelp_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC -DTPMHELP
tests_victims_libtpmhelp_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpmhelp.so
tests_victims_libtpmodel_so_SOURCES = tests/victims/libtpmodel.c
tests_victims_libtpmodel_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtpmodel_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpmodel.so
tests_victims_libtpmodel_so_LDADD = tests/victims/libtpmhelp.so
tests_victims_v_sysmodel_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_sysmodel_LDFLAGS = -Wl,-rpath-link,tests/victims
tests_victims_v_sysmodel_LDADD = tests/victims/libtpmodel.so tests/victims/libtpvec.so
TESTS += tests/plt_sysmodel.sh tests/plt_fann.sh
EXTRA_DIST += tests/plt_sysmodel.sh tests/plt_fann.sh

# The verdict on the op with the FLOPs when its time is in a nested op without them
# (verdict_nested.sh): TPROF_WORK reads gemm's parameters, so -g and -finstrument-functions.
check_PROGRAMS += tests/victims/v_nested_work
tests_victims_v_nested_work_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions
TESTS += tests/verdict_nested.sh
EXTRA_DIST += tests/verdict_nested.sh
