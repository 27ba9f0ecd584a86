# The layer rule, checked on the objects of the build (nm): see tests/layers.sh.
TESTS += tests/layers.sh
EXTRA_DIST += tests/layers.sh
# The shape of the sources: file and function lengths, .clang-format (tests/style.sh).
TESTS += tests/style.sh
EXTRA_DIST += tests/style.sh .clang-format
# Settings and flags documented alike in README, --help and the man pages (tests/docs_agree.sh).
TESTS += tests/docs_agree.sh
EXTRA_DIST += tests/docs_agree.sh
# The man pages render every example line (tests/man_render.sh).
TESTS += tests/man_render.sh
EXTRA_DIST += tests/man_render.sh
# The default text report fits a terminal and ends with the verdict (tests/report_short.sh).
TESTS += tests/report_short.sh
EXTRA_DIST += tests/report_short.sh
# An op's name is never cut in the text (tests/report_names.sh): a library of long names.
check_PROGRAMS += tests/victims/libtplongnames.so tests/victims/v_longnames
tests_victims_libtplongnames_so_SOURCES = tests/victims/libtplongnames.c
tests_victims_libtplongnames_so_CFLAGS = $(VICTIM_CFLAGS) -fPIC
tests_victims_libtplongnames_so_LDFLAGS = -Wc,-shared -Wl,-soname,libtplongnames.so
tests_victims_v_longnames_SOURCES = tests/victims/v_longnames.c
tests_victims_v_longnames_CFLAGS = $(VICTIM_CFLAGS)
tests_victims_v_longnames_LDFLAGS = -Wl,-rpath,'$$ORIGIN'
tests_victims_v_longnames_LDADD = tests/victims/libtplongnames.so
TESTS += tests/report_names.sh tests/diff_regress.sh
EXTRA_DIST += tests/report_names.sh tests/diff_regress.sh
# make install installs the docs and the JSON schema (tests/install_docs.sh).
TESTS += tests/install_docs.sh
EXTRA_DIST += tests/install_docs.sh
# README's Layout names every source file in its folder's row: see tests/filemap.sh.
TESTS += tests/filemap.sh
EXTRA_DIST += tests/filemap.sh
