# The MPI example (docs/examples.md, "Many processes"): the MLP trained data-parallel, one report
# per rank, merged by tprof merge. Built with the other examples' flags (its layer functions are
# ops) when configure found both OpenBLAS and Open MPI (pkg-config ompi-c, Debian libopenmpi-dev).
if HAVE_OPENBLAS
if HAVE_MPI
noinst_PROGRAMS += examples/mpi_mlp
examples_mpi_mlp_SOURCES = examples/mpi_mlp.c examples/layers.c
examples_mpi_mlp_CFLAGS = $(EXAMPLE_CFLAGS) $(MPI_CFLAGS)
examples_mpi_mlp_LDADD = $(MPI_LIBS) $(EXAMPLE_LIBS)
endif
endif

# Skips (77) when the example was not built or mpirun cannot start two processes.
TESTS += tests/examples_mpi.sh
EXTRA_DIST += tests/examples_mpi.sh
