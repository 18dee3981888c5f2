/* Disabled probes compared: the cost a probe site adds when nobody listens, for
 *   mpitev   MPITEV_RAISE of a declared type (the one relaxed load of its set pointer)
 *   lttng    an LTTng-UST tracepoint (its state word; no session daemon)
 *   sdt      a systemtap SDT probe guarded by its semaphore (sys/sdt.h)
 *   flag     a plain relaxed atomic flag guarding a call
 * Every loop runs the same body (a little work whose results are the probe's two
 * arguments) plus its probe; loop_base has no probe. Each loop function is noinline so
 * that callgrind reports it apart (bench/probes/measure.sh).
 *
 *   bench_probes N          run each loop once over N iterations (for callgrind)
 *   bench_probes N R time   wall time on one core: R rounds, each timing every loop (N
 *                           iterations). Prints per loop the min and median over rounds
 *                           of ns per iteration and, for each probe, the ratios
 *                           min(probe) / min(base) and median(probe) / median(base) */
#define _GNU_SOURCE
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef BENCH_HAVE_LTTNG
#include "bench_tp.h"
#endif
#ifdef BENCH_HAVE_SDT
/* An SDT probe with a semaphore, written by hand as dtrace -h would generate it: the
 * semaphore lives in .probes and a tracer (systemtap, bpftrace) increments it. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
__extension__ unsigned short mpitev_bench_msg_semaphore __attribute__((unused, section(".probes")));
#define BENCH_SDT_ENABLED() __builtin_expect(mpitev_bench_msg_semaphore, 0)
#endif

#define NOINLINE __attribute__((noinline))
/* the work of one iteration: an LCG step, whose state and iteration are the arguments */
#define WORK(x) ((x) = (x) * 6364136223846793005ull + 1442695040888963407ull)

struct msg { int32_t a; int64_t b; };
static const mpitev_element msg_elems[] = {
    MPITEV_ELEMENT_OF(struct msg, a, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg, b, MPITEV_DTYPE_INT64),
};
static mpitev_type ev_msg;
static mpitev_source src;
static atomic_int flag;
static volatile uint64_t sink;

NOINLINE static void slow_path(int a, long b) { sink += (uint64_t)a + (uint64_t)b; }

NOINLINE static uint64_t loop_base(long n) {
    uint64_t x = 1;
    for (long i = 0; i < n; i++) WORK(x);
    return x;
}
NOINLINE static uint64_t loop_mpitev(long n) {
    uint64_t x = 1;
    for (long i = 0; i < n; i++) {
        WORK(x);
        MPITEV_RAISE(&ev_msg, &src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct msg){ (int32_t)i, (int64_t)x });
    }
    return x;
}
NOINLINE static uint64_t loop_flag(long n) {
    uint64_t x = 1;
    for (long i = 0; i < n; i++) {
        WORK(x);
        if (__builtin_expect(atomic_load_explicit(&flag, memory_order_relaxed), 0)) slow_path((int)i, (long)x);
    }
    return x;
}
#ifdef BENCH_HAVE_LTTNG
NOINLINE static uint64_t loop_lttng(long n) {
    uint64_t x = 1;
    for (long i = 0; i < n; i++) {
        WORK(x);
        tracepoint(mpitev_bench, msg, (int)i, (long)x);
    }
    return x;
}
#endif
#ifdef BENCH_HAVE_SDT
NOINLINE static uint64_t loop_sdt(long n) {
    uint64_t x = 1;
    for (long i = 0; i < n; i++) {
        WORK(x);
        if (BENCH_SDT_ENABLED()) STAP_PROBE2(mpitev_bench, msg, (int)i, (long)x);
    }
    return x;
}
#endif

struct probe { const char *name; uint64_t (*loop)(long); };
static const struct probe probes[] = {
    { "mpitev", loop_mpitev },
#ifdef BENCH_HAVE_LTTNG
    { "lttng", loop_lttng },
#endif
#ifdef BENCH_HAVE_SDT
    { "sdt", loop_sdt },
#endif
    { "flag", loop_flag },
};
#define NPROBES (int)(sizeof probes / sizeof probes[0])

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}
static double time_loop(uint64_t (*loop)(long), long n) {
    double t0 = now_ns();
    sink += loop(n);
    return now_ns() - t0;
}
static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int rounds = argc > 2 ? atoi(argv[2]) : 0;
    if (mpitev_init() || mpitev_source_declare(&src, &(mpitev_source_desc){ .name = "bench", .ordering = MPITEV_SOURCE_ORDERED }) ||
        mpitev_type_declare(&ev_msg, &(mpitev_type_desc){ .name = "msg", .verbosity = MPITEV_VERBOSITY_USER_BASIC,
                                                          .elements = msg_elems, .num_elements = 2,
                                                          .payload_size = sizeof(struct msg) })) {
        fprintf(stderr, "bench_probes: declaring failed\n");
        return 1;
    }
    if (rounds <= 0) { /* callgrind: every loop once */
        sink += loop_base(n);
        for (int p = 0; p < NPROBES; p++) sink += probes[p].loop(n);
        printf("probes");
        for (int p = 0; p < NPROBES; p++) printf(" %s", probes[p].name);
        printf("\n");
    } else { /* wall time on one core */
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
        (void)sched_setaffinity(0, sizeof one, &one);
        /* times[p][r]: loop p (0: base, 1 + i: probe i) in round r, ns per iteration */
        double *times = calloc((size_t)(rounds * (NPROBES + 1)), sizeof *times);
        if (!times) return 1;
        for (int p = 0; p < NPROBES; p++) sink += probes[p].loop(n / 10); /* warm up */
        for (int r = 0; r < rounds; r++) {
            times[r] = time_loop(loop_base, n) / (double)n;
            for (int p = 0; p < NPROBES; p++) times[(p + 1) * rounds + r] = time_loop(probes[p].loop, n) / (double)n;
        }
        for (int p = 0; p <= NPROBES; p++) qsort(&times[p * rounds], (size_t)rounds, sizeof *times, cmp_double);
        printf("%-8s %8.3f %8.3f\n", "base", times[0], times[rounds / 2]);
        for (int p = 0; p < NPROBES; p++) {
            const double *v = &times[(p + 1) * rounds];
            printf("%-8s %8.3f %8.3f %6.3f %6.3f\n", probes[p].name, v[0], v[rounds / 2], v[0] / times[0],
                   v[rounds / 2] / times[rounds / 2]);
        }
        free(times);
    }
    mpitev_finalize();
    return 0;
}
