# Example models, built with -finstrument-functions so their layer functions are ops.
EXAMPLE_CFLAGS = -std=gnu11 -O2 -g -finstrument-functions \
	-finstrument-functions-exclude-file-list=/usr/include $(OPENBLAS_CFLAGS)
if HAVE_OPENBLAS
noinst_PROGRAMS = examples/mlp
examples_mlp_SOURCES = examples/mlp.c
examples_mlp_CFLAGS = $(EXAMPLE_CFLAGS)
examples_mlp_LDADD = $(OPENBLAS_LIBS) -lm
endif
DEMO_EXAMPLES = mlp

# make demo: profile every example and print its report (the README's first command).
demo: all
	@for ex in $(DEMO_EXAMPLES); do \
	  echo; echo "=== tprof run -- examples/$$ex"; \
	  ./tprof run -- examples/$$ex || exit 1; \
	done
.PHONY: demo
