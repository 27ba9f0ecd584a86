#!/bin/sh
# In a --enable-sanitizers build every shell test starts here (tests/sanitize.mk): the CLI tests
# run on the instrumented tprof; a scenario that preloads libtprof.so is skipped, because that
# library is built without ASan (ASan must be the first DSO and replaces malloc, so an
# instrumented libtprof.so cannot be preloaded) and the normal build already runs it.
# Usage (from make): $(SHELL) sanitize_gate.sh $(SHELL) tests/x.sh
sh=$1
t=$2
shift 2
case ${t##*/} in
cli_*.sh | schema_validate.sh) exec "$sh" "$t" "$@" ;;
esac
echo "SKIP: sanitizer build: ${t##*/} preloads libtprof.so, built without ASan (ASan must be the first DSO and replaces malloc); the normal build runs it"
exit 77
