# CLI tests: report, diff, merge on fixtures; bad input.
TESTS += tests/cli_tools.sh tests/cli_badinput.sh
EXTRA_DIST += tests/cli_tools.sh tests/cli_badinput.sh tests/fixtures/a.json tests/fixtures/b.json
