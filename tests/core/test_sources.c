/* Event sources: declaration, ordering, clocks, ad-hoc timestamps.
 *
 * Declarations live for the process, so every test declares sources of its own (static,
 * names no other test uses) and computes indices from n0, the number of sources declared
 * when it starts; whatever a source's clock points to is static too. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"
#include <time.h>

static int nsources(void) {
    int n = -1;
    OK(mpitev_source_get_num(&n));
    return n;
}

static void declare_and_info(void **state) {
    (void)state;
    static mpitev_source s0, s1;
    int n = -1, n0 = nsources();
    assert_int_equal(mpitev_source_index_of(&s0, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    mpitev_source_desc d = src_desc("main", MPITEV_SOURCE_ORDERED, NULL);
    d.desc = "main thread";
    OK(mpitev_source_declare(&s0, &d));
    mpitev_source_desc d1 = src_desc("progress", MPITEV_SOURCE_UNORDERED, NULL);
    OK(mpitev_source_declare(&s1, &d1));
    assert_int_equal(sindex(&s0), n0);
    assert_int_equal(sindex(&s1), n0 + 1);
    OK(mpitev_source_get_num(&n));
    assert_int_equal(n, n0 + 2);
    mpitev_source_info info;
    OK(mpitev_source_get_info(n0, &info));
    assert_string_equal(info.name, "main");
    assert_string_equal(info.desc, "main thread");
    assert_int_equal(info.ordering, MPITEV_SOURCE_ORDERED);
    assert_true(info.ticks_per_second == 1000000000);
    assert_true(info.max_ticks > 0);
    assert_int_equal(info.has_now, 1);
    OK(mpitev_source_get_info(n0 + 1, &info));
    assert_string_equal(info.name, "progress");
    assert_non_null(info.desc);
    assert_string_equal(info.desc, "");
    assert_int_equal(info.ordering, MPITEV_SOURCE_UNORDERED);
    assert_int_equal(mpitev_source_get_info(n0 + 2, &info), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_source_get_info(-1, &info), MPITEV_ERR_INVALID_INDEX);
}

static void default_clock_is_monotonic_ns(void **state) {
    (void)state;
    static mpitev_source s0;
    mpitev_source_desc d = src_desc("main_clock", MPITEV_SOURCE_ORDERED, NULL);
    OK(mpitev_source_declare(&s0, &d));
    int i0 = sindex(&s0);
    const mpitev_clock *m = mpitev_clock_monotonic();
    assert_non_null(m);
    assert_non_null(m->now);
    assert_true(m->ticks_per_second == 1000000000);
    int64_t a = 0, b = 0;
    struct timespec ts;
    OK(mpitev_source_get_timestamp(i0, &a));
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t ref = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    OK(mpitev_source_get_timestamp(i0, &b));
    assert_true(a <= ref);
    assert_true(ref <= b);
    assert_true(b - a < 1000000000); /* same clock, nanoseconds */
}

static void custom_clock(void **state) {
    (void)state;
    static mpitev_source s0;
    static test_clock tc = { 1234, 0 }; /* the source keeps the context for the process */
    mpitev_clock clk = { test_clock_now, &tc, 1000, 999999, NULL };
    mpitev_source_desc d = src_desc("custom", MPITEV_SOURCE_ORDERED, &clk);
    OK(mpitev_source_declare(&s0, &d));
    int i0 = sindex(&s0);
    clk.ticks_per_second = 7; /* the desc's clock is copied */
    mpitev_source_info info;
    OK(mpitev_source_get_info(i0, &info));
    assert_true(info.ticks_per_second == 1000);
    assert_true(info.max_ticks == 999999);
    assert_int_equal(info.has_now, 1);
    int64_t t = 0;
    OK(mpitev_source_get_timestamp(i0, &t));
    assert_true(t == 1234);
    assert_int_equal(tc.calls, 1);
    tc.value = 5;
    OK(mpitev_source_get_timestamp(i0, &t));
    assert_true(t == 5); /* ad-hoc timestamps are the clock's value */
}

/* A clock with a rate function (mpitev_clock.rate): ticks_per_second 0 is accepted, the
 * rate is asked when a tool asks for the source's info, never at the declaration nor on
 * a raise; a declaration again must give the same rate. The clock's ctx goes to both. */
typedef struct lazy_clock {
    test_clock tc; /* first: test_clock_now reads the ctx as a test_clock */
    int rate_calls;
} lazy_clock;
static int64_t test_rate(void *ctx) {
    ((lazy_clock *)ctx)->rate_calls++;
    return 2500;
}
static int64_t other_rate(void *ctx) {
    (void)ctx;
    return 1;
}
static void lazy_rate_clock(void **state) {
    (void)state;
    static mpitev_source s0;
    static mpitev_type t0;
    static lazy_clock lc = { { 10, 0 }, 0 };
    mpitev_clock clk = { test_clock_now, &lc, 0, 1000, NULL };
    mpitev_source_desc d = src_desc("lazy", MPITEV_SOURCE_ORDERED, &clk);
    assert_int_equal(mpitev_source_declare(&s0, &d), MPITEV_ERR_INVALID_ARG); /* 0, no rate */
    clk.rate = test_rate;
    clk.ticks_per_second = -1;
    assert_int_equal(mpitev_source_declare(&s0, &d), MPITEV_ERR_INVALID_ARG); /* < 0 even with rate */
    clk.ticks_per_second = 0;
    OK(mpitev_source_declare(&s0, &d));
    OK(mpitev_source_declare(&s0, &d)); /* the same again: a no-op */
    clk.rate = other_rate;
    assert_int_equal(mpitev_source_declare(&s0, &d), MPITEV_ERR_INVALID_ARG);
    mpitev_type_desc td = { .name = "lazy_t" };
    OK(mpitev_type_declare(&t0, &td));
    recorder rec = { 0 };
    rec_ud ud = { 1, &rec };
    mpitev_reg r = rec_listen(&t0, &ud);
    MPITEV_RAISE(&t0, &s0, NULL, MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(rec.n, 1);
    assert_true(rec.calls[0].ts == 10); /* the clock's now() was read */
    assert_int_equal(lc.rate_calls, 0);
    mpitev_source_info info;
    OK(mpitev_source_get_info(sindex(&s0), &info));
    assert_true(info.ticks_per_second == 2500);
    assert_true(info.max_ticks == 1000);
    assert_int_equal(lc.rate_calls, 1);
    OK(mpitev_source_get_info(sindex(&s0), &info));
    assert_true(info.ticks_per_second == 2500);
    assert_int_equal(lc.rate_calls, 2); /* asked each time: the clock keeps its value */
    OK(mpitev_reg_free(r, NULL, NULL));
}

static void no_now_not_supported(void **state) {
    (void)state;
    static mpitev_source s0;
    mpitev_clock clk = { NULL, NULL, 1000, 1000, NULL };
    mpitev_source_desc d = src_desc("nonow", MPITEV_SOURCE_UNORDERED, &clk);
    OK(mpitev_source_declare(&s0, &d));
    int i0 = sindex(&s0);
    mpitev_source_info info;
    OK(mpitev_source_get_info(i0, &info));
    assert_int_equal(info.has_now, 0);
    int64_t t = 77;
    assert_int_equal(mpitev_source_get_timestamp(i0, &t), MPITEV_ERR_NOT_SUPPORTED);
    assert_true(t == 77);
    assert_int_equal(mpitev_source_get_timestamp(i0 + 1, &t), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_source_get_timestamp(-1, &t), MPITEV_ERR_INVALID_INDEX);
}

static void bad_clock_and_ordering(void **state) {
    (void)state;
    static mpitev_source s0;
    static test_clock tc = { 0, 0 };
    int n0 = nsources();
    mpitev_clock clk = { test_clock_now, &tc, 0, 100, NULL };
    mpitev_source_desc d = src_desc("bad", MPITEV_SOURCE_ORDERED, &clk);
    assert_int_equal(mpitev_source_declare(&s0, &d), MPITEV_ERR_INVALID_ARG);
    clk.ticks_per_second = -1;
    assert_int_equal(mpitev_source_declare(&s0, &d), MPITEV_ERR_INVALID_ARG);
    clk.ticks_per_second = 10;
    clk.max_ticks = 0;
    assert_int_equal(mpitev_source_declare(&s0, &d), MPITEV_ERR_INVALID_ARG);
    clk.max_ticks = 10;
    d.ordering = 2;
    assert_int_equal(mpitev_source_declare(&s0, &d), MPITEV_ERR_INVALID_ARG);
    d.ordering = -1;
    assert_int_equal(mpitev_source_declare(&s0, &d), MPITEV_ERR_INVALID_ARG);
    d.ordering = MPITEV_SOURCE_ORDERED;
    d.name = "";
    assert_int_equal(mpitev_source_declare(&s0, &d), MPITEV_ERR_INVALID_NAME);
    d.name = NULL;
    assert_int_equal(mpitev_source_declare(&s0, &d), MPITEV_ERR_INVALID_NAME);
    assert_int_equal(nsources(), n0);
    assert_int_equal(mpitev_source_index_of(&s0, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    d.name = "fine";
    OK(mpitev_source_declare(&s0, &d));
    assert_int_equal(sindex(&s0), n0);
}

static void duplicates(void **state) {
    (void)state;
    static mpitev_source s0, s1, s2;
    int n0 = nsources();
    mpitev_source_desc d = src_desc("one", MPITEV_SOURCE_ORDERED, NULL);
    OK(mpitev_source_declare(&s0, &d));
    char name[] = "one";
    mpitev_source_desc d2 = src_desc(name, MPITEV_SOURCE_UNORDERED, NULL);
    assert_int_equal(mpitev_source_declare(&s1, &d2), MPITEV_ERR_INVALID_NAME);
    mpitev_source_desc d3 = src_desc("three", MPITEV_SOURCE_UNORDERED, NULL);
    assert_int_equal(mpitev_source_declare(&s0, &d3), MPITEV_ERR_INVALID_ARG); /* same object */
    assert_int_equal(nsources(), n0 + 1);
    mpitev_source_info info;
    OK(mpitev_source_get_info(n0, &info));
    assert_string_equal(info.name, "one");
    assert_int_equal(info.ordering, MPITEV_SOURCE_ORDERED); /* not overwritten */
    OK(mpitev_source_declare(&s1, &d3));
    OK(mpitev_source_declare(&s2, &(mpitev_source_desc){ .name = "four" }));
    assert_int_equal(sindex(&s1), n0 + 1);
    assert_int_equal(sindex(&s2), n0 + 2);
    assert_int_equal(sindex(&s0), n0);
}

/* Fills the table for the rest of the process: the last test of this file. */
static void too_many_sources(void **state) {
    (void)state;
    static mpitev_source many[MPITEV_MAX_SOURCES + 1];
    static char names[MPITEV_MAX_SOURCES + 1][16];
    for (int i = nsources(); i < MPITEV_MAX_SOURCES; i++) {
        snprintf(names[i], sizeof names[i], "s%d", i);
        mpitev_source_desc d = src_desc(names[i], MPITEV_SOURCE_UNORDERED, NULL);
        OK(mpitev_source_declare(&many[i], &d));
        assert_int_equal(sindex(&many[i]), i);
    }
    mpitev_source_desc d = src_desc("overflow", MPITEV_SOURCE_UNORDERED, NULL);
    assert_int_equal(mpitev_source_declare(&many[MPITEV_MAX_SOURCES], &d), MPITEV_ERR_LIMIT);
    int n;
    OK(mpitev_source_get_num(&n));
    assert_int_equal(n, MPITEV_MAX_SOURCES);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(declare_and_info, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(default_clock_is_monotonic_ns, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(custom_clock, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(lazy_rate_clock, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(no_now_not_supported, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(bad_clock_and_ordering, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(duplicates, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(too_many_sources, core_setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
