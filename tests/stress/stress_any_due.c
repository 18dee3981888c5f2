/* Stress: the drain_due words (each source's, and MPITEV_ANY_DRAIN_DUE's global one)
 * against the raises that set them, with a drainer that drains only what they say.
 *
 * Raiser threads raise into their own ordered source and a shared unordered one. One
 * drainer thread drains, only when MPITEV_ANY_DRAIN_DUE() is 1, each source only when
 * MPITEV_DRAIN says it is due; each drain clears its source's word when it leaves
 * nothing, and a drain that finds nothing buffering clears every idle source's word and
 * then the global one: the clears race with the raises' sets all along. Two phases:
 *   - drops: the registration's only callback is at MPITEV_CB_REQUIRE_THREAD_SAFE, the
 *     raises at MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE: every raise is a drop, counted by
 *     the raising thread, which sets its source's word and then the global word;
 *   - records: the registration buffers, its callback at MPITEV_CB_REQUIRE_NONE: every
 *     raise writes a record (or counts a drop when the ring is full), and the record
 *     alone makes its source due (the producer's store, or the unordered raise's
 *     exchange).
 *
 * Checked: every raise is delivered or reported dropped exactly once (delivered +
 * reported = raised), by drains that only ran behind the words, so a record or drop
 * whose word was cleared behind it would leave the drainer waiting (the test fails by
 * its timeout); and once everything is in, no source is due behind a clear global word,
 * and the words go back to 0 once the registration is freed. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cmocka.h>
#include "../api_helpers.h"

#define NRAISERS 3
#define RAISES 50000
/* Rings that hold every record a phase raises (half of each thread's raises on its own
 * source, half of all on the shared one): a record left behind a cleared word is not
 * rescued by a full ring's drop. */
#define OWN_CAPACITY 32768
#define SHARED_CAPACITY 131072

static mpitev_type ev;
static mpitev_source src_thread[NRAISERS];
static mpitev_source src_shared;
static _Atomic long reported, delivered;
static _Atomic int raisers_done;

static void on_event(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst, (void)reg, (void)cb_safety, (void)ud;
    atomic_fetch_add(&delivered, 1);
}
static void on_dropped(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg, (void)source_index, (void)cb_safety, (void)ud;
    atomic_fetch_add(&reported, (long)count);
}

static void *raiser(void *arg) {
    int me = (int)(intptr_t)arg;
    for (int i = 0; i < RAISES; i++) {
        int32_t v = i;
        mpitev_source *s = (i & 1) ? &src_shared : &src_thread[me];
        MPITEV_RAISE(&ev, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &v);
    }
    atomic_fetch_add(&raisers_done, 1);
    return NULL;
}

static void drain_all_behind_the_word(void) {
    if (!MPITEV_ANY_DRAIN_DUE()) return;
    for (int i = 0; i < NRAISERS; i++) MPITEV_DRAIN(&src_thread[i], MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    MPITEV_DRAIN(&src_shared, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
}

static void *drainer(void *arg) {
    (void)arg;
    const long want = (long)NRAISERS * RAISES;
    time_t t0 = time(NULL);
    while (atomic_load(&raisers_done) < NRAISERS || atomic_load(&reported) + atomic_load(&delivered) < want) {
        drain_all_behind_the_word();
        if (time(NULL) - t0 > 30) break; /* a lost word: the count stays short, asserted below */
    }
    return NULL;
}

/* One phase: a registration (buffered or not, its callback at level), the threads,
 * the checks; the registration freed at the end and the words back to 0. */
static void run_phase(const char *buffered, int level) {
    atomic_store(&reported, 0);
    atomic_store(&delivered, 0);
    atomic_store(&raisers_done, 0);
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", buffered };
    assert_int_equal(mpitev_reg_alloc(tindex(&ev), NULL, &kv, 1, &r), MPITEV_SUCCESS);
    assert_int_equal(mpitev_reg_set_dropped_handler(r, on_dropped), MPITEV_SUCCESS);
    assert_int_equal(mpitev_reg_set_callback(r, level, on_event, NULL, NULL, 0), MPITEV_SUCCESS);
    /* the registry changed: drains complete that work, then no source is due */
    for (int i = 0; i < 4; i++) drain_all_behind_the_word();
    for (int i = 0; i < NRAISERS; i++) assert_int_equal(MPITEV_DRAIN_DUE(&src_thread[i]), 0);
    assert_int_equal(MPITEV_DRAIN_DUE(&src_shared), 0);

    pthread_t th[NRAISERS], dr;
    assert_int_equal(pthread_create(&dr, NULL, drainer, NULL), 0);
    for (int i = 0; i < NRAISERS; i++) assert_int_equal(pthread_create(&th[i], NULL, raiser, (void *)(intptr_t)i), 0);
    for (int i = 0; i < NRAISERS; i++) pthread_join(th[i], NULL);
    pthread_join(dr, NULL);
    const long want = (long)NRAISERS * RAISES;
    assert_int_equal(atomic_load(&reported) + atomic_load(&delivered), want);
    /* quiescent: a due source implies the global word; a few more drains clear the
     * sources' words */
    for (int i = 0; i < NRAISERS; i++)
        if (MPITEV_DRAIN_DUE(&src_thread[i])) assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 1);
    if (MPITEV_DRAIN_DUE(&src_shared)) assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 1);
    for (int i = 0; i < 4; i++) drain_all_behind_the_word();
    for (int i = 0; i < NRAISERS; i++) assert_int_equal(MPITEV_DRAIN_DUE(&src_thread[i]), 0);
    assert_int_equal(MPITEV_DRAIN_DUE(&src_shared), 0);
    assert_int_equal(atomic_load(&reported) + atomic_load(&delivered), want);
    assert_int_equal(mpitev_reg_free(r, NULL, NULL), MPITEV_SUCCESS);
    for (int i = 0; i < 4; i++) drain_all_behind_the_word();
    assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 0);
}

static void drops_and_records_behind_the_words_all_arrive(void **state) {
    (void)state;
    static const mpitev_element el[] = { { "v", MPITEV_DTYPE_INT32, 0, MPITEV_ANY_OFFSET } };
    assert_int_equal(mpitev_init(), MPITEV_SUCCESS);
    static const char *names[NRAISERS] = { "t0", "t1", "t2" };
    for (int i = 0; i < NRAISERS; i++)
        assert_int_equal(mpitev_source_declare(&src_thread[i], &(mpitev_source_desc){ .name = names[i], .ordering = MPITEV_SOURCE_ORDERED,
                                                                          .buffer_capacity = OWN_CAPACITY }),
                         MPITEV_SUCCESS);
    assert_int_equal(mpitev_source_declare(&src_shared, &(mpitev_source_desc){ .name = "shared", .ordering = MPITEV_SOURCE_UNORDERED,
                                                                             .buffer_capacity = SHARED_CAPACITY }),
                     MPITEV_SUCCESS);
    assert_int_equal(mpitev_type_declare(&ev, &(mpitev_type_desc){ .name = "any_due_ev", .elements = el, .num_elements = 1,
                                                                   .payload_size = sizeof(int32_t) }),
                     MPITEV_SUCCESS);
    run_phase("false", MPITEV_CB_REQUIRE_THREAD_SAFE); /* every raise a drop */
    assert_int_equal(atomic_load(&reported), (long)NRAISERS * RAISES);
    run_phase("true", MPITEV_CB_REQUIRE_NONE); /* records, no ring ever full */
    assert_int_equal(atomic_load(&delivered), (long)NRAISERS * RAISES);
    assert_int_equal(mpitev_finalize(), MPITEV_SUCCESS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(drops_and_records_behind_the_words_all_arrive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
