/* Snapshots must leave no trace in the figures. Each allocation of cb_alloc is made from a
 * callback of libgcc_s's _Unwind_Backtrace, so that its call site has frames in a library with
 * no debug information on this machine: symbolising it in a snapshot is what made libdw load
 * its network client (libdebuginfod, and with it libcurl and a TLS library), whose exit handler
 * later freed, in the program, what it had allocated in the snapshot. keep_alloc: 3 blocks of
 * 3000 bytes, one freed. Then it waits until the report at argv[1] has been written twice more
 * (two snapshots after its work; at most 60 s), and prints "frames N": cb_alloc's allocations,
 * all freed. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>

/* libgcc_s's, declared here: <unwind.h> may be libunwind's, which lacks it. */
struct _Unwind_Context;
typedef int (*trace_fn)(struct _Unwind_Context *, void *);
extern int _Unwind_Backtrace(trace_fn fn, void *arg);

static int frames;
static void *held[64];

void *cb_alloc(size_t n) { return malloc(n); }
void *keep_alloc(size_t n) { return malloc(n); }

static int on_frame(struct _Unwind_Context *ctx, void *arg)
{
    (void)ctx;
    (void)arg;
    if (frames < 64)
        held[frames++] = cb_alloc(100);
    return 0; /* _URC_NO_REASON: go on */
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    void *k1 = keep_alloc(3000), *k2 = keep_alloc(3000), *k3 = keep_alloc(3000);
    free(k2);
    _Unwind_Backtrace(on_frame, NULL);
    for (int i = 0; i < frames; i++)
        free(held[i]);
    struct stat st;
    ino_t seen = 0;
    int writes = 0;
    for (int ms = 0; writes < 3 && ms < 60000; ms += 10) {
        if (stat(argv[1], &st) == 0 && st.st_ino != seen) {
            seen = st.st_ino;
            writes++;
        }
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    printf("frames %d\n", frames);
    (void)k1;
    (void)k3;
    return writes == 3 ? 0 : 3;
}
