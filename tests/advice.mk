# The advice on the time outside every op (issue 28): the decision table's sentences
# (check_advice), and one victim per row built the way the row needs (advice.sh).
check_PROGRAMS += tests/check_advice tests/victims/v_adv_o2 tests/victims/v_adv_static \
	tests/victims/libtpadv.so tests/victims/v_adv_lib
tests_check_advice_SOURCES = tests/check_advice.c
tests_check_advice_CFLAGS = $(TEST_CFLAGS) $(TP_LIB_CFLAGS)
tests_check_advice_LDADD = $(TP_TRACK) $(TEST_LIBS)
tests_victims_v_adv_o2_SOURCES = tests/victims/v_advice.c
tests_victims_v_adv_o2_CFLAGS = -std=gnu11 -g -O2
tests_victims_v_adv_static_SOURCES = tests/victims/v_advice.c
tests_victims_v_adv_static_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_libtpadv_so_SOURCES = tests/victims/libtpadv.c
tests_victims_libtpadv_so_CFLAGS = -std=gnu11 -g -O1 -fPIC
tests_victims_libtpadv_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpadv.so
tests_victims_v_adv_lib_SOURCES = tests/victims/v_advice.c
tests_victims_v_adv_lib_CFLAGS = $(VICTIM_CFLAGS) -DWITH_LIB
tests_victims_v_adv_lib_LDADD = tests/victims/libtpadv.so
tests_victims_v_adv_lib_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
TESTS += tests/check_advice tests/advice.sh
EXTRA_DIST += tests/advice.sh

# The step detected without TPROF_STEP: the repeating op that encloses the most op time, never an
# allocator or free function (step_detect.sh).
check_PROGRAMS += tests/victims/libtpgraph.so tests/victims/v_graph
tests_victims_libtpgraph_so_SOURCES = tests/victims/libtpgraph.c
tests_victims_libtpgraph_so_CFLAGS = -std=gnu11 -g -O1 -fPIC
tests_victims_libtpgraph_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtpgraph.so
tests_victims_v_graph_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_graph_LDADD = tests/victims/libtpgraph.so
tests_victims_v_graph_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
TESTS += tests/step_detect.sh
EXTRA_DIST += tests/step_detect.sh
