/* Reclamation keeps up with registration churn: what registry writers retire (old
 * registration and callback sets, freed registrations' slots) comes back while raises,
 * drains and completion passes go on, so the registry's memory stays bounded.
 *
 * The bug (docs/reliability.md, "Soak"): while one thread ran a completion pass, every
 * other progress call skipped reclamation altogether, and the pass took the registry
 * mutex once per retired item, so a writer churning registrations retired items faster
 * than the pass took them; the next pass was longer, and so on: 60-260 k slots and GBs
 * after a minute of `soak`. The library's memory is measured through its allocator (a
 * counting one, tests/counting_alloc.h): live blocks and bytes. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "../core/core_test.h"
#include "../counting_alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static mpitev_source src;
static mpitev_type ev;

static int declare(void **state) {
    if (core_setup(state)) return -1;
    mpitev_source_desc sd = src_desc("reclaim_src", MPITEV_SOURCE_ORDERED, NULL);
    sd.buffer_capacity = 256;
    mpitev_type_desc td = pair_desc("reclaim_ev", MPITEV_BIND_NO_OBJECT);
    if (mpitev_source_declare(&src, &sd) || mpitev_type_declare(&ev, &td)) return -1;
    return 0;
}

static atomic_long delivered, dropped, freed;
static void on_event(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s; (void)u;
    atomic_fetch_add(&delivered, 1);
}
static void on_dropped(mpitev_count_t n, mpitev_reg r, int si, int s, void *u) {
    (void)r; (void)si; (void)s; (void)u;
    atomic_fetch_add(&dropped, (long)n);
}
static void on_free(mpitev_reg r, int s, void *u) {
    (void)r; (void)s; (void)u;
    atomic_fetch_add(&freed, 1);
}

/* One registration's life: allocated, a callback and a dropped handler set (each
 * retires the old callback set and, listing it, the type's old registration set), an
 * instance raised to it (buffered ones drained), freed with a free callback. */
static void churn_once(int i) {
    static const char *const modes[] = { "false", "true", "default" };
    mpitev_kv hint = { MPITEV_HINT_BUFFERED, modes[i % 3] };
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &hint, 1, &r));
    OK(mpitev_reg_set_callback(r, i % MPITEV_CB_LEVELS, on_event, NULL, NULL, 0));
    OK(mpitev_reg_set_dropped_handler(r, on_dropped));
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ i, i });
    (void)mpitev_source_drain(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL);
    OK(mpitev_reg_free(r, NULL, on_free));
}

/* ---- A completion pass does not hold back what needs no tool code. ---- */
enum { NESTED = 3000, BACKGROUND = 64 };
static long bytes_before, bytes_in_pass;
static void churning_free_cb(mpitev_reg r, int s, void *u) {
    (void)r; (void)s; (void)u;
    /* We run inside a completion pass (the free's), at depth 0: nothing up the stack
     * holds a grace section. */
    bytes_before = atomic_load(&counting_bytes);
    for (int i = 0; i < NESTED; i++) churn_once(i);
    OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    bytes_in_pass = atomic_load(&counting_bytes) - bytes_before;
    atomic_fetch_add(&freed, 1);
}
/* NESTED churn cycles inside a completion pass, with nb other registrations on the
 * type: returns the bytes the library holds more at the pass's end than at its start,
 * after checking that the next pass completes every free (each callback once). */
static long held_in_a_pass(int nb) {
    mpitev_reg bg[BACKGROUND];
    mpitev_kv hint = { MPITEV_HINT_BUFFERED, "false" };
    for (int i = 0; i < nb; i++) {
        OK(mpitev_reg_alloc(tindex(&ev), NULL, &hint, 1, &bg[i]));
        OK(mpitev_reg_set_callback(bg[i], MPITEV_CB_REQUIRE_NONE, on_event, NULL, NULL, 0));
    }
    for (int i = 0; i < 4; i++) OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    atomic_store(&freed, 0);
    mpitev_reg outer;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &outer));
    OK(mpitev_reg_free(outer, NULL, churning_free_cb)); /* its completion pass churns */
    OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    assert_int_equal(atomic_load(&freed), NESTED + 1);
    for (int i = 0; i < nb; i++) OK(mpitev_reg_free(bg[i], NULL, NULL));
    for (int i = 0; i < 4; i++) OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    return bytes_in_pass;
}
/* Each churn cycle retires 3 sets of the type or more; today's code gives them back as
 * they come (any progress call, the frees' own included), where the old code kept all of
 * them (about 12 000) until the pass ended. The freed registrations themselves wait for
 * the next pass (free callbacks never run concurrently), and what they hold does not
 * depend on the type's other registrations; a set's size does. So with BACKGROUND other
 * registrations on the type, the pass may hold no more than without them (the old
 * code: 12 000 sets of 64 entries more, megabytes). */
static void pass_does_not_hold_back_memory(void **state) {
    (void)state;
    long alone = held_in_a_pass(0), with_others = held_in_a_pass(BACKGROUND);
    print_message("reclaim: %ld bytes held in the pass, %ld with %d other registrations\n", alone, with_others,
                  BACKGROUND);
    assert_true(with_others - alone <= 256 * 1024);
}

/* ---- Churn under raising, draining and progress on other threads. ---- */
static atomic_int stop;
static atomic_long max_bytes;
static void *raiser(void *arg) {
    (void)arg;
    for (int64_t i = 0; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
        MPITEV_RAISE(&ev, &src, NULL, (int)(i % 3), &(struct pair){ 0, i });
        if ((i & 255) == 0) sched_yield();
    }
    return NULL;
}
static void *progress_engine(void *arg) {
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        (void)mpitev_source_drain(&src, 64, MPITEV_CB_REQUIRE_NONE, NULL);
        (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
        long n = atomic_load(&counting_bytes);
        if (n > atomic_load(&max_bytes)) atomic_store(&max_bytes, n);
    }
    return NULL;
}
static void churn_with_threads(mpitev_reg *regs, int *have, unsigned *x) {
    *x = *x * 1103515245u + 12345u;
    int i = (int)(*x >> 16) % 8, what = (int)(*x >> 8) % 5;
    if (!have[i]) {
        static const char *const modes[] = { "true", "false", "default" };
        mpitev_kv hint = { MPITEV_HINT_BUFFERED, modes[(*x >> 4) % 3] };
        OK(mpitev_reg_alloc(tindex(&ev), NULL, &hint, 1, &regs[i]));
        have[i] = 1;
    } else if (what == 0) {
        OK(mpitev_reg_free(regs[i], NULL, on_free));
        have[i] = 0;
    } else if (what <= 2) {
        OK(mpitev_reg_set_callback(regs[i], (int)(*x >> 3) % MPITEV_CB_LEVELS, (*x & 1) ? on_event : NULL, NULL,
                                   NULL, 0));
    } else {
        OK(mpitev_reg_set_dropped_handler(regs[i], (*x & 2) ? on_dropped : NULL));
    }
}
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static void churn_under_raising_stays_bounded(void **state) {
    (void)state;
    atomic_store(&stop, 0);
    atomic_store(&max_bytes, 0);
    pthread_t th[2];
    assert_int_equal(pthread_create(&th[0], NULL, raiser, NULL), 0);
    assert_int_equal(pthread_create(&th[1], NULL, progress_engine, NULL), 0);
    mpitev_reg regs[8];
    int have[8] = { 0 };
    unsigned x = 777;
    long cycles = 0;
    /* 3 s of churn (millions of steps here) against reclamation on the other threads.
     * The peak is what piles up while the scheduler keeps the progress engine, or a
     * raiser inside its grace section, off a core: a few MiB on an idle machine, up to
     * 24 MiB seen on a loaded 2-core one (the registration slots grown for it stay). So
     * this checks only that nothing runs away (a leak: hundreds of MiB within the 3 s);
     * the old bug's mechanism, a pass holding back what others retire, is the test
     * above's, which does not depend on timing. */
    for (double end = now_s() + 3.0; now_s() < end;)
        for (int k = 0; k < 1000; k++, cycles++) churn_with_threads(regs, have, &x);
    atomic_store(&stop, 1);
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
    for (int i = 0; i < 8; i++)
        if (have[i]) OK(mpitev_reg_free(regs[i], NULL, on_free));
    print_message("reclaim: %ld churn steps, at most %ld KiB\n", cycles, atomic_load(&max_bytes) >> 10);
    assert_true(atomic_load(&max_bytes) <= 64l << 20);
}

int main(void) {
    if (mpitev_set_allocator(&counting_allocator)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(pass_does_not_hold_back_memory, declare, core_teardown),
        cmocka_unit_test_setup_teardown(churn_under_raising_stays_bounded, declare, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
