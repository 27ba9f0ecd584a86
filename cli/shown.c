/* Arguments and paths as the CLI's messages show them (cli/cli.h). */
#include "cli/cli.h"
#include "common/out/out.h"

/* A few values shown at once in one message: rotating buffers, enough for one fprintf. */
const char *tp_cli_shown(const char *s)
{
    static char shown[4][1024];
    static unsigned next;
    char *out = shown[next++ % 4];
    return tp_escape_str(out, sizeof shown[0], s);
}
