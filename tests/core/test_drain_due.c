/* MPITEV_DRAIN_DUE, MPITEV_ANY_DRAIN_DUE and MPITEV_DRAIN's check: a source is due
 * while records, a drop to report or a free to complete wait for its drain, never
 * skipped then, and not due once a drain has left nothing (registrations that buffer
 * keep MPITEV_ANY_DRAIN_DUE set, not the source's word); nothing is due once every
 * registration is freed and drained. The tests drain with
 * MPITEV_DRAIN (once with its split form, the due check then mpitev_source_drain) and
 * never call mpitev_progress: such a progress engine must still get everything done. */
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
    /* The check and the call split (mpitev_source_drain after MPITEV_DRAIN_DUE, as a
     * progress engine that paces its drains writes it), and MPITEV_DRAIN with a max: the
     * same drain, of at most max records or of all. */
    for (int i = 0; i < 4; i++) MPITEV_RAISE(&ev, &so, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    int n = -1;
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 1);
    OK(mpitev_source_drain(&so, 2, MPITEV_CB_REQUIRE_NONE, &n));
    assert_int_equal(n, 2);
    assert_int_equal(delivered, 7);
    MPITEV_DRAIN(&so, 1, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(delivered, 8);
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 1);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(delivered, 9);
    delivered = 5;
    /* Drained empty: the sources are not due, though the registration buffers (a
     * record makes its source due again); MPITEV_ANY_DRAIN_DUE stays set meanwhile. */
    drain_both();
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    assert_int_equal(MPITEV_DRAIN_DUE(&su), 0);
    assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 1);
    MPITEV_RAISE(&ev, &su, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(MPITEV_DRAIN_DUE(&su), 1);
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    drain_both();
    assert_int_equal(delivered, 6);
    delivered = 5;
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(idle_sources_skip_the_call, setup, core_teardown),
        cmocka_unit_test_setup_teardown(buffered_records_are_drained, setup, core_teardown),
        cmocka_unit_test_setup_teardown(drop_at_immediate_raise_is_reported, setup, core_teardown),
        cmocka_unit_test_setup_teardown(free_from_callback_completes_at_a_drain, setup, core_teardown),
        cmocka_unit_test_setup_teardown(undeclared_source_is_never_due, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
