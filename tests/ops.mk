# owned by one part of the tree; see Makefile.am
