/* Stress: a lost instance is reported before the next delivered one, with the drainer
 * racing the producer on a small ring (docs/reliability.md; the drain's batch
 * boundaries, impl_drain.inc).
 *
 * One producer thread raises sequence numbers 0..N-1 into an ordered source of 16
 * records; one drainer thread drains it (MPITEV_DRAIN and mpitev_source_drain in turn),
 * pausing now and then so that the ring fills and raises are dropped. The
 * registration buffers, with a dropped handler; both callbacks run on the drainer.
 *
 * Checked at every delivery: the drops reported so far cover the sequence numbers
 * skipped so far (a report came before the record that follows a loss); at the end,
 * delivered + reported = raised, and both happened. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
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

#define RAISES 2000000

static mpitev_type ev;
static mpitev_source so;
static _Atomic int producer_done;
/* The drainer's (both callbacks run there, one drainer): plain counters. */
static long delivered, reported, skipped, late_reports; /* late_reports: also a bad copy */
static int64_t next_seq;

static void on_event(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg, (void)cb_safety, (void)ud;
    int64_t s = -1;
    if (mpitev_instance_copy(inst, &s) != MPITEV_SUCCESS) late_reports++; /* (asserted 0: no cmocka here) */
    skipped += (long)(s - next_seq);
    next_seq = s + 1;
    if (reported < skipped) late_reports++; /* a loss before s not reported before s */
    delivered++;
}
static void on_dropped(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg, (void)source_index, (void)cb_safety, (void)ud;
    reported += (long)count;
}

static void *producer(void *arg) {
    (void)arg;
    for (int64_t i = 0; i < RAISES; i++) {
        MPITEV_RAISE(&ev, &so, NULL, MPITEV_CB_REQUIRE_NONE, &i);
        /* paced to about the drainer's speed, so the ring keeps filling and emptying */
        for (volatile int k = 0; k < (int)(i & 63); k++) {
        }
    }
    atomic_store(&producer_done, 1);
    return NULL;
}

static void *drainer(void *arg) {
    (void)arg;
    time_t t0 = time(NULL);
    for (unsigned i = 0;; i++) {
        if (i & 1) MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        else (void)drain_n(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        if (atomic_load(&producer_done) && delivered + reported >= RAISES) break;
        if ((i & 1023) == 0) nanosleep(&(struct timespec){ 0, 20000 }, NULL); /* the ring fills */
        if (time(NULL) - t0 > 120) break; /* a lost report: the counts are asserted short */
    }
    return NULL;
}

static void a_loss_is_reported_before_the_next_record(void **state) {
    (void)state;
    static const mpitev_element el[] = { { "seq", MPITEV_DTYPE_INT64, 0, MPITEV_ANY_OFFSET } };
    assert_int_equal(mpitev_init(), MPITEV_SUCCESS);
    assert_int_equal(mpitev_source_declare(&so, &(mpitev_source_desc){ .name = "small", .ordering = MPITEV_SOURCE_ORDERED,
                                                                       .buffer_capacity = 16 }),
                     MPITEV_SUCCESS);
    assert_int_equal(mpitev_type_declare(&ev, &(mpitev_type_desc){ .name = "drop_order_ev", .elements = el,
                                                                   .num_elements = 1, .payload_size = sizeof(int64_t) }),
                     MPITEV_SUCCESS);
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", "true" };
    assert_int_equal(mpitev_reg_alloc(tindex(&ev), NULL, &kv, 1, &r), MPITEV_SUCCESS);
    assert_int_equal(mpitev_reg_set_dropped_handler(r, on_dropped), MPITEV_SUCCESS);
    assert_int_equal(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, on_event, NULL, NULL, 0), MPITEV_SUCCESS);

    pthread_t p, d;
    assert_int_equal(pthread_create(&d, NULL, drainer, NULL), 0);
    assert_int_equal(pthread_create(&p, NULL, producer, NULL), 0);
    pthread_join(p, NULL);
    pthread_join(d, NULL);
    printf("delivered %ld, reported dropped %ld\n", delivered, reported);
    assert_int_equal(late_reports, 0);
    assert_int_equal(delivered + reported, RAISES);
    skipped += (long)(RAISES - next_seq); /* the losses after the last delivered record */
    assert_int_equal(skipped, reported);  /* nothing reported lost that was not */
    assert_true(delivered > 0);
    assert_true(reported > 0);
    assert_int_equal(mpitev_reg_free(r, NULL, NULL), MPITEV_SUCCESS);
    assert_int_equal(mpitev_finalize(), MPITEV_SUCCESS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_loss_is_reported_before_the_next_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
