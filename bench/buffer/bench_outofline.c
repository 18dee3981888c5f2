/* The ordered buffered raise with MPITEV_RAISE_INLINE 0 (a per-TU option): every
 * enabled raise calls mpitev__raise. Measured next to the in-place raise of
 * bench_buffer.c, in the same run. */
#define MPITEV_RAISE_INLINE 0
#include <mpitev/mpitev.h>

#include "../bench_msg.h"

#define RAISE_CHUNK_OOL(name)                                                          \
    __attribute__((noinline)) void name(mpitev_type *t, mpitev_source *s, int n) {    \
        for (int i = 0; i < n; i++) {                                                  \
            MPITEV_RAISE(t, s, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE,                    \
                         &BENCH_MSG(i));                                               \
            __asm__ volatile("" ::: "memory");                                         \
        }                                                                              \
    }
RAISE_CHUNK_OOL(bench_raise_ooline_a)
RAISE_CHUNK_OOL(bench_raise_ooline_b)
