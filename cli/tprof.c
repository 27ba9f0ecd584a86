/* tprof: the command-line front end. Subcommands live in cli/cmd_<name>.c. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *what;
} cmds[] = {
    {"run", tp_cmd_run, "profile a program: tprof run [options] -- cmd args..."},
    {"report", tp_cmd_report, "re-render a saved JSON report: tprof report run.json"},
    {"diff", tp_cmd_diff, "compare two reports: tprof diff before.json after.json"},
    {"merge", tp_cmd_merge, "merge reports of many processes: tprof merge r*.json -o all.json"},
    {"calibrate", tp_cmd_calibrate, "measure and cache this machine's peak GFLOP/s and GB/s"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: tprof <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].what);
    fprintf(f, "\n'tprof <command> --help' describes each command. tprof %s\n", TPROF_VERSION);
    fprintf(f, "Settings are TPROF_* environment variables (man libtprof), checked when the\n"
               "profile starts; booleans take 0/1, yes/no, true/false or on/off.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("tprof %s\n", TPROF_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        if (!strcmp(argv[1], cmds[i].name))
            return cmds[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "tprof: unknown command '%s' (try 'tprof --help')\n", tp_cli_shown(argv[1]));
    return 2;
}
