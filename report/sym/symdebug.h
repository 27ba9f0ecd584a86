/* Where the report's symboliser finds a module's separate debug file (report/sym/symdebug.c). */
#ifndef TPROF_REPORT_SYM_SYMDEBUG_H
#define TPROF_REPORT_SYM_SYMDEBUG_H

#include "report/sym/sym.h"

/* TPROF_DEBUGINFOD=1 of the process recorded (tp_sym_open sets it) */
extern int tp_sym_debuginfod;

/* Dwfl_Callbacks.find_debuginfo: this machine's /usr/lib/debug/.build-id and .gnu_debuglink
 * places, then the DEBUGINFOD_URLS servers with TPROF_DEBUGINFOD=1 only. */
int tp_sym_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, GElf_Addr base,
                          const char *file_name, const char *debuglink_file,
                          GElf_Word debuglink_crc, char **debuginfo_file_name);

#endif
