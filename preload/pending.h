#include "report.h"
int tp_peaks_resolve(struct tp_machine *m, double env_gflops, double env_gbps);
