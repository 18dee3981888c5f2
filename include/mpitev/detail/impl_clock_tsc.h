/* mpitev implementation: an x86-64 time-stamp-counter clock (mpitev_clock_tsc).
 *
 * Why: the default CLOCK_MONOTONIC read goes through the vDSO (~60-80 instructions and
 * a fence-like rdtscp/lfence on most kernels); rdtsc is one instruction. Offered only
 * where the TSC is invariant (CPUID 0x80000007 EDX bit 8: constant rate across P- and
 * C-states), else mpitev_clock_tsc() returns NULL and sources keep the default.
 *
 * ticks_per_second is calibrated once, on the first call, against CLOCK_MONOTONIC over
 * a 20 ms busy-wait (relative error about 1e-5 with a 100 ns clock read). rdtsc is not
 * serialising: a timestamp may be taken a few instructions early or late, which is far
 * below the clock's resolution in practice; ordered sources still never report a value
 * smaller than the previous one (mpitev__timestamp_o). TSCs of different sockets are
 * synchronised by the kernel on current hardware; if yours are not, use the default. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/impl_clock_tsc.h is internal: include <mpitev/mpitev.h> instead"
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#define MPITEV__HAVE_TSC 1

static int64_t mpitev__tsc_now(void *ctx) {
    (void)ctx;
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return (int64_t)((((uint64_t)hi << 32) | lo) & (uint64_t)INT64_MAX);
}

static mpitev_clock mpitev__tsc_clock;
static int mpitev__tsc_ok;
static pthread_once_t mpitev__tsc_once = PTHREAD_ONCE_INIT;

static void mpitev__tsc_calibrate(void) {
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d) || !(d & (1u << 8))) return; /* not invariant */
    int64_t t0 = mpitev__clock_monotonic_now(NULL), c0 = mpitev__tsc_now(NULL), t1, c1;
    do {
        t1 = mpitev__clock_monotonic_now(NULL);
        c1 = mpitev__tsc_now(NULL);
    } while (t1 - t0 < 20000000);
    if (c1 <= c0) return;
    mpitev__tsc_clock.now = mpitev__tsc_now;
    mpitev__tsc_clock.ctx = NULL;
    mpitev__tsc_clock.ticks_per_second = (int64_t)((double)(c1 - c0) * 1e9 / (double)(t1 - t0) + 0.5);
    mpitev__tsc_clock.max_ticks = INT64_MAX;
    mpitev__tsc_ok = mpitev__tsc_clock.ticks_per_second > 0;
}
#endif

MPITEV_API const mpitev_clock *mpitev_clock_tsc(void) {
#if defined(MPITEV__HAVE_TSC)
    pthread_once(&mpitev__tsc_once, mpitev__tsc_calibrate);
    return mpitev__tsc_ok ? &mpitev__tsc_clock : NULL;
#else
    return NULL;
#endif
}

/* Clocks monotonic by contract, whose timestamps ordered sources need not clamp: none
 * (every timestamp 0), the default CLOCK_MONOTONIC one, the TSC one (given out only for
 * an invariant TSC). A custom clock is clamped (MPITEV__RK_CLAMP). */
static int mpitev__clock_monotonic(const mpitev_clock *c) {
    if (!c->now) return 1;
#if defined(MPITEV__HAVE_MONOTONIC)
    if (c->now == mpitev__clock_monotonic_now) return 1;
#endif
#if defined(MPITEV__HAVE_TSC)
    if (c->now == mpitev__tsc_now) return 1;
#endif
    return 0;
}
