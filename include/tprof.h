/* tprof.h — optional annotations for programs profiled with tprof.
 *
 * Every function here is a no-op unless libtprof.so is preloaded: the entry points are weak
 * references resolved at load time, so a program that uses this header builds and runs
 * unchanged without tprof (no library to link, no cost beyond a predictable branch).
 *
 *   #include <tprof.h>
 *   tprof_region_begin("attention");      // a named op, nested like any other op
 *   tprof_add_flops(4 * n * n * d);       // work of the innermost open op
 *   tprof_add_bytes(bytes_moved);
 *   tprof_region_end("attention");
 *   tprof_step();                         // one iteration of the main loop ended
 */
#ifndef TPROF_H
#define TPROF_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TPROF_API_VERSION 1

/* Implemented by libtprof.so. Do not call these directly: use the inline wrappers below. */
void tprof_api_region_begin(const char *name) __attribute__((weak));
void tprof_api_region_end(const char *name) __attribute__((weak));
void tprof_api_add_flops(uint64_t flops) __attribute__((weak));
void tprof_api_add_bytes(uint64_t bytes) __attribute__((weak));
void tprof_api_step(void) __attribute__((weak));

#define TPROF_INLINE_ static inline __attribute__((no_instrument_function, unused))

/* 1 when libtprof.so is loaded into this process. */
TPROF_INLINE_ int tprof_active(void)
{
    return tprof_api_region_begin != 0;
}

/* Open a named op; regions nest with each other and with every other op. */
TPROF_INLINE_ void tprof_region_begin(const char *name)
{
    if (tprof_api_region_begin)
        tprof_api_region_begin(name);
}

/* Close the innermost open region of that name. */
TPROF_INLINE_ void tprof_region_end(const char *name)
{
    if (tprof_api_region_end)
        tprof_api_region_end(name);
}

/* Add floating-point operations to the innermost open op of this thread. */
TPROF_INLINE_ void tprof_add_flops(uint64_t flops)
{
    if (tprof_api_add_flops)
        tprof_api_add_flops(flops);
}

/* Add bytes moved to the innermost open op of this thread (for arithmetic intensity). */
TPROF_INLINE_ void tprof_add_bytes(uint64_t bytes)
{
    if (tprof_api_add_bytes)
        tprof_api_add_bytes(bytes);
}

/* Mark the end of one iteration (step) of the program's main loop. */
TPROF_INLINE_ void tprof_step(void)
{
    if (tprof_api_step)
        tprof_api_step();
}

#ifdef __cplusplus
}
#endif

#endif
