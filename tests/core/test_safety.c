/* Callback safety selection (MPI-4.1 Table 21 and 16.3.8.4): a raise at level r invokes
 * the callback of the lowest registered level >= r and passes cb_safety == r; with none
 * >= r the instance is dropped. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

static mpitev_type ev;
static mpitev_source src;
static struct pair cur;

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc d = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    mpitev_source_desc s = src_desc("src", MPITEV_SOURCE_ORDERED, NULL);
    return (mpitev_source_declare(&src, &s) || mpitev_type_declare(&ev, &d)) ? -1 : 0;
}

static mpitev_count_t dropped_total;
static int dropped_calls;
static void count_dropped(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)source_index; (void)cb_safety; (void)ud; dropped_total += count;
    dropped_calls++;
}

static void raise_at(int r) { MPITEV_RAISE(&ev, &src, NULL, r, &cur); }

/* Every subset of registered levels against every raise level. */
static void exhaustive_selection(void **state) {
    (void)state;
    for (unsigned mask = 1; mask < (1u << MPITEV_CB_LEVELS); mask++) {
        recorder rec = { 0 };
        rec_ud ud[MPITEV_CB_LEVELS];
        mpitev_reg reg;
        OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &reg));
        OK(mpitev_reg_set_dropped_handler(reg, count_dropped));
        /* Register highest first, as the standard advises. */
        for (int l = MPITEV_CB_LEVELS - 1; l >= 0; l--) {
            ud[l].tag = l;
            ud[l].rec = &rec;
            if (mask & (1u << l)) OK(mpitev_reg_set_callback(reg, l, rec_cb, &ud[l], NULL, 0));
        }
        int expect_drops = 0;
        for (int r = 0; r < MPITEV_CB_LEVELS; r++) {
            int before = rec.n;
            raise_at(r);
            int want = -1;
            for (int l = r; l < MPITEV_CB_LEVELS && want < 0; l++)
                if (mask & (1u << l)) want = l;
            if (want < 0) {
                assert_int_equal(rec.n, before);
                expect_drops++;
            } else {
                assert_int_equal(rec.n, before + 1);
                assert_int_equal(rec.calls[before].tag, want);       /* the lowest level >= r */
                assert_int_equal(rec.calls[before].cb_safety, r);    /* the raise site's level */
                assert_true(rec.calls[before].reg == reg.bits);
            }
        }
        dropped_total = 0;
        dropped_calls = 0;
        OK(mpitev_reg_free(reg, NULL, NULL));
        mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
        /* Undelivered instances were counted and reported by the time the free completed. */
        assert_true(dropped_total == expect_drops);
    }
}

static void replace_and_remove_per_level(void **state) {
    (void)state;
    recorder rec = { 0 };
    rec_ud a = { 'a', &rec }, b = { 'b', &rec }, c = { 'c', &rec };
    mpitev_reg reg;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &reg));
    OK(mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_THREAD_SAFE, rec_cb, &a, NULL, 0));
    OK(mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_NONE, rec_cb, &b, NULL, 0));
    raise_at(MPITEV_CB_REQUIRE_NONE);
    raise_at(MPITEV_CB_REQUIRE_MPI_RESTRICTED);
    assert_int_equal(rec.n, 2);
    assert_int_equal(rec.calls[0].tag, 'b');
    assert_int_equal(rec.calls[1].tag, 'a');
    assert_int_equal(rec.calls[1].cb_safety, MPITEV_CB_REQUIRE_MPI_RESTRICTED);
    /* Replace level NONE: the new user_data, the old one never again. */
    OK(mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_NONE, rec_cb, &c, NULL, 0));
    raise_at(MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(rec.n, 3);
    assert_int_equal(rec.calls[2].tag, 'c');
    /* Remove level NONE: the THREAD_SAFE callback serves it now. */
    OK(mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_NONE, NULL, &c, NULL, 0));
    raise_at(MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(rec.n, 4);
    assert_int_equal(rec.calls[3].tag, 'a');
    assert_int_equal(rec.calls[3].cb_safety, MPITEV_CB_REQUIRE_NONE);
    /* Removing a level that has no callback is harmless. */
    OK(mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, NULL, NULL, NULL, 0));
    raise_at(MPITEV_CB_REQUIRE_THREAD_SAFE);
    assert_int_equal(rec.n, 5);
    assert_int_equal(rec.calls[4].tag, 'a');
    raise_at(MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE); /* dropped */
    assert_int_equal(rec.n, 5);
    /* Add ASYNC_SIGNAL_SAFE later: picked up for that level only. */
    OK(mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, rec_cb, &b, NULL, 0));
    raise_at(MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    raise_at(MPITEV_CB_REQUIRE_THREAD_SAFE);
    assert_int_equal(rec.n, 7);
    assert_int_equal(rec.calls[5].tag, 'b');
    assert_int_equal(rec.calls[6].tag, 'a');
    /* Remove all: nobody listens any more. */
    OK(mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_THREAD_SAFE, NULL, NULL, NULL, 0));
    OK(mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, NULL, NULL, NULL, 0));
    assert_false(MPITEV_ENABLED(&ev));
    for (int r = 0; r < MPITEV_CB_LEVELS; r++) raise_at(r);
    assert_int_equal(rec.n, 7);
}

static void marker_fn(void) {}
static mpitev_fnptr seen_ext;
static int ext_calls;
static void ext_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud, mpitev_fnptr ext) {
    (void)inst; (void)reg; (void)cb_safety; (void)ud;
    seen_ext = ext;
    ext_calls++;
}

/* The opaque ext pointer stored with a callback (adapter-only entry point) comes back
 * untouched, per level as selected. */
static void ext_pointer_passed_back(void **state) {
    (void)state;
    mpitev_reg reg;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &reg));
    OK(mpitev__reg_set_callback_ext(reg, MPITEV_CB_REQUIRE_NONE, ext_cb, NULL, marker_fn, NULL, 0));
    ext_calls = 0;
    raise_at(0);
    assert_int_equal(ext_calls, 1);
    assert_true(seen_ext == marker_fn);
    OK(mpitev__reg_set_callback_ext(reg, MPITEV_CB_REQUIRE_NONE, ext_cb, NULL, NULL, NULL, 0));
    raise_at(0);
    assert_int_equal(ext_calls, 2);
    assert_null(seen_ext);
}

/* Two registrations on the same type, each with its own levels. */
static void two_registrations_select_independently(void **state) {
    (void)state;
    recorder rec = { 0 };
    rec_ud a = { 'a', &rec }, b = { 'b', &rec };
    mpitev_reg ra, rb;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &ra));
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &rb));
    OK(mpitev_reg_set_callback(ra, MPITEV_CB_REQUIRE_MPI_RESTRICTED, rec_cb, &a, NULL, 0));
    OK(mpitev_reg_set_callback(rb, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, rec_cb, &b, NULL, 0));
    raise_at(MPITEV_CB_REQUIRE_THREAD_SAFE); /* only rb can take it */
    assert_int_equal(rec.n, 1);
    assert_int_equal(rec.calls[0].tag, 'b');
    raise_at(MPITEV_CB_REQUIRE_NONE); /* both */
    assert_int_equal(rec.n, 3);
    assert_int_not_equal(rec.calls[1].tag, rec.calls[2].tag);
    assert_int_equal(rec.calls[1].cb_safety, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(rec.calls[2].cb_safety, MPITEV_CB_REQUIRE_NONE);
}

static void invalid_levels_rejected(void **state) {
    (void)state;
    recorder rec = { 0 };
    rec_ud u = { 1, &rec };
    mpitev_reg reg;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &reg));
    assert_int_equal(mpitev_reg_set_callback(reg, -1, rec_cb, &u, NULL, 0), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_set_callback(reg, MPITEV_CB_LEVELS, rec_cb, &u, NULL, 0), MPITEV_ERR_INVALID_ARG);
    assert_false(MPITEV_ENABLED(&ev)); /* nothing was registered */
    assert_int_equal(mpitev_reg_callback_set_info(reg, -1, NULL, 0), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_callback_set_info(reg, MPITEV_CB_LEVELS, NULL, 0), MPITEV_ERR_INVALID_ARG);
    OK(mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, rec_cb, &u, NULL, 0));
    /* A raise site passing an out-of-range level is treated as the strictest. */
    MPITEV_RAISE(&ev, &src, NULL, 99, &cur);
    assert_int_equal(rec.n, 1);
    assert_int_equal(rec.calls[0].cb_safety, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(exhaustive_selection, setup, core_teardown),
        cmocka_unit_test_setup_teardown(replace_and_remove_per_level, setup, core_teardown),
        cmocka_unit_test_setup_teardown(ext_pointer_passed_back, setup, core_teardown),
        cmocka_unit_test_setup_teardown(two_registrations_select_independently, setup, core_teardown),
        cmocka_unit_test_setup_teardown(invalid_levels_rejected, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
