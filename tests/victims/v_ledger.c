/* The memory ledger's victim (tests/ledger.sh): each mode makes memory whose parts are known.
 *   file PATH   maps a 64 MiB file PATH (made here) and reads its first half, page by page,
 *               between two tprof_step() markers
 *   anon        maps 8 MiB and 4 MiB of anonymous memory from two call sites, touched whole
 *   retain      allocates 100 MiB in 64-byte blocks and frees them all: glibc keeps them
 *   threads     starts 4 threads that each touch 256 KiB of their stack; while they wait, frees
 *               a 2 MiB block (the ledger reads before a free of 1 MiB or more)
 *   cut         maps 16 MiB from one site and touches it; unmaps 4 MiB from its middle, grows the
 *               first 6 MiB to 8 MiB (mremap, may move) and touches it, gives back 1 MiB of the
 *               last part (madvise DONTNEED): 14 MiB mapped, 13 MiB resident at exit
 *   small       nothing: the code and data of the files loaded are most of its memory
 *   many        maps 16,400 anonymous pages one by one, more than tprof's table keeps
 * Each exits 0 (the report reads at exit too). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tprof.h"

#define MIB (1024 * 1024)

static volatile unsigned long sink;

static int file_mode(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0 || ftruncate(fd, 64 * MIB) != 0)
        return 1;
    char *p = mmap(NULL, 64 * MIB, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return 1;
    /* two steps (tprof.h's markers): the heap's lifetimes, and the file beside them */
    tprof_step();
    sink += (unsigned long)malloc(4096);
    for (size_t i = 0; i < 32 * MIB; i += 4096)
        sink += (unsigned char)p[i];
    tprof_step();
    return 0;
}

static char *anon_big(void)
{
    return mmap(NULL, 8 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static char *anon_small(void)
{
    return mmap(NULL, 4 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

static int anon_mode(void)
{
    char *a = anon_big(), *b = anon_small();
    if (a == MAP_FAILED || b == MAP_FAILED)
        return 1;
    memset(a, 1, 8 * MIB);
    memset(b, 1, 4 * MIB);
    return 0;
}

static int retain_mode(void)
{
    size_t n = 100 * MIB / 64;
    void **v = malloc(n * sizeof *v);
    if (!v)
        return 1;
    for (size_t i = 0; i < n; i++) {
        v[i] = malloc(64 - 8);
        memset(v[i], 1, 64 - 8);
    }
    /* every other block first, then the rest: freed memory glibc keeps in its bins */
    for (size_t i = 0; i < n; i += 2)
        free(v[i]);
    for (size_t i = 1; i < n; i += 2)
        free(v[i]);
    void *last = malloc(16); /* a block above them: the top cannot shrink */
    sink += (unsigned long)last;
    free(v);
    return 0;
}

static pthread_barrier_t touched, read_done;

static void *touch_stack(void *arg)
{
    volatile char buf[256 * 1024];
    memset((char *)buf, 1, sizeof buf);
    sink += buf[(unsigned long)arg];
    pthread_barrier_wait(&touched);
    pthread_barrier_wait(&read_done);
    return NULL;
}

static int threads_mode(void)
{
    pthread_t t[4];
    pthread_barrier_init(&touched, NULL, 5);
    pthread_barrier_init(&read_done, NULL, 5);
    for (long i = 0; i < 4; i++)
        if (pthread_create(&t[i], NULL, touch_stack, (void *)i) != 0)
            return 1;
    pthread_barrier_wait(&touched);
    char *p = malloc(2 * MIB);
    sink += (unsigned long)p;
    free(p);
    pthread_barrier_wait(&read_done);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    return 0;
}

static int many_mode(void)
{
    for (int i = 0; i < 16400; i++) {
        char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return 1;
        p[0] = 1;
    }
    return 0;
}

static int cut_mode(void)
{
    char *p = mmap(NULL, 16 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    memset(p, 1, 16 * MIB);
    if (munmap(p + 6 * MIB, 4 * MIB) != 0)
        return 1;
    char *q = mremap(p, 6 * MIB, 8 * MIB, MREMAP_MAYMOVE);
    if (q == MAP_FAILED)
        return 1;
    memset(q, 2, 8 * MIB);
    return madvise(p + 10 * MIB, 1 * MIB, MADV_DONTNEED) != 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rc = !strcmp(mode, "file") && argc > 2 ? file_mode(argv[2])
             : !strcmp(mode, "anon")           ? anon_mode()
             : !strcmp(mode, "retain")         ? retain_mode()
             : !strcmp(mode, "threads")        ? threads_mode()
             : !strcmp(mode, "cut")            ? cut_mode()
             : !strcmp(mode, "small")          ? 0
             : !strcmp(mode, "many")           ? many_mode()
                                               : 2;
    printf("%s %d\n", mode, rc);
    return rc;
}
