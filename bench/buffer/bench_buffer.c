/* Instructions per buffered raise and per drained instance (callgrind, bench/run.sh).
 *
 * Every figure is a difference within ONE run: the *_a functions process N instances,
 * the *_b functions 2N, both in chunks of CHUNK (the ring holds a chunk; the drain, or
 * the raises, happen outside the measured function). (incl(b) - incl(a)) / N is the
 * cost per instance, with the per-chunk call overhead amortised over CHUNK. The clock
 * and the tool callback are measured apart (their own inclusive cost per call). */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <stdio.h>
#include <stdlib.h>

#define CHUNK 4096

#include "../bench_msg.h"

static mpitev_type ev_msg;
static mpitev_source src_o, src_u, src_tsc;
static long ncb;

__attribute__((noinline)) void bench_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u, mpitev_fnptr e) {
    (void)i; (void)r; (void)s; (void)u; (void)e;
    ncb++;
}

#define RAISE_CHUNK(name, src)                                                         \
    __attribute__((noinline)) void name(int n) {                                       \
        for (int i = 0; i < n; i++) {                                                  \
            MPITEV_RAISE(&ev_msg, (src), NULL, MPITEV_CB_REQUIRE_THREAD_SAFE,          \
                         &BENCH_MSG(i));                                               \
            __asm__ volatile("" ::: "memory");                                         \
        }                                                                              \
    }
/* The same loop without the raise (bench_msg.h), subtracted from the raises. */
BENCH_BASELINE(bench_baseline_a)
BENCH_BASELINE(bench_baseline_b)
RAISE_CHUNK(bench_raise_ordered_a, &src_o)
RAISE_CHUNK(bench_raise_ordered_b, &src_o)
RAISE_CHUNK(bench_raise_unordered_a, &src_u)
RAISE_CHUNK(bench_raise_unordered_b, &src_u)
RAISE_CHUNK(bench_raise_tsc_a, &src_tsc)
RAISE_CHUNK(bench_raise_tsc_b, &src_tsc)

__attribute__((noinline)) int bench_drain_a(mpitev_source *s) {
    return mpitev_source_drain(s, CHUNK, MPITEV_CB_REQUIRE_NONE, NULL);
}
__attribute__((noinline)) int bench_drain_b(mpitev_source *s) {
    return mpitev_source_drain(s, CHUNK, MPITEV_CB_REQUIRE_NONE, NULL);
}
/* The same for the unordered (mpsc) source, measured apart. */
__attribute__((noinline)) int bench_drain_u_a(mpitev_source *s) {
    return mpitev_source_drain(s, CHUNK, MPITEV_CB_REQUIRE_NONE, NULL);
}
__attribute__((noinline)) int bench_drain_u_b(mpitev_source *s) {
    return mpitev_source_drain(s, CHUNK, MPITEV_CB_REQUIRE_NONE, NULL);
}

/* The drains pass NULL for the count, as a progress engine does; the callback counter
 * checks that nothing was lost. */
static void run(void (*raise_fn)(int), int (*drain_fn)(mpitev_source *), mpitev_source *s, long total) {
    for (long done = 0; done < total; done += CHUNK) {
        long before = ncb;
        raise_fn(CHUNK);
        if (drain_fn(s) != MPITEV_SUCCESS || ncb - before != CHUNK) {
            fprintf(stderr, "drain lost instances\n");
            exit(1);
        }
    }
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    n = (n + CHUNK - 1) / CHUNK * CHUNK;
    mpitev_source_desc d = { .name = "ordered", .ordering = MPITEV_SOURCE_ORDERED, .buffer_capacity = CHUNK };
    if (mpitev_init() || mpitev_source_declare(&src_o, &d)) return 1;
    d.name = "unordered";
    d.ordering = MPITEV_SOURCE_UNORDERED;
    if (mpitev_source_declare(&src_u, &d)) return 1;
    const mpitev_clock *tsc = mpitev_clock_tsc();
    d.name = "tsc";
    d.ordering = MPITEV_SOURCE_ORDERED;
    d.clock = tsc;
    if (tsc && mpitev_source_declare(&src_tsc, &d)) return 1;
    if (mpitev_type_declare(&ev_msg, &(mpitev_type_desc){ .name = "bench_msg", .elements = msg_elements,
                                                          .num_elements = 3, .payload_size = sizeof(struct msg) }))
        return 1;
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", "true" };
    if (mpitev_reg_alloc(0, NULL, &kv, 1, &r) ||
        /* The adapter's entry point (a trampoline and ext), as every MPI_T tool's path. */
        mpitev__reg_set_callback_ext(r, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, bench_cb, NULL, NULL, NULL, 0))
        return 1;
    for (long done = 0; done < n; done += CHUNK) bench_baseline_a(CHUNK);
    for (long done = 0; done < 2 * n; done += CHUNK) bench_baseline_b(CHUNK);
    /* N in the *_a functions, 2N in the *_b ones; the drain pair on the ordered source. */
    run(bench_raise_ordered_a, bench_drain_a, &src_o, n);
    run(bench_raise_ordered_b, bench_drain_b, &src_o, 2 * n);
    run(bench_raise_unordered_a, bench_drain_u_a, &src_u, n);
    run(bench_raise_unordered_b, bench_drain_u_b, &src_u, 2 * n);
    if (tsc) {
        run(bench_raise_tsc_a, bench_drain_a, &src_tsc, n);
        run(bench_raise_tsc_b, bench_drain_b, &src_tsc, 2 * n);
    }
    mpitev_finalize();
    printf("%ld instances per _a function, %ld callbacks, tsc %s (%lld ticks/s)\n", n, ncb,
           tsc ? "yes" : "no", tsc ? (long long)tsc->rate(tsc->ctx) : 0LL);
    return 0;
}
