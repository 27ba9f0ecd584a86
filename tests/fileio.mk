# Report files: never an attack path (another user's links, FIFOs and bait at temporary names);
# devices, FIFOs and descriptors written in place, bad settings and unwritable
# paths refused before the program runs, one warning per run.
check_PROGRAMS += tests/victims/v_early
tests_victims_v_early_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/out_devices.sh tests/out_early.sh tests/out_attack.sh
EXTRA_DIST += tests/out_devices.sh tests/out_early.sh tests/out_attack.sh
# A full file system and a file size limit: the program keeps its space, status and output.
check_PROGRAMS += tests/victims/v_fill
tests_victims_v_fill_CFLAGS = $(VICTIM_CFLAGS)
TESTS += tests/out_nospace.sh
EXTRA_DIST += tests/out_nospace.sh
