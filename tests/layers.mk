# The layer rule, checked on the objects of the build (nm): see tests/layers.sh.
TESTS += tests/layers.sh
EXTRA_DIST += tests/layers.sh
