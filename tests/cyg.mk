# Ops by name: instrumented functions, the annotation API.
check_PROGRAMS += tests/victims/v_cyg
tests_victims_v_cyg_CFLAGS = $(VICTIM_CFLAGS) -finstrument-functions
TESTS += tests/cyg_ops.sh
EXTRA_DIST += tests/cyg_ops.sh
check_PROGRAMS += tests/victims/v_api
tests_victims_v_api_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/api_regions.sh
EXTRA_DIST += tests/api_regions.sh
