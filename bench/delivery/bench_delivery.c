/* Delivery costs against registrations (callgrind, bench/run.sh; bench/delivery/measure.sh
 * turns the counts into rows): the drain per record and per call, immediate delivery,
 * and how both scale with registrations on the raised type, on other types and on other
 * objects of a bound type.
 *
 * Every scenario has a pair of measured functions, NAME_a and NAME_b, run for N and 2N
 * units of work with everything else equal: (incl(NAME_b) - incl(NAME_a)) / N is the
 * cost of one unit, inclusive of what it calls. The tool's callback (bench_cb) and the
 * clock (mpitev__clock_monotonic_now) are measured apart and subtracted by measure.sh.
 * Callbacks are registered through the adapter's entry point (a trampoline and ext), the
 * path every MPI_T tool takes. Objects are the addresses of objs[i]. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <stdio.h>
#include <stdlib.h>

#define CHUNK 1024
#define OTHERS 64

#include "../bench_msg.h"

static mpitev_type ev_bound, ev_unbound, ev_other[OTHERS];
static mpitev_source src;
static char objs[1 + OTHERS];
#define OBJ_A ((const void *)&objs[0])
static long ncb, ncb_total;

__attribute__((noinline)) void bench_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u, mpitev_fnptr e) {
    (void)i; (void)r; (void)s; (void)u; (void)e;
    ncb++;
}

/* n raises of t for obj (not measured when it only fills the ring). */
__attribute__((noinline)) static void raise_n(mpitev_type *t, const void *obj, int n) {
    for (int i = 0; i < n; i++) {
        MPITEV_RAISE(t, &src, obj, MPITEV_CB_REQUIRE_THREAD_SAFE, &BENCH_MSG(i));
        __asm__ volatile("" ::: "memory");
    }
}

/* Measured: n raises (immediate delivery rows). */
#define RAISES(name)                                                                       \
    __attribute__((noinline)) void name(mpitev_type *t, const void *obj, int n) {          \
        for (int i = 0; i < n; i++) {                                                      \
            MPITEV_RAISE(t, &src, obj, MPITEV_CB_REQUIRE_THREAD_SAFE,                      \
                         &BENCH_MSG(i));                                                   \
            __asm__ volatile("" ::: "memory");                                             \
        }                                                                                  \
    }
/* Measured: one drain call, as a progress engine makes it. */
#define DRAINS(name)                                                                       \
    __attribute__((noinline)) void name(void) { MPITEV_DRAIN(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE); }
#define PAIR(kind, name) kind(name##_a) kind(name##_b)

/* The source's clock read (the default monotonic clock), subtracted from raises. */
#define CLOCKS(name)                                                                       \
    __attribute__((noinline)) void name(int n) {                                           \
        for (int i = 0; i < n; i++) {                                                      \
            int64_t t = src.mpitev__clock.now(src.mpitev__clock.ctx);                      \
            __asm__ volatile("" ::"r"(t) : "memory");                                      \
        }                                                                                  \
    }
PAIR(CLOCKS, bench_clock)
/* The raise loop without the raise (bench_msg.h), subtracted from the immediate rows as
 * bench/buffer subtracts it from its raise rows. */
BENCH_BASELINE(bench_baseline_a)
BENCH_BASELINE(bench_baseline_b)

/* Immediate delivery. */
PAIR(RAISES, imm_unbound1)
PAIR(RAISES, imm_unbound2)
PAIR(RAISES, imm_unbound8)
PAIR(RAISES, imm_types64)
PAIR(RAISES, imm_bound1)
PAIR(RAISES, imm_bound_o1)
PAIR(RAISES, imm_bound_o64)
/* Drain per record (CHUNK records per call). */
PAIR(DRAINS, drain_unbound1)
PAIR(DRAINS, drain_bound1)
PAIR(DRAINS, drain_bound2)
PAIR(DRAINS, drain_bound8)
PAIR(DRAINS, drain_bound_o1)
PAIR(DRAINS, drain_bound_o64)
PAIR(DRAINS, drain_alternating)
PAIR(DRAINS, drain_none_several)
/* A drain call that delivers one record. */
PAIR(DRAINS, call_bound1)

static mpitev_reg regs[4 * OTHERS];
static int nregs;
static void reg(mpitev_type *t, const void *obj, int buffered) {
    mpitev_kv kv = { "mpitev_buffered", buffered ? "true" : "false" };
    int ti;
    if (mpitev_type_index_of(t, &ti) || mpitev_reg_alloc(ti, obj, &kv, 1, &regs[nregs]) ||
        mpitev__reg_set_callback_ext(regs[nregs], MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, bench_cb, NULL, NULL, NULL, 0)) {
        fprintf(stderr, "registration failed\n");
        exit(1);
    }
    nregs++;
}
static void unreg_all(void) {
    for (int i = 0; i < nregs; i++) (void)mpitev_reg_free(regs[i], NULL, NULL);
    nregs = 0;
    /* complete the frees: the next scenario starts with nothing deferred */
    for (int i = 0; i < 8; i++) {
        (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
        MPITEV_DRAIN(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    }
}
static void check(long want, const char *what) {
    ncb_total += ncb;
    if (ncb != want) {
        fprintf(stderr, "%s: %ld callbacks, expected %ld\n", what, ncb, want);
        exit(1);
    }
    ncb = 0;
}

/* n immediate raises through fa, 2n through fb; per: callbacks per raise. */
static void run_imm(void (*fa)(mpitev_type *, const void *, int), void (*fb)(mpitev_type *, const void *, int),
                    mpitev_type *t, const void *obj, long n, int per, const char *what) {
    ncb = 0;
    for (long d = 0; d < n; d += CHUNK) fa(t, obj, CHUNK);
    for (long d = 0; d < 2 * n; d += CHUNK) fb(t, obj, CHUNK);
    check(3 * n * per, what);
}
/* CHUNK buffered records, then one measured drain: n records through fa, 2n through fb.
 * alt: raises alternate between OBJ_A and objs[1]. */
static void run_drain(void (*fa)(void), void (*fb)(void), mpitev_type *t, long n, int per, int alt, const char *what) {
    ncb = 0;
    for (int pass = 1; pass <= 2; pass++) {
        for (long d = 0; d < pass * n; d += CHUNK) {
            if (alt) {
                for (int i = 0; i < CHUNK; i += 2) { raise_n(t, OBJ_A, 1); raise_n(t, &objs[1], 1); }
            } else {
                raise_n(t, OBJ_A, CHUNK);
            }
            (pass == 1 ? fa : fb)();
        }
    }
    check(3 * n * per, what);
}
/* One record, then one measured drain call, n times through fa and 2n through fb. */
static void run_call(void (*fa)(void), void (*fb)(void), mpitev_type *t, long n, const char *what) {
    ncb = 0;
    for (long i = 0; i < n; i++) { raise_n(t, OBJ_A, 1); fa(); }
    for (long i = 0; i < 2 * n; i++) { raise_n(t, OBJ_A, 1); fb(); }
    check(3 * n, what);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    n = (n + CHUNK - 1) / CHUNK * CHUNK;
    mpitev_source_desc sd = { .name = "ordered", .ordering = MPITEV_SOURCE_ORDERED, .buffer_capacity = 2 * CHUNK };
    mpitev_type_desc td = { .name = "bound", .bind = MPITEV_BIND_MPI_COMM, .elements = msg_elements,
                            .num_elements = 3, .payload_size = sizeof(struct msg) };
    if (mpitev_init() || mpitev_source_declare(&src, &sd) || mpitev_type_declare(&ev_bound, &td)) return 1;
    td.name = "unbound";
    td.bind = MPITEV_BIND_NO_OBJECT;
    if (mpitev_type_declare(&ev_unbound, &td)) return 1;
    static char names[OTHERS][16];
    for (int i = 0; i < OTHERS; i++) {
        snprintf(names[i], sizeof names[i], "other%d", i);
        td.name = names[i];
        if (mpitev_type_declare(&ev_other[i], &td)) return 1;
    }

    bench_clock_a((int)n);
    bench_clock_b((int)(2 * n));
    for (long d = 0; d < n; d += CHUNK) bench_baseline_a(CHUNK);
    for (long d = 0; d < 2 * n; d += CHUNK) bench_baseline_b(CHUNK);
    /* Immediate delivery: registrations on the raised type (1, 2, 8), on other types. */
    reg(&ev_unbound, NULL, 0);
    run_imm(imm_unbound1_a, imm_unbound1_b, &ev_unbound, NULL, n, 1, "imm_unbound1");
    for (int i = 0; i < OTHERS; i++) reg(&ev_other[i], NULL, 0);
    run_imm(imm_types64_a, imm_types64_b, &ev_unbound, NULL, n, 1, "imm_types64");
    unreg_all();
    reg(&ev_unbound, NULL, 0);
    reg(&ev_unbound, NULL, 0);
    run_imm(imm_unbound2_a, imm_unbound2_b, &ev_unbound, NULL, n, 2, "imm_unbound2");
    for (int i = 2; i < 8; i++) reg(&ev_unbound, NULL, 0);
    run_imm(imm_unbound8_a, imm_unbound8_b, &ev_unbound, NULL, n, 8, "imm_unbound8");
    unreg_all();
    /* ... and bound: one on the raised object, then 1 and 64 on other objects too. */
    reg(&ev_bound, OBJ_A, 0);
    run_imm(imm_bound1_a, imm_bound1_b, &ev_bound, OBJ_A, n, 1, "imm_bound1");
    reg(&ev_bound, &objs[1], 0);
    run_imm(imm_bound_o1_a, imm_bound_o1_b, &ev_bound, OBJ_A, n, 1, "imm_bound_o1");
    for (int i = 2; i <= OTHERS; i++) reg(&ev_bound, &objs[i], 0);
    run_imm(imm_bound_o64_a, imm_bound_o64_b, &ev_bound, OBJ_A, n, 1, "imm_bound_o64");
    unreg_all();

    /* Drain per record. */
    reg(&ev_unbound, NULL, 1);
    run_drain(drain_unbound1_a, drain_unbound1_b, &ev_unbound, n, 1, 0, "drain_unbound1");
    unreg_all();
    reg(&ev_bound, OBJ_A, 1);
    run_drain(drain_bound1_a, drain_bound1_b, &ev_bound, n, 1, 0, "drain_bound1");
    run_call(call_bound1_a, call_bound1_b, &ev_bound, n, "call_bound1");
    reg(&ev_bound, OBJ_A, 1);
    run_drain(drain_bound2_a, drain_bound2_b, &ev_bound, n, 2, 0, "drain_bound2");
    /* records with those two deliveries alternating with records for an object nobody
     * registered for (no delivery): one callback per record on average */
    run_drain(drain_none_several_a, drain_none_several_b, &ev_bound, n, 1, 1, "drain_none_several");
    for (int i = 2; i < 8; i++) reg(&ev_bound, OBJ_A, 1);
    run_drain(drain_bound8_a, drain_bound8_b, &ev_bound, n, 8, 0, "drain_bound8");
    unreg_all();
    reg(&ev_bound, OBJ_A, 1);
    reg(&ev_bound, &objs[1], 1);
    run_drain(drain_bound_o1_a, drain_bound_o1_b, &ev_bound, n, 1, 0, "drain_bound_o1");
    run_drain(drain_alternating_a, drain_alternating_b, &ev_bound, n, 1, 1, "drain_alternating");
    for (int i = 2; i <= OTHERS; i++) reg(&ev_bound, &objs[i], 1);
    run_drain(drain_bound_o64_a, drain_bound_o64_b, &ev_bound, n, 1, 0, "drain_bound_o64");
    unreg_all();
    mpitev_finalize();
    printf("%ld %ld\n", n, ncb_total);
    return 0;
}
