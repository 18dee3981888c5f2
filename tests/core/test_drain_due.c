/* MPITEV_DRAIN's inline check (raise.inc) and the drain_due word behind it
 * (impl_drain.inc): the drain is skipped exactly when it has nothing to do, and never
 * when it has something (records, a drop to report, a free to complete). Every test
 * drains with MPITEV_DRAIN only: a progress engine that never calls mpitev_progress
 * must still get everything done. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

static mpitev_type ev;
static mpitev_source so, su;
static struct pair cur;

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc d = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    mpitev_source_desc a = src_desc("so", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc b = src_desc("su", MPITEV_SOURCE_UNORDERED, NULL);
    return (mpitev_source_declare(&so, &a) || mpitev_source_declare(&su, &b) || mpitev_type_declare(&ev, &d)) ? -1
                                                                                                             : 0;
}

static int delivered, dropped, freed;
static void count_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst; (void)reg; (void)cb_safety; (void)ud;
    delivered++;
}
static void count_dropped(mpitev_count_t n, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)source_index; (void)cb_safety; (void)ud;
    dropped += (int)n;
}
static void count_free(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud;
    freed++;
}

static void drain_both(void) {
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    MPITEV_DRAIN(&su, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
}

static mpitev_reg make_reg(const char *buffered, int level) {
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", buffered };
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, level, count_cb, NULL, NULL, 0));
    OK(mpitev_reg_set_dropped_handler(r, count_dropped));
    return r;
}

/* With no registration, or only registrations delivered at once, the drain call is
 * skipped after the first look (the fast path: a load and a branch). */
static void idle_sources_skip_the_call(void **state) {
    (void)state;
    drain_both();
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    assert_int_equal(MPITEV_DRAIN_DUE(&su), 0);
    mpitev_reg r = make_reg("false", MPITEV_CB_REQUIRE_NONE);
    /* The registry changed (sets retired): one drain completes that work... */
    drain_both();
    drain_both();
    /* ...and then nothing is due: immediate delivery needs no drain. */
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    assert_int_equal(MPITEV_DRAIN_DUE(&su), 0);
    assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 0);
    delivered = 0;
    MPITEV_RAISE(&ev, &so, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(delivered, 1);
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    OK(mpitev_reg_free(r, NULL, NULL));
    /* A NULL source is no call and no crash. */
    MPITEV_DRAIN((mpitev_source *)NULL, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(MPITEV_DRAIN_DUE((mpitev_source *)NULL), 0);
}

/* A buffering registration makes the drains due; its records are delivered by
 * MPITEV_DRAIN; after its free completes, the sources go idle again. */
static void buffered_records_are_drained(void **state) {
    (void)state;
    delivered = dropped = freed = 0;
    mpitev_reg r = make_reg("true", MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 1);
    assert_int_equal(MPITEV_DRAIN_DUE(&su), 1);
    assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 1);
    for (int i = 0; i < 3; i++) MPITEV_RAISE(&ev, &so, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    for (int i = 0; i < 2; i++) MPITEV_RAISE(&ev, &su, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(delivered, 0);
    drain_both();
    assert_int_equal(delivered, 5);
    /* The check and the call split (MPITEV_DRAIN_CHECKED after MPITEV_DRAIN_DUE): the
     * same drain, of all or of at most max records. */
    for (int i = 0; i < 3; i++) MPITEV_RAISE(&ev, &so, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    if (MPITEV_DRAIN_DUE(&so)) MPITEV_DRAIN_CHECKED(&so, 2, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(delivered, 7);
    if (MPITEV_DRAIN_DUE(&so)) MPITEV_DRAIN_CHECKED(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(delivered, 8);
    delivered = 5;
    /* Still due while the registration buffers (records may come any time). */
    drain_both();
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 1);
    /* Records left at the free: the drain discards them (counted, reported before the
     * free callback) and completes the free, without any mpitev_progress call. */
    MPITEV_RAISE(&ev, &so, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    OK(mpitev_reg_free(r, NULL, count_free));
    for (int i = 0; i < 4 && freed == 0; i++) drain_both();
    assert_int_equal(freed, 1);
    assert_int_equal(dropped, 1);
    assert_int_equal(delivered, 5);
    drain_both();
    drain_both();
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    assert_int_equal(MPITEV_DRAIN_DUE(&su), 0);
    assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 0);
}

/* A drop counted at an immediate raise (no callback safe at the raise's level) makes
 * that source's drain due, so the report does not wait for the next instance. */
static void drop_at_immediate_raise_is_reported(void **state) {
    (void)state;
    delivered = dropped = 0;
    mpitev_reg r = make_reg("false", MPITEV_CB_REQUIRE_THREAD_SAFE);
    drain_both();
    drain_both();
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 0);
    MPITEV_RAISE(&ev, &so, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur); /* no safe callback: dropped */
    assert_int_equal(delivered, 0);
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 1);
    assert_int_equal(MPITEV_DRAIN_DUE(&su), 0);
    assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 1); /* set by the raise that counted the drop */
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(dropped, 1);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 0); /* the last due source went idle */
    OK(mpitev_reg_free(r, NULL, NULL));
}

/* A registration freed from inside a delivery completes later: by the next drain. */
static mpitev_reg self_reg;
static void free_self_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst; (void)cb_safety; (void)ud;
    delivered++;
    assert_int_equal(reg.bits, self_reg.bits);
    OK(mpitev_reg_free(reg, NULL, count_free));
}
static void free_from_callback_completes_at_a_drain(void **state) {
    (void)state;
    delivered = freed = 0;
    mpitev_kv kv = { "mpitev_buffered", "true" };
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &kv, 1, &self_reg));
    OK(mpitev_reg_set_callback(self_reg, MPITEV_CB_REQUIRE_NONE, free_self_cb, NULL, NULL, 0));
    MPITEV_RAISE(&ev, &so, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(delivered, 1);
    for (int i = 0; i < 4 && freed == 0; i++) MPITEV_DRAIN(&su, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(freed, 1);
    drain_both();
    drain_both();
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    assert_int_equal(MPITEV_DRAIN_DUE(&su), 0);
}

/* A source that is never declared never has a drain due, whatever the registry does: a
 * progress engine may point its drain check at such a source when it must not drain (the
 * MPICH integration does, under MPI_THREAD_MULTIPLE) and so skip a NULL test. */
static mpitev_source never_declared;
static void undeclared_source_is_never_due(void **state) {
    (void)state;
    delivered = 0;
    mpitev_reg r = make_reg("true", MPITEV_CB_REQUIRE_NONE); /* makes every declared source due */
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 1);
    assert_int_equal(MPITEV_DRAIN_DUE(&never_declared), 0);
    assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 1);
    MPITEV_RAISE(&ev, &so, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    MPITEV_DRAIN(&never_declared, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE); /* no call, no crash */
    assert_int_equal(delivered, 0);
    OK(mpitev_reg_free(r, NULL, NULL));
    for (int i = 0; i < 4; i++) drain_both();
    assert_int_equal(MPITEV_DRAIN_DUE(&never_declared), 0);
    assert_int_equal(mpitev_source_drain(&never_declared, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL),
                     MPITEV_ERR_INVALID_ARG);
}

/* MPITEV_DRAIN_PACED (raise.inc): records and due polls spend a budget of a quarter of
 * the ring (a record 1, a poll the budget / MPITEV_PACE_POLLS, rounded up, the calling
 * poll included), and a due poll calls the drain when it is spent: every
 * MPITEV_PACE_POLLS-th due poll while nothing comes, at once when a quarter of the ring
 * waits. An unordered source is not paced; a source that is not due costs no state
 * change. Nothing is lost either way: what the paced polls leave, a plain drain delivers. */
static mpitev_source sp;
static void paced(mpitev_source *s, int polls) {
    for (int i = 0; i < polls; i++) MPITEV_DRAIN_PACED(s, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
}
static void raise_n(mpitev_source *s, int n) {
    for (int i = 0; i < n; i++) MPITEV_RAISE(&ev, s, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
}
static void paced_drain_spends_a_budget(void **state) {
    (void)state;
    enum { CAP = 1024, BUDGET = CAP / 4, STEP = (BUDGET + MPITEV_PACE_POLLS - 1) / MPITEV_PACE_POLLS };
    mpitev_source_desc d = src_desc("sp", MPITEV_SOURCE_ORDERED, NULL);
    d.buffer_capacity = CAP;
    OK(mpitev_source_declare(&sp, &d));
    delivered = 0;
    /* Not due (nobody listens): the paced check is the plain one, and counts nothing. */
    for (int i = 0; i < 4; i++) MPITEV_DRAIN(&sp, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(MPITEV_DRAIN_DUE(&sp), 0);
    uint64_t limit = atomic_load(&sp.mpitev__pace_limit);
    assert_int_equal(MPITEV_DRAIN_PACED_DUE(&sp), 0);
    assert_true(atomic_load(&sp.mpitev__pace_limit) == limit);

    mpitev_reg r = make_reg("true", MPITEV_CB_REQUIRE_NONE);
    /* The first due poll calls (the limit starts at the tail); the next
     * MPITEV_PACE_POLLS - 1 spend the budget, so the one after them calls again: one
     * record, delivered there. */
    paced(&sp, MPITEV_PACE_POLLS);
    raise_n(&sp, 1);
    paced(&sp, 1);
    assert_int_equal(delivered, 1);
    raise_n(&sp, 1);
    paced(&sp, MPITEV_PACE_POLLS - 1);
    assert_int_equal(delivered, 1);
    paced(&sp, 1);
    assert_int_equal(delivered, 2);
    /* Records spend it too: with BUDGET - 2 * STEP + 1 records waiting, a poll (its step
     * included) is one short; one more record and the next poll calls at once. */
    int n = BUDGET - 2 * STEP + 1;
    raise_n(&sp, n);
    paced(&sp, 1);
    assert_int_equal(delivered, 2);
    raise_n(&sp, 1);
    paced(&sp, 1);
    assert_int_equal(delivered, 2 + n + 1);
    int want = delivered;
    /* A quarter of the ring waiting: the next due poll delivers whatever the poll count. */
    raise_n(&sp, BUDGET);
    paced(&sp, 1);
    assert_int_equal(delivered, want + BUDGET);
    want = delivered;
    /* What paced polls leave, the plain drain (an MPI call's exit) delivers. */
    raise_n(&sp, 1);
    paced(&sp, 3);
    assert_int_equal(delivered, want);
    MPITEV_DRAIN(&sp, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(delivered, ++want);
    /* An unordered source is not paced: every due poll drains. */
    paced(&su, 1);
    for (int i = 0; i < 3; i++) {
        raise_n(&su, 1);
        paced(&su, 1);
        assert_int_equal(delivered, ++want);
    }
    /* The split form: the test, then the call; MPITEV_PACE_POLLS polls call once. */
    raise_n(&sp, 1);
    int calls = 0;
    for (int i = 0; i < MPITEV_PACE_POLLS; i++)
        if (MPITEV_DRAIN_PACED_DUE(&sp)) {
            calls++;
            MPITEV_DRAIN_CHECKED(&sp, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        }
    assert_int_equal(calls, 1);
    assert_int_equal(delivered, ++want);
    OK(mpitev_reg_free(r, NULL, NULL));
    paced(&sp, 4 * MPITEV_PACE_POLLS); /* completes the free */
    drain_both();
    assert_int_equal(delivered, want);
}

/* A ring whose quarter is smaller than MPITEV_PACE_POLLS: a poll spends 1, so the drain is
 * called every (capacity / 4)-th due poll, sooner than the option's bound. */
static mpitev_source ss;
static void paced_small_ring_calls_sooner(void **state) {
    (void)state;
    enum { CAP = 64, BUDGET = CAP / 4 };
    mpitev_source_desc d = src_desc("ss", MPITEV_SOURCE_ORDERED, NULL);
    d.buffer_capacity = CAP;
    OK(mpitev_source_declare(&ss, &d));
    delivered = 0;
    mpitev_reg r = make_reg("true", MPITEV_CB_REQUIRE_NONE);
    paced(&ss, 1); /* the first due poll calls */
    int calls = 0;
    for (int i = 0; i < 4 * BUDGET; i++) {
        if (MPITEV_DRAIN_PACED_DUE(&ss)) calls++;
    }
    assert_int_equal(calls, BUDGET < MPITEV_PACE_POLLS ? 4 : 4 * BUDGET / MPITEV_PACE_POLLS);
    OK(mpitev_reg_free(r, NULL, NULL));
    for (int i = 0; i < 4 * MPITEV_PACE_POLLS; i++) MPITEV_DRAIN(&ss, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(delivered, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(idle_sources_skip_the_call, setup, core_teardown),
        cmocka_unit_test_setup_teardown(buffered_records_are_drained, setup, core_teardown),
        cmocka_unit_test_setup_teardown(drop_at_immediate_raise_is_reported, setup, core_teardown),
        cmocka_unit_test_setup_teardown(free_from_callback_completes_at_a_drain, setup, core_teardown),
        cmocka_unit_test_setup_teardown(undeclared_source_is_never_due, setup, core_teardown),
        cmocka_unit_test_setup_teardown(paced_drain_spends_a_budget, setup, core_teardown),
        cmocka_unit_test_setup_teardown(paced_small_ring_calls_sooner, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
