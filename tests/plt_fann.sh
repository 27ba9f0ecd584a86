#!/bin/sh
# Debian's libfann, a numeric library in /usr/lib/x86_64-linux-gnu whose run function is the
# model's, gives ops with no settings (tprof once took none from a system library directory): a
# program linked to it trains 6 times and runs 4; fann_run (10: fann_train calls it too) and
# fann_train (the program's calls) and fann_update_MSE and fann_backpropagate_MSE (libfann's
# calls into its own exports: the program links it) are ops, with their exact counts. The
# network it allocates inside those ops is the program's, not [lib]: the stack walk goes on
# through the hooked calls into main (it once stopped at the op, all frames in /usr/lib).
. "$TS/lib.sh"
[ -e /usr/include/doublefann.h ] && command -v cc >/dev/null 2>&1 ||
  { echo "SKIP: Debian's libfann-dev is not installed"; exit 77; }
cat > "$WORK/fann.c" <<'C'
#include <doublefann.h>
#include <stdio.h>
int main(void)
{
    struct fann *ann = fann_create_standard(3, 2, 4, 1);
    fann_type in[2] = {1, 0}, out[1] = {1}, s = 0;
    fann_set_training_algorithm(ann, FANN_TRAIN_INCREMENTAL);
    for (int i = 0; i < 6; i++)
        fann_train(ann, in, out);
    for (int i = 0; i < 4; i++)
        s += fann_run(ann, in)[0];
    printf("%d\n", s > 0);
    fann_destroy(ann);
    return 0;
}
C
cc -o "$WORK/fann" "$WORK/fann.c" -ldoublefann -lm || fail "cannot build against libdoublefann"
native=$("$WORK/fann") || fail "fann native run failed"
out=$(tp TPROF_JSON="$WORK/f.json" LD_PRELOAD="$TPROF_SO" "$WORK/fann") || fail "fann failed: $?"
[ "$out" = "$native" ] || fail "fann stdout changed: $out vs $native"
jcheck "$WORK/f.json" "ops['fann_run']['calls'] == 4 + 6" "ops['fann_train']['calls'] == 6" \
  "ops['fann_update_MSE']['calls'] == 6" "ops['fann_backpropagate_MSE']['calls'] == 6" \
  "[s['system'] for s in m['sites'] if s['frames'][0].get('function') == 'fann_allocate_neurons'] == [False] * site('fann_allocate_neurons')['count']" \
  "all([f.get('function') for f in s['frames'][1:4]] == ['fann_create_sparse_array', 'fann_create_standard', 'main'] for s in m['sites'] if s['frames'][0].get('function') == 'fann_allocate_neurons')"
exit 0
