/* mpitev implementation: the default clock.
 *
 * CLOCK_MONOTONIC in nanoseconds. Under strict -std=c11 <time.h> hides clock_gettime
 * unless the TU asked for POSIX first; on Linux we then declare it ourselves (its
 * prototype is fixed by POSIX, and CLOCK_MONOTONIC is 1 there). Elsewhere without POSIX
 * we fall back to C11 timespec_get(TIME_UTC), which may step: ordered sources still
 * never report a smaller timestamp than the one before (see mpitev__raise). */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/impl_clock.h is internal: include <mpitev/mpitev.h> instead"
#endif

#include <time.h>

#if defined(CLOCK_MONOTONIC)
#define MPITEV__MONOTONIC_ID CLOCK_MONOTONIC
#define MPITEV__HAVE_MONOTONIC 1
#elif defined(__linux__)
extern int clock_gettime(int clock_id, struct timespec *tp);
#define MPITEV__MONOTONIC_ID 1
#define MPITEV__HAVE_MONOTONIC 1
#endif

static int64_t mpitev__clock_monotonic_now(void *ctx) {
    (void)ctx;
    struct timespec ts;
#if defined(MPITEV__HAVE_MONOTONIC)
    clock_gettime(MPITEV__MONOTONIC_ID, &ts);
#else
    timespec_get(&ts, TIME_UTC);
#endif
    return (int64_t)ts.tv_sec * 1000000000 + (int64_t)ts.tv_nsec;
}

static const mpitev_clock mpitev__default_clock = {
    mpitev__clock_monotonic_now, NULL, 1000000000, INT64_MAX
};
