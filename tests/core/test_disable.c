/* MPITEV_DISABLE (mpitev.h, COMPILE-TIME OPTIONS): raise sites, MPITEV_ENABLED and
 * MPITEV_DRAIN compile to nothing (no argument evaluated, nothing delivered or buffered,
 * even with a tool registered), while declarations, queries and registrations work as
 * usual. test_disable_nolink.c proves that a disabled raise site references no symbol.
 * Built with -DMPITEV_DISABLE (tests/core/CMakeLists.txt). */
#ifndef MPITEV_DISABLE
#error "test_disable.c is built with -DMPITEV_DISABLE"
#endif
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

#define DIS_FIELDS(X) X(int32_t, a, MPITEV_DTYPE_INT32) X(int64_t, b, MPITEV_DTYPE_INT64)
MPITEV_EVENT_TYPE(dis_ev, DIS_FIELDS)
MPITEV_EVENT_TYPE_EMPTY(dis_empty)
MPITEV_EVENT_DEFINE(dis_ev)
MPITEV_EVENT_DEFINE(dis_empty)

static mpitev_type ev_pair;
static mpitev_source src_imm, src_buf;
static int n_eval;  /* arguments evaluated */
static int n_cb;    /* callbacks run */

/* Marked unused: under MPITEV_DISABLE a static function that appears only in raise
 * arguments is never called, and clang says so (-Wunneeded-internal-declaration). */
#define UNUSED __attribute__((unused))
UNUSED static int count(int v) { n_eval++; return v; }
UNUSED static const void *count_ptr(const void *p) { n_eval++; return p; }
UNUSED static mpitev_source *count_src(mpitev_source *s) { n_eval++; return s; }
static void cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) { (void)i, (void)r, (void)s, (void)u; n_cb++; }

static int setup(void **state) {
    if (core_setup(state)) return -1;
    n_eval = n_cb = 0;
    mpitev_source_desc si = src_desc("dis_immediate", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc sb = src_desc("dis_buffered", MPITEV_SOURCE_ORDERED, NULL);
    sb.buffered_by_default = 1;
    mpitev_type_desc p = pair_desc("dis_pair", MPITEV_BIND_NO_OBJECT);
    if (mpitev_source_declare(&src_imm, &si) || mpitev_source_declare(&src_buf, &sb) ||
        mpitev_type_declare(&ev_pair, &p) ||
        dis_ev_declare((mpitev_type_desc){ .verbosity = MPITEV_VERBOSITY_USER_BASIC }) ||
        dis_empty_declare((mpitev_type_desc){ .verbosity = MPITEV_VERBOSITY_USER_BASIC }))
        return -1;
    return 0;
}

/* A tool's registration with a callback on every type: with events compiled in, each
 * raise below would deliver or buffer. */
static void register_all(mpitev_reg regs[3]) {
    const mpitev_type *t[3] = { &ev_pair, &dis_ev_type, &dis_empty_type };
    for (int i = 0; i < 3; i++) {
        OK(mpitev_reg_alloc(tindex(t[i]), NULL, NULL, 0, &regs[i]));
        OK(mpitev_reg_set_callback(regs[i], MPITEV_CB_REQUIRE_NONE, cb, NULL, NULL, 0));
    }
}

static void raise_all(void) {
    struct pair v = { 1, 2 };
    for (int k = 0; k < 2; k++) {
        mpitev_source *s = k ? &src_buf : &src_imm;
        MPITEV_RAISE(&ev_pair, count_src(s), count_ptr(NULL), count(MPITEV_CB_REQUIRE_NONE),
                     count_ptr(&v));
        MPITEV_RAISE(&ev_pair, s, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ count(3), count(4) });
        MPITEV_RAISE_EVENT(dis_ev, count_src(s), count_ptr(NULL), count(MPITEV_CB_REQUIRE_NONE),
                           count(5), count(6));
        MPITEV_RAISE_EVENT_EMPTY(dis_empty, count_src(s), count_ptr(NULL), count(MPITEV_CB_REQUIRE_NONE));
        if (MPITEV_ENABLED(&ev_pair)) count(0);
        if (MPITEV_ENABLED(&dis_ev_type)) count(0);
        if (MPITEV_DRAIN_DUE(count_src(s))) count(0);
        if (MPITEV_ANY_DRAIN_DUE()) count(0);
    }
}

static void nothing_evaluated_or_delivered(void **state) {
    (void)state;
    raise_all(); /* nobody listens */
    mpitev_reg regs[3];
    register_all(regs);
    assert_false(MPITEV_ENABLED(&ev_pair));
    assert_false(MPITEV_ENABLED(&dis_empty_type));
    raise_all(); /* a tool listens: still nothing */
    MPITEV_DRAIN(count_src(&src_buf), count(MPITEV_DRAIN_ALL), count(MPITEV_CB_REQUIRE_NONE));
    assert_false(MPITEV_ANY_DRAIN_DUE());
    assert_int_equal(n_eval, 0);
    assert_int_equal(n_cb, 0);
    /* the out-of-line drain is still a function: nothing was buffered */
    assert_int_equal(drain_n(&src_buf, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE), 0);
    assert_int_equal(drain_n(&src_imm, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE), 0);
    assert_int_equal(n_cb, 0);
    for (int i = 0; i < 3; i++) OK(mpitev_reg_free(regs[i], NULL, NULL));
}

/* What a tool sees is unchanged: the types, their layouts, the sources. */
static void declarations_and_queries_work(void **state) {
    (void)state;
    int n = 0, idx = -1;
    OK(mpitev_type_get_num(&n));
    assert_true(n >= 3);
    OK(mpitev_type_get_index("dis_ev", &idx));
    assert_int_equal(idx, tindex(&dis_ev_type));
    mpitev_type_info ti;
    OK(mpitev_type_get_info(idx, &ti));
    assert_string_equal(ti.name, "dis_ev");
    assert_int_equal(ti.num_elements, 2);
    OK(mpitev_source_get_num(&n));
    assert_int_equal(n, 2);
    mpitev_source_info si;
    OK(mpitev_source_get_info(sindex(&src_buf), &si));
    assert_string_equal(si.name, "dis_buffered");
    /* declaring again with the same descriptor is the usual no-op */
    OK(dis_ev_declare((mpitev_type_desc){ .verbosity = MPITEV_VERBOSITY_USER_BASIC }));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(nothing_evaluated_or_delivered, setup, core_teardown),
        cmocka_unit_test_setup_teardown(declarations_and_queries_work, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
