/* The tprof CLI: one source file per subcommand (cli/cmd_<name>.c), dispatched by cli/tprof.c.
 * Each returns the process exit status: 0 success, 1 a failed run or a difference found where the
 * subcommand says so, 2 bad usage or bad input (with one line on stderr naming the problem). */
#ifndef TPROF_CLI_H
#define TPROF_CLI_H

#include <stddef.h>

int tp_cmd_run(int argc, char **argv);
int tp_cmd_report(int argc, char **argv);
int tp_cmd_diff(int argc, char **argv);
int tp_cmd_merge(int argc, char **argv);
int tp_cmd_calibrate(int argc, char **argv);

/* Absolute path of libtprof.so for `tprof run`: $TPROF_LIB, else next to this executable in the
 * build tree (.libs/), else ../lib/ relative to it, else the configured $libdir. NULL if none
 * exists (then err names what was tried). */
const char *tp_find_library(char *err, size_t errlen);

/* Before `tprof run` execs `file` (resolved through PATH as execvp does): one line on stderr when
 * the dynamic loader will not preload libtprof.so into it (statically linked; set-uid or set-gid
 * to another user or group), so that it runs without a report (cli/runcheck.c). */
void tp_run_check_program(const char *file);

/* s as a message shows it: escaped once (common/out/escape.c), in one of four rotating buffers, so
 * that up to four values can be shown in one fprintf. For the CLI's messages that echo an
 * argument or a path; not for text that is already escaped (json_read's errors). */
const char *tp_cli_shown(const char *s);

#endif
