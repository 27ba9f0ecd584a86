/* The test suite's word on how quiet the machine was, preloaded before libtprof.so
 * (LD_PRELOAD="libtpcalib.so libtprof.so") or into the tprof executable (`tprof calibrate`):
 * both call tprof_calib_oncpu(), when something defines it, as they judge a measurement of the
 * machine's peaks. The tests cannot make a machine quiet, so the ones that need a quiet (or a
 * given busy) measurement say what share of their CPUs the measuring threads had
 * (tests/calibrate.sh, tests/peaks_conditions.sh; tests/peaks_busy.sh measures a busy machine for
 * real, without this).
 *
 * TPCALIB_ONCPU: that share (1 quiet, 0.5 busy); unset or empty, the measurement stands. */
#include <stdlib.h>

double tprof_calib_oncpu(void)
{
    const char *t = getenv("TPCALIB_ONCPU");
    return t && *t ? strtod(t, NULL) : -1;
}
