/* Parsers of the kernel's per-thread scheduler figures (common/procstat.c), as text already read
 * from /proc or /sys: pure functions, so that the report code and the tests share them and a
 * kernel's odd line is tested without that kernel. */
#ifndef TPROF_COMMON_PROCSTAT_H
#define TPROF_COMMON_PROCSTAT_H

#include <stdint.h>

/* /proc/<pid>/task/<tid>/schedstat: "<on-CPU ns> <run-queue wait ns> <timeslices>". 0, or -1
 * when the first two fields are not there (a kernel without schedstats has no such file). */
int tp_parse_schedstat(const char *s, uint64_t *run_ns, uint64_t *wait_ns);

/* voluntary_ctxt_switches and nonvoluntary_ctxt_switches of a /proc status file. 0 when both
 * were found, else -1 (what was found is still set). */
int tp_parse_ctxt(const char *s, uint64_t *nvcsw, uint64_t *nivcsw);

/* utime + stime (fields 14 and 15, clock ticks) and starttime (field 22, ticks since boot) of a
 * /proc stat line. The name in field 2 may hold spaces and ')': fields are counted from the last
 * ')'. 0, or -1 when the line is too short. */
int tp_parse_stat_times(const char *s, uint64_t *cpu_ticks, uint64_t *start_ticks);

/* A cgroup v2 cpu.max line, "max 100000" or "<quota> <period>": the CPUs it allows (quota /
 * period), 0 for no limit or a line that does not parse. */
double tp_parse_cpu_max(const char *s);

#endif
