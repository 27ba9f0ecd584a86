# darknet from Debian (docs/darknet.md): the shipped binary's heap (darknet_bin), and darknet's
# program built from Debian's source by scripts/darknet-cli.sh into tests/darknet-cli/ of the build
# tree (once; the tests reuse it), linked to Debian's libdarknet.so (darknet_plt) or to a plain-C
# libdarknet.so built from the same source (darknet_ownlib), with gemm and im2col_cpu hooked
# through the PLT. Each test skips (77) when darknet is not installed or cannot be built.
TESTS += tests/darknet_bin.sh tests/darknet_plt.sh tests/darknet_ownlib.sh
EXTRA_DIST += tests/darknet_bin.sh tests/darknet_plt.sh tests/darknet_ownlib.sh \
	tests/darknet/small.cfg tests/darknet/expect.py tests/darknet/common.sh \
	scripts/darknet-cli.sh docs/darknet.md
