# Example models (docs/examples.md). They are built with -finstrument-functions, so that their
# layer functions are ops; /usr/include is left out so that inline functions of system headers
# cost nothing.
EXAMPLE_CFLAGS = -std=gnu11 -Wall -Wextra -O2 -g -finstrument-functions \
	-finstrument-functions-exclude-file-list=/usr/include $(OPENBLAS_CFLAGS)
EXAMPLE_LIBS = $(OPENBLAS_LIBS) -lm
noinst_HEADERS += examples/layers.h
EXTRA_DIST += examples/questions.sh docs/examples.md

if HAVE_OPENBLAS
noinst_PROGRAMS = examples/mlp examples/cnn examples/transformer
examples_mlp_SOURCES = examples/mlp.c examples/layers.c
examples_mlp_CFLAGS = $(EXAMPLE_CFLAGS)
examples_mlp_LDADD = $(EXAMPLE_LIBS)
examples_cnn_SOURCES = examples/cnn.c examples/layers.c
examples_cnn_CFLAGS = $(EXAMPLE_CFLAGS)
examples_cnn_LDADD = $(EXAMPLE_LIBS)
examples_transformer_SOURCES = examples/transformer.c examples/layers.c
examples_transformer_CFLAGS = $(EXAMPLE_CFLAGS)
examples_transformer_LDADD = $(EXAMPLE_LIBS)
endif

# make demo: profile every example and print its report, the short one a run prints by default
# (the README's first command). Each also writes its HTML report, <example>.html, in the build
# directory, with every op.
DEMO_EXAMPLES = mlp cnn transformer
demo: all
	@if test ! -x examples/mlp; then \
	  echo "make demo: the examples need OpenBLAS (apt-get install libopenblas-dev, then configure)"; \
	  exit 1; fi
	@for ex in $(DEMO_EXAMPLES); do \
	  echo; echo "=== tprof run --step train_step --top 15 --html $$ex.html -- examples/$$ex"; \
	  ./tprof run --step train_step --top 15 --html $$ex.html -- examples/$$ex || exit 1; \
	done
	@echo; echo "make demo: the HTML reports are $(DEMO_EXAMPLES:=.html) here: open one in a browser (README.md, The HTML report)"
CLEANFILES += $(DEMO_EXAMPLES:=.html)
.PHONY: demo

# make questions: MLP vs CNN vs transformer, attention at n and 2n, direct vs im2col convolution,
# each answered by tprof runs (docs/examples.md shows the output).
questions: all
	@$(SHELL) $(srcdir)/examples/questions.sh
.PHONY: questions

# The examples' reports, asserted exactly where the truth is known (tests skip without OpenBLAS).
TESTS += tests/examples_mlp.sh tests/examples_cnn.sh tests/examples_transformer.sh \
	tests/examples_questions.sh
EXTRA_DIST += tests/examples_mlp.sh tests/examples_cnn.sh tests/examples_transformer.sh \
	tests/examples_questions.sh
