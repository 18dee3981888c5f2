/* Instructions per raise under callgrind (bench/run.sh). Loops of the same shape, in one
 * run: a baseline loop, disabled raises (declared type, nobody listens), and immediate
 * raises with one registration whose callback does nothing. The clock is read through a
 * counting wrapper so its cost can be reported separately. A wrapper is a custom clock,
 * not monotonic by contract: the source clamps its timestamps and every raise takes the
 * out-of-line path (the clamped variant), so the immediate row is that path's cost; the
 * default clock's immediate delivery is bench/delivery's. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <stdio.h>
#include <stdlib.h>

struct msg { int32_t peer; int32_t tag; int64_t bytes; };
static const mpitev_element msg_elements[] = {
    MPITEV_ELEMENT_OF(struct msg, peer, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg, tag, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg, bytes, MPITEV_DTYPE_INT64),
};
static mpitev_type ev_msg;
static mpitev_source src;

/* An opaque payload source the compiler cannot fold away. */
__attribute__((noinline)) static int64_t expensive(int i) { return (int64_t)i * 7 + 1; }

/* The source's clock: the default monotonic clock behind a named function, so callgrind
 * attributes its cost (inclusive) to bench_clock_now. */
__attribute__((noinline)) int64_t bench_clock_now(void *ctx) {
    return mpitev_clock_monotonic()->now(ctx);
}

__attribute__((noinline)) void bench_callback(const mpitev_instance *i, mpitev_reg r, int s, void *u,
                                              mpitev_fnptr e) {
    (void)i; (void)r; (void)s; (void)u; (void)e;
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void bench_loop_baseline(int n) {
    for (int i = 0; i < n; i++) __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void bench_loop_raise(int n) {
    for (int i = 0; i < n; i++) {
        MPITEV_RAISE(&ev_msg, &src, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE,
                     &(struct msg){ i, i + 1, expensive(i) });
        __asm__ volatile("" ::: "memory");
    }
}
/* Same loop body, separate symbol, so the two phases are told apart. */
__attribute__((noinline)) void bench_loop_raise_enabled(int n) {
    for (int i = 0; i < n; i++) {
        MPITEV_RAISE(&ev_msg, &src, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE,
                     &(struct msg){ i, i + 1, expensive(i) });
        __asm__ volatile("" ::: "memory");
    }
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000000;
    mpitev_clock clock = *mpitev_clock_monotonic();
    clock.now = bench_clock_now;
    mpitev_reg reg;
    if (mpitev_init() || mpitev_source_declare(&src, &(mpitev_source_desc){ .name = "bench", .ordering = MPITEV_SOURCE_ORDERED,
                                                                                 .clock = &clock }) ||
        mpitev_type_declare(&ev_msg, &(mpitev_type_desc){ .name = "bench_msg", .elements = msg_elements,
                                                           .num_elements = 3, .payload_size = sizeof(struct msg) }))
        return 1;
    bench_loop_baseline(n);
    bench_loop_raise(n); /* nobody listens */
    if (mpitev_reg_alloc(0, NULL, NULL, 0, &reg) ||
        /* The adapter's entry point (a trampoline and ext), as every MPI_T tool's path. */
        mpitev__reg_set_callback_ext(reg, MPITEV_CB_REQUIRE_THREAD_SAFE, bench_callback, NULL, NULL, NULL, 0))
        return 1;
    bench_loop_raise_enabled(n); /* one registration, immediate delivery */
    mpitev_finalize();
    printf("%d iterations\n", n);
    return 0;
}
