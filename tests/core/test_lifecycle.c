/* Lifecycle: not initialised, reference counting, finalize, re-init. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

static mpitev_type ev;
static mpitev_source src;
static struct pair cur;

static int visit(const char *k, const char *v, void *c) { (void)k; (void)v; (void)c; return 0; }
static void cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s; (void)u; }
static void dropped(mpitev_count_t c, mpitev_reg r, int si, int s, void *u) {
    (void)c; (void)r; (void)si; (void)s; (void)u; }

/* Every function, with otherwise valid arguments, reports NOT_INITIALIZED. */
static void assert_everything_uninitialized(mpitev_reg some_reg) {
    static mpitev_type t;
    static mpitev_source s;
    memset(&t, 0, sizeof t);
    memset(&s, 0, sizeof s);
    mpitev_type_desc td = pair_desc("uninit", MPITEV_BIND_NO_OBJECT);
    mpitev_source_desc sd = src_desc("uninit", MPITEV_SOURCE_ORDERED, NULL);
    int n = -7, idx = -7;
    int64_t ts = -7;
    const char *name = NULL;
    mpitev_type_info ti;
    mpitev_source_info si;
    mpitev_reg r = MPITEV_REG_NULL;
    mpitev_kv kv = { "k", "v" };
    assert_int_equal(is_initialized(), 0);
    assert_int_equal(mpitev_finalize(), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_source_declare(&s, &sd), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_type_declare(&t, &td), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_type_index_of(&t, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_source_index_of(&s, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_type_get_num(&n), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_type_get_info(0, &ti), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_type_get_index("ev", &idx), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_source_get_num(&n), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_source_get_info(0, &si), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_source_get_timestamp(0, &ts), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_category_get_num(&n), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_category_get_name(0, &name), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_category_get_events(0, 1, &idx, &n), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_reg_alloc(0, NULL, &kv, 1, &r), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_reg_set_info(some_reg, &kv, 1), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_reg_get_info(some_reg, visit, NULL), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_reg_set_callback(some_reg, 0, cb, NULL, NULL, 0), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_reg_callback_set_info(some_reg, 0, &kv, 1), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_reg_callback_get_info(some_reg, 0, visit, NULL), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_reg_set_dropped_handler(some_reg, dropped), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_reg_free(some_reg, NULL, NULL), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_reg_get_type(some_reg, &idx), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_reg_check(some_reg), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(progress_n(MPITEV_CB_REQUIRE_NONE), 0);
    assert_non_null(mpitev_clock_monotonic()); /* a constant: usable any time */
    /* Outputs untouched. */
    assert_int_equal(n, -7);
    assert_int_equal(idx, -7);
    assert_true(ts == -7);
    assert_null(name);
    assert_true(r.bits == 0);
    /* A raise on storage never declared does nothing. */
    MPITEV_RAISE(&t, &s, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
}

static void before_init(void **state) {
    (void)state;
    mpitev_reg fake = { (UINT64_C(1) << 32) | 1u };
    assert_everything_uninitialized(fake);
}

static void refcounted(void **state) {
    (void)state;
    OK(mpitev_init());
    OK(mpitev_init());
    assert_int_equal(is_initialized(), 1);
    mpitev_source_desc sd = src_desc("src", MPITEV_SOURCE_ORDERED, NULL);
    OK(mpitev_source_declare(&src, &sd));
    mpitev_type_desc td = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
    mpitev_reg r;
    OK(mpitev_reg_alloc(0, NULL, NULL, 0, &r));
    OK(mpitev_finalize()); /* inner: everything stays */
    assert_int_equal(is_initialized(), 1);
    OK(mpitev_reg_check(r));
    int n;
    OK(mpitev_type_get_num(&n));
    assert_int_equal(n, 1);
    assert_int_equal(tindex(&ev), 0);
    OK(mpitev_finalize()); /* last */
    assert_int_equal(is_initialized(), 0);
    assert_int_equal(mpitev_type_index_of(&ev, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_source_index_of(&src, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    assert_everything_uninitialized(r);
    assert_int_equal(mpitev_finalize(), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(is_initialized(), 0);
}

static int delivered;
static void count_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s; (void)u; delivered++;
}

static void reinit_redeclare(void **state) {
    (void)state;
    for (int round = 0; round < 3; round++) {
        OK(mpitev_init());
        int n = -1;
        OK(mpitev_type_get_num(&n));
        assert_int_equal(n, 0);
        OK(mpitev_source_get_num(&n));
        assert_int_equal(n, 0);
        mpitev_source_desc sd = src_desc("src", MPITEV_SOURCE_ORDERED, NULL);
        OK(mpitev_source_declare(&src, &sd)); /* the same storage and names again */
        mpitev_type_desc td = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
        td.category = "cat";
        OK(mpitev_type_declare(&ev, &td));
        assert_int_equal(tindex(&ev), 0);
        assert_int_equal(sindex(&src), 0);
        OK(mpitev_category_get_num(&n));
        assert_int_equal(n, 1);
        mpitev_reg r;
        OK(mpitev_reg_alloc(0, NULL, NULL, 0, &r));
        OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, count_cb, NULL, NULL, 0));
        delivered = 0;
        MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
        assert_int_equal(delivered, 1);
        OK(mpitev_finalize());
        assert_false(MPITEV_ENABLED(&ev));
        MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
        assert_int_equal(delivered, 1);
    }
}

/* A handle from before the last finalize is stale in the next session too: it must
 * not name a registration allocated after re-init. */
static void handle_from_previous_session_stale(void **state) {
    (void)state;
    OK(mpitev_init());
    mpitev_type_desc td = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
    mpitev_reg old;
    OK(mpitev_reg_alloc(0, NULL, NULL, 0, &old));
    OK(mpitev_finalize());
    OK(mpitev_init());
    OK(mpitev_type_declare(&ev, &td));
    assert_int_equal(mpitev_reg_check(old), MPITEV_ERR_INVALID_HANDLE);
    mpitev_reg r;
    OK(mpitev_reg_alloc(0, NULL, NULL, 0, &r));
    assert_true(r.bits != old.bits);
    assert_int_equal(mpitev_reg_check(old), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_free(old, NULL, NULL), MPITEV_ERR_INVALID_HANDLE);
    OK(mpitev_reg_check(r));
    OK(mpitev_finalize());
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(before_init, core_teardown),
        cmocka_unit_test_teardown(refcounted, core_teardown),
        cmocka_unit_test_teardown(reinit_redeclare, core_teardown),
        cmocka_unit_test_teardown(handle_from_previous_session_stale, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
