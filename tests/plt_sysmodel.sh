#!/bin/sh
# A library the program calls for its model is an op with no settings wherever it is installed
# (tests/victims/v_sysmodel.c, libtpmodel.c): under <root>/usr/lib/x86_64-linux-gnu, a system
# library directory as a chroot or an unpacked package has it (tprof once took no op from such a
# directory). The program's calls: model_forward 7 times, model_update 5 times; the library's
# calls into its own export model_dot (it is one the program links itself): 7; its call into
# another system library (libtpmhelp.so's mhelp_scale): not an op, as Qt's into libGLdispatch.
# libtpvec.so's vec_fill is an op, and the standard library's template instantiation it calls
# through its own PLT is not ("void std::vector<float>::_M_realloc_insert(__gnu_cxx::
# __normal_iterator...)" matched *norm*, the return type hiding its std::).
# (tests/plt_fann.sh: the same with Debian's libfann.)
. "$TS/lib.sh"
lib="$WORK/root/usr/lib/x86_64-linux-gnu"
mkdir -p "$lib"
cp "$TB/victims/libtpmodel.so" "$TB/victims/libtpmhelp.so" "$TB/victims/libtpvec.so" "$lib/" || fail "no libraries"
V="$TB/victims/v_sysmodel"
native=$(LD_LIBRARY_PATH="$lib" "$V") || fail "native run failed"
out=$(tp LD_LIBRARY_PATH="$lib" TPROF_JSON="$WORK/r.json" LD_PRELOAD="$TPROF_SO" "$V") ||
  fail "victim failed: $?"
[ "$out" = "$native" ] || fail "stdout changed: $out vs $native"
jcheck "$WORK/r.json" "ops['model_forward']['calls'] == 7" "ops['model_update']['calls'] == 5" \
  "ops['model_dot']['calls'] == 7" "'mhelp_scale' not in ops" "ops['vec_fill']['calls'] == 1" \
  "not any('std::' in o.split('(')[0] for o in ops)"

exit 0
