/* C++ exceptions through calls hooked at the PLT.
 *
 * A hooked call returns through tp_plt_return: its return address on the stack is swapped for
 * ours, the real one kept in the thread's side stack (shim_plt.c). An unwinder walking that stack
 * would find tp_plt_return, which is no caller of anything, and stop: the exception would reach
 * std::terminate. So every way into the unwinder that libstdc++ (or any language runtime) calls
 * through its PLT is wrapped: before unwinding starts or resumes, the real return addresses are
 * put back on the stack, and the unwinder sees the program's own frames. When a handler catches
 * the exception (__cxa_begin_catch, called by the handler itself), the hooked calls it unwound
 * end there, and the ones still running (outside the handler's frame) return through
 * tp_plt_return again.
 *
 * Each wrapper calls the real function as a normal call, never a tail jump it may not get:
 * unwinding starts at the wrapper's caller either way, through the wrapper's own unwind
 * information. An exception in flight while a handler of another runs (a destructor that throws
 * and catches during unwinding) is safe: the outer unwinding resumes through _Unwind_Resume,
 * which puts the return addresses back again. */
#include <stdint.h>

#include "preload/real.h"
#include "preload/shim.h"
#include "preload/plt/shim_plt.h"

/* From unwind.h, spelled out: the header belongs to the compiler's unwinder, not to libc. */
struct _Unwind_Exception;
typedef int unwind_code;

static struct tp_real real_raise = {"_Unwind_RaiseException"}, real_resume = {"_Unwind_Resume"},
                      real_rethrow = {"_Unwind_Resume_or_Rethrow"},
                      real_begin_catch = {"__cxa_begin_catch"};

TP_EXPORT TP_NOINSTR __attribute__((noinline)) unwind_code _Unwind_RaiseException(
    struct _Unwind_Exception *e)
{
    unwind_code (*f)(struct _Unwind_Exception *) = tp_real_lookup(&real_raise);
    if (!f)
        return 3; /* _URC_FATAL_PHASE1_ERROR: no unwinder, as if none found a handler */
    tp_plt_unhook_frames((uintptr_t)__builtin_dwarf_cfa() - sizeof(uintptr_t));
    unwind_code r = f(e);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
    return r;
}

TP_EXPORT TP_NOINSTR __attribute__((noinline)) unwind_code _Unwind_Resume_or_Rethrow(
    struct _Unwind_Exception *e)
{
    unwind_code (*f)(struct _Unwind_Exception *) = tp_real_lookup(&real_rethrow);
    if (!f)
        return 3;
    tp_plt_unhook_frames((uintptr_t)__builtin_dwarf_cfa() - sizeof(uintptr_t));
    unwind_code r = f(e);
    __asm__ volatile("" ::: "memory");
    return r;
}

TP_EXPORT TP_NOINSTR __attribute__((noinline)) void _Unwind_Resume(struct _Unwind_Exception *e)
{
    void (*f)(struct _Unwind_Exception *) = tp_real_lookup(&real_resume);
    if (!f)
        __builtin_trap(); /* _Unwind_Resume never returns; nothing defines it: as an abort */
    tp_plt_unhook_frames((uintptr_t)__builtin_dwarf_cfa() - sizeof(uintptr_t));
    f(e);
    __builtin_trap();
}

TP_EXPORT TP_NOINSTR void *__cxa_begin_catch(void *e)
{
    void *(*f)(void *) = tp_real_lookup(&real_begin_catch);
    if (!f)
        return 0;
    /* The handler's frame called us: the slot of our return address is the lowest one still
     * live. */
    tp_plt_rehook_frames((uintptr_t)__builtin_dwarf_cfa() - sizeof(uintptr_t));
    return f(e);
}
