/* What this machine is and does: its CPU model, the files that keep its measurements, and the
 * parsers of the kernel's scheduler figures. The one header of common/machine/ for code outside
 * it. */
#ifndef TPROF_COMMON_MACHINE_MACHINE_H
#define TPROF_COMMON_MACHINE_MACHINE_H

#include <stddef.h>
#include <stdint.h>

/* What this machine is, for the figures measured on it: its CPU model and the files that keep
 * its measurements (common/machine/machine.c). Used by the recorder (the demotion line's cache,
 * track/ops/demote.c) and the reporter (the machine's peaks, report/peaks/). */
/* This host's cache file of a kind ("peaks", "hook"): $XDG_CACHE_HOME/tprof/<kind>-<host>
 * (XDG_CACHE_HOME only if absolute), else $HOME/.cache/tprof/<kind>-<host>. 0, or -1 when
 * neither variable helps. */
int tp_cache_file(const char *kind, char *out, size_t n);
/* The directories above a cache file, made if missing. 0 or -1 (errno set). */
int tp_cache_dirs(const char *path);

/* The CPU model: the CPUID brand string, else /proc/cpuinfo's; "" when unknown. No allocation:
 * the library calls it at exit. */
void tp_cpu_model(char *out, size_t n);

/* Parsers of the kernel's per-thread scheduler figures (common/machine/procstat.c), as text already read
 * from /proc or /sys: pure functions, so that the report code and the tests share them and a
 * kernel's odd line is tested without that kernel. */
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
