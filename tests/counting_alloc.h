/* An allocator for mpitev_set_allocator that counts what the library holds: live blocks
 * and bytes, and their highest values. Thread safe (atomics), malloc underneath. For
 * the tests of bounded memory (soak/soak.c, soak/test_reclaim_bounded.c): everything
 * mpitev allocates after mpitev_set_allocator goes through it, so "live" is the
 * library's memory. Needs _POSIX_C_SOURCE >= 200112L (posix_memalign). */
#ifndef MPITEV_TEST_COUNTING_ALLOC_H
#define MPITEV_TEST_COUNTING_ALLOC_H
#include <stdatomic.h>
#include <stdlib.h>

static _Atomic long counting_blocks, counting_bytes, counting_peak_blocks, counting_peak_bytes;

static void counting_peak(_Atomic long *peak, long v) {
    long p = atomic_load_explicit(peak, memory_order_relaxed);
    while (v > p && !atomic_compare_exchange_weak_explicit(peak, &p, v, memory_order_relaxed, memory_order_relaxed)) {
    }
}
static void *counting_alloc(size_t size, size_t align, void *ctx) {
    (void)ctx;
    void *p = NULL;
    if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size ? size : 1)) return NULL;
    counting_peak(&counting_peak_blocks, atomic_fetch_add(&counting_blocks, 1) + 1);
    counting_peak(&counting_peak_bytes, atomic_fetch_add(&counting_bytes, (long)size) + (long)size);
    return p;
}
static void counting_free(void *p, size_t size, size_t align, void *ctx) {
    (void)align, (void)ctx;
    atomic_fetch_sub(&counting_blocks, 1);
    atomic_fetch_sub(&counting_bytes, (long)size);
    free(p);
}
static const mpitev_allocator counting_allocator = { counting_alloc, counting_free, NULL };
#endif
