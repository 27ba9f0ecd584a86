/* The machine's peaks in a report (track/out/collect_machine.h). */
#include "track/out/collect_machine.h"

#include <stdlib.h>
#include <string.h>

#include "report/peaks/peaks.h"
#include "track/out/out.h"
#include "track/runtime.h"

static TP_TLS int interim;

void tp_collect_interim_thread(void)
{
    interim = 1;
}

/* The machine's peaks. A quick measurement (report/peaks/peaks.h) costs a quarter of a second: only
 * when a roofline needs it (an op has FLOPs). Its arrays, 96 to 384 MiB, count in the peak RSS
 * the kernel keeps, across exec too: so only the report that ends the process measures, after it
 * read that peak; one before (snapshot, on signal, an image that execs) goes without. */
void tp_collect_machine(struct tp_report *r, const char *why)
{
    int need = 0;
    for (size_t i = 0; i < r->nops; i++)
        need |= r->ops[i].flops > 0;
    int last = !interim && (!why || strcmp(why, "exec") != 0);
    /* Once known, they stay for every later report (no cache read again at each snapshot). */
    static struct tp_machine known;
    if (need && known.source) {
        r->machine.peak_gflops = known.peak_gflops;
        r->machine.peak_gbps = known.peak_gbps;
        r->machine.source = strdup(known.source);
    } else {
        int rc = tp_peaks_resolve(&r->machine, tp_cfg.peak_gflops, tp_cfg.peak_gbps, need && last);
        if (need && rc == 0 && r->machine.source) {
            known = r->machine;
            known.source = strdup(r->machine.source);
        }
        if (need && rc < 0 && !last)
            tp_report_note(r,
                           "machine peaks not measured for this report: the quick measurement is "
                           "made by the report at the process's exit, so that its arrays never "
                           "count in a peak RSS a report gives (`tprof calibrate` caches them)");
    }
    char pnote[1400];
    tp_peaks_note(r->machine.source, pnote, sizeof pnote);
    if (pnote[0])
        tp_report_note(r, "%s", pnote);
}
