/* Unit tests of the shared core: configuration parsing, path templates, op patterns, the
 * growable buffer and the merging of call sites. Never run under LD_PRELOAD. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/config.h"
#include "common/out/out.h"
#include "common/out/namewalk.h"
#include "report/report.h"

static const char *env_names[8], *env_vals[8];
static int env_n;
static const char *fake_get(const char *name)
{
    for (int i = 0; i < env_n; i++)
        if (!strcmp(name, env_names[i]))
            return env_vals[i];
    return NULL;
}
static char warned[4096];
static void fake_warn(const char *line)
{
    strncat(warned, line, sizeof warned - strlen(warned) - 1);
}
static void set_env(int n, const char **names, const char **vals)
{
    env_n = n;
    for (int i = 0; i < n; i++) {
        env_names[i] = names[i];
        env_vals[i] = vals[i];
    }
    warned[0] = 0;
}

START_TEST(test_config_defaults)
{
    struct tp_config c;
    set_env(0, NULL, NULL);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 0);
    ck_assert_str_eq(c.output, "stderr");
    ck_assert_int_eq(c.stack, 8);
    ck_assert_int_eq(c.warmup, 1);
    ck_assert_int_eq(c.top, 10);
    ck_assert_ptr_null(c.json);
    ck_assert_str_eq(c.ops, TP_DEFAULT_OPS);
    ck_assert_int_eq(c.sched_active, -1);
    ck_assert_int_eq(c.disable, 0);
    tp_config_free(&c);
}
END_TEST

START_TEST(test_config_values)
{
    struct tp_config c;
    const char *n[] = {"TPROF_STACK",       "TPROF_JSON",      "TPROF_SCHEDULE", "TPROF_SIGNAL",
                       "TPROF_PEAK_GFLOPS", "TPROF_TRACE_MAX", "TPROF_DISABLE",  "TPROF_OPS"};
    const char *v[] = {"16", "/tmp/r-%p.json", "2:3:5", "SIGUSR2", "123.5", "8M",
                       "1",  "mm*,!mm_tiny"};
    set_env(8, n, v);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 0);
    ck_assert_int_eq(c.stack, 16);
    ck_assert_str_eq(c.json, "/tmp/r-%p.json");
    ck_assert_int_eq(c.sched_wait, 2);
    ck_assert_int_eq(c.sched_warmup, 3);
    ck_assert_int_eq(c.sched_active, 5);
    ck_assert_int_eq(c.signal, 12);
    ck_assert(c.peak_gflops == 123.5);
    ck_assert_uint_eq(c.trace_max, 8u << 20);
    ck_assert_int_eq(c.disable, 1);
    ck_assert_str_eq(c.ops, "mm*,!mm_tiny");
    tp_config_free(&c);
}
END_TEST

START_TEST(test_config_malformed)
{
    struct tp_config c;
    const char *n[] = {"TPROF_STACK",     "TPROF_SCHEDULE",  "TPROF_SIGNAL",  "TPROF_TOP",
                       "TPROF_PEAK_GBPS", "TPROF_TRACE_MAX", "TPROF_DISABLE", "TPROF_OUTPUT"};
    const char *v[] = {"99", "1:2", "KILL", "", "-4", "12Q", "maybe", "a\001b"};
    set_env(8, n, v);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 8);
    ck_assert_int_eq(c.stack, 8);
    ck_assert_int_eq(c.sched_active, -1);
    ck_assert_int_eq(c.signal, 0);
    ck_assert_int_eq(c.top, 10);
    ck_assert(c.peak_gbps == 0);
    ck_assert_uint_eq(c.trace_max, 64u << 20);
    ck_assert_int_eq(c.disable, 0);
    ck_assert_str_eq(c.output, "stderr");
    ck_assert_ptr_nonnull(strstr(warned, "tprof: TPROF_STACK=99: out of range; using 8\n"));
    ck_assert_ptr_nonnull(strstr(warned, "tprof: TPROF_SCHEDULE=1:2: expected wait:warmup:active"));
    ck_assert_ptr_nonnull(strstr(warned, "tprof: TPROF_SIGNAL=KILL: unknown signal"));
    ck_assert_ptr_nonnull(strstr(warned, "tprof: TPROF_TOP=: empty value; using 10\n"));
    ck_assert_ptr_nonnull(strstr(warned, "tprof: TPROF_TRACE_MAX=12Q: unknown unit"));
    ck_assert_ptr_nonnull(strstr(
        warned,
        "tprof: TPROF_DISABLE=maybe: expected 0/1, yes/no, true/false or on/off; using 0\n"));
    ck_assert_ptr_nonnull(strstr(
        warned, "tprof: TPROF_OUTPUT=a\\x01b: contains a control character; using stderr\n"));
    tp_config_free(&c);
}
END_TEST

/* Every boolean takes the same spellings, in any case; anything else is one exact warning. */
START_TEST(test_config_bool)
{
    struct tp_config c;
    const char *n[] = {"TPROF_DISABLE", "TPROF_PLT"};
    const char *on[] = {"1", "yes", "YES", "true", "True", "on", "ON"};
    const char *off[] = {"0", "no", "No", "false", "FALSE", "off", "Off"};
    for (int i = 0; i < 7; i++) {
        const char *v[] = {on[i], off[i]};
        set_env(2, n, v);
        ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 0);
        ck_assert_int_eq(c.disable, 1);
        ck_assert_int_eq(c.plt, 0);
        tp_config_free(&c);
        const char *w[] = {off[i], on[i]};
        set_env(2, n, w);
        ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 0);
        ck_assert_int_eq(c.disable, 0);
        ck_assert_int_eq(c.plt, 1);
        tp_config_free(&c);
    }
    const char *bad[] = {"2", "y"};
    set_env(2, n, bad);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 2);
    ck_assert_int_eq(c.disable, 0);
    ck_assert_int_eq(c.plt, 1);
    ck_assert_str_eq(warned,
                     "tprof: TPROF_DISABLE=2: expected 0/1, yes/no, true/false or on/off; using 0\n"
                     "tprof: TPROF_PLT=y: expected 0/1, yes/no, true/false or on/off; using 1\n");
    tp_config_free(&c);
}
END_TEST

/* TPROF_DEMOTE: a factor, 0 (off) allowed, default 500. */
START_TEST(test_config_demote)
{
    struct tp_config c;
    const char *n[] = {"TPROF_DEMOTE"};
    set_env(0, NULL, NULL);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 0);
    ck_assert(c.demote == 500);
    tp_config_free(&c);
    const char *v[] = {"0"};
    set_env(1, n, v);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 0);
    ck_assert(c.demote == 0);
    tp_config_free(&c);
    const char *w[] = {"-1"};
    set_env(1, n, w);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 1);
    ck_assert(c.demote == 500);
    ck_assert_str_eq(warned, "tprof: TPROF_DEMOTE=-1: out of range; using 500\n");
    tp_config_free(&c);
}
END_TEST

/* TPROF_PLT and TPROF_HOOK_NS are read by the same parser as every other variable. */
START_TEST(test_config_plt_hook_ns)
{
    struct tp_config c;
    const char *n[] = {"TPROF_PLT", "TPROF_HOOK_NS"};
    set_env(0, NULL, NULL);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 0);
    ck_assert_int_eq(c.plt, 1);
    ck_assert(c.hook_ns == -1);
    tp_config_free(&c);
    const char *v[] = {"0", "12.5"};
    set_env(2, n, v);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 0);
    ck_assert_int_eq(c.plt, 0);
    ck_assert(c.hook_ns == 12.5);
    tp_config_free(&c);
    const char *w[] = {"", "abc"};
    set_env(2, n, w);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 2);
    ck_assert_int_eq(c.plt, 1);
    ck_assert(c.hook_ns == -1);
    ck_assert_str_eq(warned, "tprof: TPROF_PLT=: empty value; using 1\n"
                             "tprof: TPROF_HOOK_NS=abc: not a number; using the measured cost\n");
    tp_config_free(&c);
    const char *x[] = {"1", "1000001"};
    set_env(2, n, x);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 1);
    ck_assert_str_eq(warned,
                     "tprof: TPROF_HOOK_NS=1000001: out of range; using the measured cost\n");
    tp_config_free(&c);
}
END_TEST

/* Op lists that select nothing, or that fnmatch would read with an open bracket. */
START_TEST(test_config_ops)
{
    static const struct {
        const char *v, *why; /* why NULL: accepted */
    } cases[] = {
        {"[", "a [ in a pattern is not closed by ]"},
        {"mm*,conv[12", "a [ in a pattern is not closed by ]"},
        {"[]", "a [ in a pattern is not closed by ]"},
        {"[[:alpha:]", "a [ in a pattern is not closed by ]"},
        {"x[[:alpha:", "a [ in a pattern is not closed by ]"},
        {",,,", "no pattern selects a function (only commas, blanks or !exclusions)"},
        {" ,  , ", "no pattern selects a function (only commas, blanks or !exclusions)"},
        {"!make_*,!free_*", "no pattern selects a function (only commas, blanks or !exclusions)"},
        {"!,mm", NULL},
        {"conv[12]d", NULL},
        {"[]x]*", NULL},
        {"[![]*", NULL},
        {"[[:alpha:]]x", NULL},
        {"a\\[b", NULL},
        {",mm,", NULL},
    };
    const char *n[] = {"TPROF_OPS"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct tp_config c;
        char want[300];
        const char *v[] = {cases[i].v};
        set_env(1, n, v);
        int nw = tp_config_load(&c, fake_get, fake_warn);
        if (cases[i].why) {
            snprintf(want, sizeof want, "tprof: TPROF_OPS=%s: %s; using the default op list\n",
                     cases[i].v, cases[i].why);
            ck_assert_msg(nw == 1, "%s: %d warnings", cases[i].v, nw);
            ck_assert_str_eq(warned, want);
            ck_assert_str_eq(c.ops, TP_DEFAULT_OPS);
        } else {
            ck_assert_msg(nw == 0, "%s: %s", cases[i].v, warned);
            ck_assert_str_eq(c.ops, cases[i].v);
        }
        tp_config_free(&c);
    }
}
END_TEST

/* Output paths are checked before the program runs; a bad one falls back to its default. */
START_TEST(test_config_outputs)
{
    struct tp_config c;
    char dir[] = "/tmp/tprof-check-XXXXXX", json[64], folded[80];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(json, sizeof json, "%s/r-%%p.json", dir);
    snprintf(folded, sizeof folded, "%s/none/x.folded", dir);
    struct tp_path_ctx ctx = {77, 0, "h", 1, 0, 0};
    const char *n[] = {"TPROF_OUTPUT", "TPROF_JSON", "TPROF_TRACE", "TPROF_FOLDED"};
    const char *v[] = {"/nonexistent/dir/x.txt", json, "/tmp/x%q", folded};
    set_env(4, n, v);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 0);
    ck_assert_int_eq(tp_config_check_outputs(&c, &ctx, fake_warn), 3);
    char want[1024];
    snprintf(
        want, sizeof want,
        "tprof: TPROF_OUTPUT=/nonexistent/dir/x.txt: directory /nonexistent/dir: No such file or "
        "directory; using stderr\n"
        "tprof: TPROF_TRACE=/tmp/x%%q: unknown %%-sequence '%%q' (use %%p, %%r, %%h or %%%%); "
        "using none (no trace)\n"
        "tprof: TPROF_FOLDED=%s: directory %s/none: No such file or directory; using none (no "
        "folded stacks)\n",
        folded, dir);
    ck_assert_str_eq(warned, want);
    ck_assert_str_eq(c.output, "stderr");
    ck_assert_str_eq(c.json, json); /* its directory exists */
    ck_assert_ptr_null(c.trace);
    ck_assert_ptr_null(c.folded);
    tp_config_free(&c);
    /* TPROF_DISABLE: nothing runs, nothing is checked */
    const char *m[] = {"TPROF_DISABLE", "TPROF_JSON"};
    const char *w[] = {"1", "/nonexistent/x.json"};
    set_env(2, m, w);
    ck_assert_int_eq(tp_config_load(&c, fake_get, fake_warn), 0);
    ck_assert_int_eq(tp_config_check_outputs(&c, &ctx, fake_warn), 0);
    tp_config_free(&c);
    rmdir(dir);
}
END_TEST

/* The writer: links kept, devices and descriptors in place, names of streams without suffixes. */
START_TEST(test_fileio)
{
    char dir[] = "/tmp/tprof-check-XXXXXX", p[128], q[128], buf[64], why[256];
    const char *reason;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/real", dir);
    snprintf(q, sizeof q, "%s/link", dir);
    ck_assert_int_eq(symlink("real", q), 0);
    ck_assert_int_eq(tp_write_file(q, "abc\n", 4, &reason), 0); /* a dangling link: creates real */
    ck_assert_int_eq(tp_write_file(q, "hello\n", 6, &reason), 0);
    struct stat st;
    ck_assert_int_eq(lstat(q, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    int fd = open(p, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(read(fd, buf, sizeof buf), 6);
    close(fd);
    ck_assert_int_eq(memcmp(buf, "hello\n", 6), 0);
    ck_assert_int_eq(tp_file_is_stream(q), 0);
    ck_assert_int_eq(tp_file_is_stream("/dev/null"), 1);
    ck_assert_int_eq(tp_file_is_stream("/dev/stderr"), 1);
    ck_assert_int_eq(tp_file_is_stream(dir), 1); /* a directory is not replaced either... */
    ck_assert_int_eq(tp_write_file(dir, "x", 1, &reason), -1); /* ...nor written */
    ck_assert_str_eq(reason, "Is a directory");
    /* a child or an exec'd image writing to a device keeps the device's name */
    struct tp_path_ctx ctx = {77, 0, "h", 1, 2, 3};
    ck_assert_int_eq(tp_output_path("/dev/null", &ctx, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "/dev/null");
    ck_assert_int_eq(tp_output_path("/dev/fd/2", &ctx, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "/dev/fd/2");
    ck_assert_int_eq(tp_output_path("/tmp/r.json", &ctx, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "/tmp/r.77.exec2.sig3.json");
    ctx.image = "sh";
    ctx.sig_seq = 0;
    ck_assert_int_eq(tp_output_path("/dev/fd/2", &ctx, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "/dev/fd/2");
    ck_assert_int_eq(tp_output_path("/tmp/r.json", &ctx, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "/tmp/r.77.sh.json");
    /* the checks before the run */
    ck_assert_int_eq(tp_check_output(q, why, sizeof why), 0);
    ck_assert_int_eq(tp_check_output("/dev/null", why, sizeof why), 0);
    ck_assert_int_eq(tp_check_output("/dev/fd/999", why, sizeof why), -1);
    ck_assert_str_eq(why, "file descriptor 999 is not open");
    fd = open(p, O_RDONLY);
    snprintf(q, sizeof q, "/proc/self/fd/%d", fd);
    ck_assert_int_eq(tp_check_output(q, why, sizeof why), -1);
    snprintf(p, sizeof p, "file descriptor %d is not open for writing", fd);
    ck_assert_str_eq(why, p);
    close(fd);
    snprintf(p, sizeof p, "%s/real/x", dir);
    ck_assert_int_eq(tp_check_output(p, why, sizeof why), -1);
    snprintf(q, sizeof q, "%s/real is not a directory", dir);
    ck_assert_str_eq(why, q);
    snprintf(p, sizeof p, "%s/real", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/link", dir);
    unlink(p);
    rmdir(dir);
}
END_TEST

/* The walk of a report name: components, "..", link chains resolved from each link's directory,
 * descriptor names behind links, loops; another user's link in a sticky world-writable
 * directory refused, the same link in a plain directory followed (as root only: the link must
 * belong to someone else). */
START_TEST(test_namewalk)
{
    char dir[] = "/tmp/tprof-walk-XXXXXX", p[256], want[256];
    struct tp_target t;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(p, sizeof p, "%s/sub", dir);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/sub/l1", dir);
    ck_assert_int_eq(symlink("l2", p), 0);
    snprintf(p, sizeof p, "%s/sub/l2", dir);
    ck_assert_int_eq(symlink("../real.json", p), 0);
    snprintf(p, sizeof p, "%s/dl", dir);
    ck_assert_int_eq(symlink("sub", p), 0);
    snprintf(p, sizeof p, "%s/err", dir);
    ck_assert_int_eq(symlink("/dev/stderr", p), 0);
    snprintf(p, sizeof p, "%s/loop", dir);
    ck_assert_int_eq(symlink("loop", p), 0);

    snprintf(p, sizeof p, "%s/sub/l1", dir); /* a chain, each link relative to its directory */
    ck_assert_int_eq(tp_name_walk(p, &t), 0);
    snprintf(want, sizeof want, "%s/real.json", dir);
    ck_assert_str_eq(t.path, want);
    ck_assert_int_eq(t.kind, TP_T_FILE);
    ck_assert_int_eq(t.exists, 0);
    snprintf(p, sizeof p, "%s/dl/./x/../new.json", dir); /* a link to a directory, then ".." */
    ck_assert_int_eq(tp_name_walk(p, &t), 0);
    snprintf(want, sizeof want, "%s/sub/new.json", dir);
    ck_assert_str_eq(t.path, want);
    snprintf(p, sizeof p, "%s//err", dir);
    ck_assert_int_eq(tp_name_walk(p, &t), 0);
    ck_assert_int_eq(t.kind, TP_T_FD);
    ck_assert_int_eq(t.fd, 2);
    snprintf(p, sizeof p, "%s/loop", dir);
    ck_assert_int_eq(tp_name_walk(p, &t), -1);
    ck_assert_int_eq(errno, ELOOP);
    ck_assert_int_eq(tp_name_walk("/", &t), 0);
    ck_assert_str_eq(t.path, "/");
    ck_assert_int_eq(t.kind, TP_T_INPLACE);
    char cwd[256];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(dir), 0);
    ck_assert_int_eq(tp_name_walk("sub/../dl/l1", &t), 0); /* relative all the way */
    ck_assert_str_eq(t.path, "real.json");
    ck_assert_int_eq(tp_name_walk("../x/../y", &t), 0);
    ck_assert_str_eq(t.path, "../y");
    ck_assert_int_eq(chdir(cwd), 0);

    if (geteuid() == 0) {
        snprintf(p, sizeof p, "%s/shared", dir);
        ck_assert_int_eq(mkdir(p, 0777), 0);
        ck_assert_int_eq(chmod(p, 01777), 0);
        snprintf(p, sizeof p, "%s/shared/planted", dir);
        ck_assert_int_eq(symlink("/etc/passwd", p), 0);
        ck_assert_int_eq(lchown(p, 65534, 65534), 0);
        ck_assert_int_eq(tp_name_walk(p, &t), -1);
        ck_assert_int_eq(errno, EACCES);
        ck_assert_str_eq(t.why, "a symbolic link on the way is another user's, in a sticky "
                                "world-writable directory: not followed");
        snprintf(want, sizeof want, "%s/shared", dir);
        ck_assert_int_eq(chown(want, 65534, 65534), 0); /* the directory's owner's link */
        ck_assert_int_eq(tp_name_walk(p, &t), 0);
        ck_assert_str_eq(t.path, "/etc/passwd");
        ck_assert_int_eq(chown(want, 0, 0), 0);
        ck_assert_int_eq(chmod(want, 0777), 0); /* not sticky */
        ck_assert_int_eq(tp_name_walk(p, &t), 0);
        unlink(p);
        rmdir(want);
    }
    const char *names[] = {"sub/l1", "sub/l2", "dl", "err", "loop"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/sub", dir);
    rmdir(p);
    rmdir(dir);
}
END_TEST

START_TEST(test_parsers)
{
    const char *why;
    uint64_t u;
    int a, b, s;
    ck_assert_int_eq(tp_parse_size("1G", &u, &why), 0);
    ck_assert_uint_eq(u, 1ull << 30);
    ck_assert_int_eq(tp_parse_size("64KiB", &u, &why), 0);
    ck_assert_uint_eq(u, 64 << 10);
    ck_assert_int_eq(tp_parse_size("99999999999999999999G", &u, &why), -1);
    /* blanks, then a minus sign: strtoull would wrap it to 16 */
    ck_assert_int_eq(tp_parse_u64(" -18446744073709551600", 0, 100, &u, &why), -1);
    ck_assert_int_eq(tp_parse_size(" -18446744073709551600", &u, &why), -1);
    ck_assert_int_eq(tp_parse_schedule("0:0:1", &a, &b, &s, &why), 0);
    ck_assert_int_eq(tp_parse_schedule("1:1:0", &a, &b, &s, &why), -1);
    ck_assert_int_eq(tp_parse_schedule("1:1:1:1", &a, &b, &s, &why), -1);
    ck_assert_int_eq(tp_parse_signal("usr1", &s, &why), 0);
    ck_assert_int_eq(tp_parse_signal("9", &s, &why), -1);
}
END_TEST

START_TEST(test_ops_match)
{
    ck_assert(tp_ops_match(TP_DEFAULT_OPS, "cblas_sgemm"));
    ck_assert(tp_ops_match(TP_DEFAULT_OPS, "Conv2D_Forward"));
    ck_assert(tp_ops_match(TP_DEFAULT_OPS, "layernorm_forward"));
    ck_assert(!tp_ops_match(TP_DEFAULT_OPS, "main"));
    ck_assert(!tp_ops_match(TP_DEFAULT_OPS, "rand_float"));
    /* set-up is not an op, whatever its name holds */
    ck_assert(!tp_ops_match(TP_DEFAULT_OPS, "make_convolutional_layer"));
    ck_assert(!tp_ops_match(TP_DEFAULT_OPS, "rand_normal"));
    ck_assert(!tp_ops_match(TP_DEFAULT_OPS, "conv_init_weights"));
    ck_assert(tp_ops_match(TP_DEFAULT_OPS, "forward_convolutional_layer"));
    ck_assert(tp_ops_match("mm*, attn", "attn"));
    ck_assert(!tp_ops_match("mm*,!mm_tiny", "mm_tiny"));
    ck_assert(tp_ops_match("mm*,!mm_tiny", "mm_big"));
    ck_assert(!tp_ops_match("", "x"));
    ck_assert(!tp_ops_match("x", ""));
    /* the substring and prefix fast paths against the general match: case, position, the
     * bare "*", a name that is not ASCII or is longer than the lower-case copy */
    ck_assert(tp_ops_match("*GeMM*", "CBLAS_SGEMM"));
    ck_assert(tp_ops_match("*gemm*", "gemm"));
    ck_assert(!tp_ops_match("*gemm*", "gem_m"));
    ck_assert(tp_ops_match("MM*", "mm"));
    ck_assert(!tp_ops_match("mm*", "xmm"));
    ck_assert(tp_ops_match("*", "anything"));
    ck_assert(!tp_ops_match("*,!Make_*", "MAKE_layer"));
    ck_assert(tp_ops_match("*conv*", "conv_\xc3\xa9"));
    ck_assert(!tp_ops_match("*conv*", "co_\xc3\xa9"));
    ck_assert(tp_ops_match("*a?c*", "xabcx"));
    char big[700];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    memcpy(big + 600, "Gemm", 4);
    ck_assert(tp_ops_match("*gemm*", big));
    ck_assert(!tp_ops_match("*conv*", big));
    /* lists too long to keep split (over 1,024 characters, over 64 entries): entry by entry */
    char list[2000] = "";
    for (int i = 0; i < 90; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "*w%02d_padding*,", i);
    strcat(list, "!*w89x*, Tail*");
    ck_assert_uint_gt(strlen(list), 1024);
    ck_assert(tp_ops_match(list, "a_w77_PADDING_b"));
    ck_assert(tp_ops_match(list, "tAIL_x"));
    ck_assert(!tp_ops_match(list, "w89_padding_w89x"));
    ck_assert(!tp_ops_match(list, "w77_paddin"));
    /* an entry of 256 characters or more matches nothing; the others still do */
    char name[400];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = 0;
    memset(big, 'a', sizeof big - 1);
    memcpy(big, "*q*,*", 5);
    big[sizeof big - 2] = '*';
    ck_assert(!tp_ops_match(big, name));
    ck_assert(tp_ops_match(big, "q"));
    ck_assert(tp_ops_match("*a*", name));
    ck_assert(!tp_ops_match(" !x*", "xy")); /* "!" only first: a literal here */
    ck_assert(!tp_ops_match("*,!x*", "xy"));
}
END_TEST

START_TEST(test_path_expand)
{
    char out[256];
    struct tp_path_ctx c = {1234, 3, "node7", 0, 0, 0};
    ck_assert_int_eq(tp_path_expand("r-%p-%r-%h.json", &c, out, sizeof out), 0);
    ck_assert_str_eq(out, "r-1234-3-node7.json");
    c.add_pid = 1;
    ck_assert_int_eq(tp_path_expand("/tmp/a.b/run.json", &c, out, sizeof out), 0);
    ck_assert_str_eq(out, "/tmp/a.b/run.1234.json");
    ck_assert_int_eq(tp_path_expand("/tmp/a.b/run", &c, out, sizeof out), 0);
    ck_assert_str_eq(out, "/tmp/a.b/run.1234");
    ck_assert_int_eq(tp_path_expand("r-%p.json", &c, out, sizeof out), 0);
    ck_assert_str_eq(out, "r-1234.json");
    /* the plain name is the last image's: one that came by exec keeps it */
    c.add_pid = 0;
    c.image_seq = 2;
    ck_assert_int_eq(tp_path_expand("r.json", &c, out, sizeof out), 0);
    ck_assert_str_eq(out, "r.json");
    ck_assert_int_eq(tp_path_expand("r%%.json", &c, out, sizeof out), 0);
    ck_assert_str_eq(out, "r%.json");
    c.sig_seq = 4;
    ck_assert_int_eq(tp_path_expand("r.json", &c, out, sizeof out), 0);
    ck_assert_str_eq(out, "r.exec2.sig4.json");
    c.sig_seq = 0;
    /* the report of an image as it execs another is named by that image */
    c.image = "env";
    ck_assert_int_eq(tp_path_expand("r.json", &c, out, sizeof out), 0);
    ck_assert_str_eq(out, "r.env.json");
    c.add_pid = 1;
    ck_assert_int_eq(tp_path_expand("/tmp/a.b/run", &c, out, sizeof out), 0);
    ck_assert_str_eq(out, "/tmp/a.b/run.1234.env");
    ck_assert_int_eq(tp_path_expand("r-%p.json", &c, out, sizeof out), 0);
    ck_assert_str_eq(out, "r-1234.env.json");
    c.add_pid = 0;
    c.image = NULL;
    ck_assert_int_eq(tp_path_expand("r%x.json", &c, out, sizeof out), -1);
    ck_assert_int_eq(tp_path_expand("abcdefghij", &c, out, 8), -1);
}
END_TEST

static const char *get_rank(const char *n)
{
    return !strcmp(n, "PMI_RANK") ? "5" : NULL;
}

START_TEST(test_rank)
{
    ck_assert_int_eq(tp_mpi_rank(get_rank), 5);
    ck_assert_int_eq(tp_mpi_rank(fake_get), 0);
}
END_TEST

START_TEST(test_buf)
{
    struct tp_buf b;
    tp_buf_init(&b);
    ck_assert_str_eq(tp_buf_str(&b), "");
    for (int i = 0; i < 1000; i++)
        tp_buf_printf(&b, "%04d,", i);
    ck_assert_uint_eq(b.len, 5000);
    ck_assert(strncmp(tp_buf_str(&b) + 4995, "0999,", 5) == 0);
    char big[600];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    tp_buf_printf(&b, "%s", big);
    ck_assert_uint_eq(b.len, 5599);
    ck_assert(tp_buf_ok(&b));
    tp_buf_free(&b);
}
END_TEST

/* Values in messages are escaped once: control characters, C1 controls and bidirectional
 * overrides as \xNN, bytes of no UTF-8 character as \xNN, backslash as \\; valid UTF-8 kept; cut
 * before an escape that does not fit. */
START_TEST(test_escape)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"plain /path/x.json", "plain /path/x.json"},
        {"a\033[2Jb\n\t\x7f", "a\\x1b[2Jb\\x0a\\x09\\x7f"},
        {"back\\slash \\x1b", "back\\\\slash \\\\x1b"},
        {"caf\xc3\xa9 \xf0\x9f\x98\x80", "caf\xc3\xa9 \xf0\x9f\x98\x80"}, /* é, U+1F600 */
        {"\xc2\x9b"
         "2J",
         "\\xc2\\x9b2J"},                             /* C1 CSI */
        {"x\xe2\x80\xaey", "x\\xe2\\x80\\xaey"},      /* U+202E */
        {"\xff\xfe", "\\xff\\xfe"},                   /* never UTF-8 */
        {"\xc0\x80", "\\xc0\\x80"},                   /* overlong NUL */
        {"\xed\xa0\x80", "\\xed\\xa0\\x80"},          /* a surrogate */
        {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"}, /* past U+10FFFF */
        {"\xe2\x82", "\\xe2\\x82"},                   /* cut short */
    };
    char out[128];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = tp_escape(out, sizeof out, cases[i].in, strlen(cases[i].in));
        ck_assert_msg(!strcmp(out, cases[i].out), "case %zu: %s", i, out);
        ck_assert_uint_eq(n, strlen(cases[i].out));
    }
    /* 7 bytes of room: "ab" and one whole escape, not part of the next */
    ck_assert_uint_eq(tp_escape(out, 7, "ab\033\033", 4), 6);
    ck_assert_str_eq(out, "ab\\x1b");
    ck_assert_uint_eq(tp_escape(out, 6, "ab\033\033", 4), 2);
    ck_assert_str_eq(out, "ab");
    ck_assert_str_eq(tp_escape_str(out, sizeof out, NULL), "(null)");
}
END_TEST

static struct tp_site mk(const char *fn, int line, uint64_t allocs, uint64_t peak, uint64_t at_peak)
{
    struct tp_site s = {0};
    s.frames = calloc(1, sizeof *s.frames);
    s.frames[0].function = strdup(fn);
    s.frames[0].file = strdup("a.c");
    s.frames[0].line = line;
    s.nframes = 1;
    s.allocs = allocs;
    s.bytes = allocs * 10;
    s.peak_live_bytes = peak;
    s.live_at_peak_bytes = at_peak;
    return s;
}

START_TEST(test_sites_merge)
{
    struct tp_site s[4] = {mk("f", 3, 1, 100, 50), mk("g", 3, 2, 10, 0), mk("f", 3, 4, 700, 20),
                           mk("f", 4, 1, 5, 5)};
    size_t n = tp_sites_merge_same_lines(s, 4, 750);
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(s[0].frames[0].function, "f");
    ck_assert_uint_eq(s[0].allocs, 5);
    ck_assert_uint_eq(s[0].bytes, 50);
    ck_assert_uint_eq(s[0].live_at_peak_bytes, 70);
    ck_assert_uint_eq(s[0].peak_live_bytes, 750); /* 800, capped at the global peak */
    ck_assert_str_eq(s[1].frames[0].function, "g");
    ck_assert_int_eq(s[2].frames[0].line, 4);
    for (size_t i = 0; i < n; i++)
        tp_site_free_frames(&s[i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, test_config_defaults);
    tcase_add_test(tc, test_config_values);
    tcase_add_test(tc, test_config_malformed);
    tcase_add_test(tc, test_config_bool);
    tcase_add_test(tc, test_config_plt_hook_ns);
    tcase_add_test(tc, test_config_demote);
    tcase_add_test(tc, test_config_ops);
    tcase_add_test(tc, test_config_outputs);
    tcase_add_test(tc, test_fileio);
    tcase_add_test(tc, test_namewalk);
    tcase_add_test(tc, test_parsers);
    tcase_add_test(tc, test_ops_match);
    suite_add_tcase(s, tc);
    tc = tcase_create("paths");
    tcase_add_test(tc, test_path_expand);
    tcase_add_test(tc, test_rank);
    suite_add_tcase(s, tc);
    tc = tcase_create("model");
    tcase_add_test(tc, test_buf);
    tcase_add_test(tc, test_escape);
    tcase_add_test(tc, test_sites_merge);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
