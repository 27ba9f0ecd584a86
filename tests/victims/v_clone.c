/* Children made by clone system calls that glibc's fork does not wrap (tests/proc_clone.sh). First
 * 5 blocks of 64 bytes from clone_alloc (kept), then, by argv[1]:
 *   raw N   N children of clone3 made through syscall() (no CLONE_VM, exit signal SIGCHLD, no
 *           stack of their own): child i allocates i + 1 blocks from clone_alloc and calls _exit;
 *   vfork   a child of vfork that calls _exit at once;
 *   asm     a child of clone3 made by this program's own syscall instruction, unseen by any
 *           wrapper: it allocates 3 blocks from clone_alloc and calls _exit.
 * The parent waits for each child and prints "<pid> <index>" for it ("asm" on an architecture
 * without the instruction here prints "noasm"). */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

void *clone_alloc(size_t n) { return malloc(n); }

static void *kept[64];

static void allocate(int n)
{
    for (int i = 0; i < n && i < 64; i++)
        kept[i] = clone_alloc(64);
}

static int reap(long pid, int index)
{
    int st;
    if (pid <= 0 || waitpid((pid_t)pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
        return 1;
    printf("%ld %d\n", pid, index);
    return 0;
}

/* clone3 by this program's own instruction: returns as fork does, 0 in the child. */
static long own_clone3(struct clone_args *a)
{
    long rc = -1;
#if defined(__x86_64__)
    __asm__ volatile("syscall"
                     : "=a"(rc)
                     : "0"((long)SYS_clone3), "D"(a), "S"(sizeof *a)
                     : "rcx", "r11", "memory");
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = SYS_clone3;
    register long x0 __asm__("x0") = (long)a;
    register long x1 __asm__("x1") = (long)sizeof *a;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
    rc = x0;
#else
    (void)a;
#endif
    return rc;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "raw";
    allocate(5);
    fflush(stdout);
    struct clone_args a;
    memset(&a, 0, sizeof a);
    a.exit_signal = SIGCHLD;
    if (!strcmp(mode, "raw")) {
        int n = argc > 2 ? atoi(argv[2]) : 20;
        for (int i = 0; i < n; i++) {
            long pid = syscall(SYS_clone3, &a, sizeof a);
            if (pid == 0) {
                allocate(i + 1);
                _exit(0);
            }
            if (reap(pid, i))
                return 1;
        }
    } else if (!strcmp(mode, "vfork")) {
        pid_t pid = vfork();
        if (pid == 0)
            _exit(0);
        return reap(pid, 0);
    } else if (!strcmp(mode, "asm")) {
#if defined(__x86_64__) || defined(__aarch64__)
        long pid = own_clone3(&a);
        if (pid == 0) {
            allocate(3);
            _exit(0);
        }
        return reap(pid, 0);
#else
        printf("noasm\n");
#endif
    }
    return 0;
}
