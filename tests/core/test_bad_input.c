/* NULL pointers and foreign instances: every public function returns an error code. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

static mpitev_type ev;
static mpitev_source src;

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc d = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    d.category = "cat";
    mpitev_source_desc s = src_desc("src", MPITEV_SOURCE_ORDERED, NULL);
    return (mpitev_source_declare(&src, &s) || mpitev_type_declare(&ev, &d)) ? -1 : 0;
}

static void null_declarations(void **state) {
    (void)state;
    static mpitev_type t;
    static mpitev_source s;
    mpitev_type_desc td = pair_desc("t", MPITEV_BIND_NO_OBJECT);
    mpitev_source_desc sd = src_desc("s", MPITEV_SOURCE_ORDERED, NULL);
    assert_int_equal(mpitev_type_declare(NULL, &td), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_type_declare(&t, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_type_declare(NULL, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_source_declare(NULL, &sd), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_source_declare(&s, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_type_index_of(NULL, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_source_index_of(NULL, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_type_index_of(&ev, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_source_index_of(&src, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_initialized(NULL), MPITEV_ERR_INVALID_ARG);
    int n;
    OK(mpitev_type_get_num(&n));
    assert_int_equal(n, 1);
    OK(mpitev_source_get_num(&n));
    assert_int_equal(n, 1);
}

static void null_queries(void **state) {
    (void)state;
    assert_int_equal(mpitev_type_get_num(NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_type_get_info(0, NULL), MPITEV_ERR_INVALID_ARG);
    int idx = -3;
    assert_int_equal(mpitev_type_get_index(NULL, &idx), MPITEV_ERR_INVALID_NAME);
    assert_int_equal(mpitev_type_get_index("ev", NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_type_get_index("", &idx), MPITEV_ERR_INVALID_NAME);
    assert_int_equal(mpitev_type_get_default_info(0, NULL, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(idx, -3);
    assert_int_equal(mpitev_source_get_num(NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_source_get_info(0, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_source_get_timestamp(0, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_category_get_num(NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_category_get_name(0, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_category_get_events(0, 1, NULL, &idx), MPITEV_ERR_INVALID_ARG);
    OK(mpitev_category_get_events(0, 0, NULL, NULL)); /* nothing asked, nothing written */
    int one = -1;
    OK(mpitev_category_get_events(0, 1, &one, NULL));
    assert_int_equal(one, 0);
}

static int visit(const char *k, const char *v, void *c) { (void)k; (void)v; (void)c; return 0; }

static void null_registration_args(void **state) {
    (void)state;
    assert_int_equal(mpitev_reg_alloc(0, NULL, NULL, 0, NULL), MPITEV_ERR_INVALID_ARG);
    mpitev_reg r;
    OK(mpitev_reg_alloc(0, NULL, NULL, 0, &r));
    assert_int_equal(mpitev_reg_get_type(r, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_get_info(r, NULL, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_callback_get_info(r, 0, NULL, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_set_info(r, NULL, 1), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_callback_set_info(r, 0, NULL, 1), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_set_callback(r, 0, NULL, NULL, NULL, 1), MPITEV_ERR_INVALID_ARG);
    /* NULL function pointers mean "remove"/"none": accepted. */
    OK(mpitev_reg_set_callback(r, 0, NULL, NULL, NULL, 0));
    OK(mpitev_reg_set_dropped_handler(r, NULL));
    OK(mpitev_reg_get_info(r, visit, NULL)); /* NULL ctx is the visitor's business */
    OK(mpitev_reg_free(r, NULL, NULL));
    /* NULL handle value. */
    assert_int_equal(mpitev_reg_get_type(MPITEV_REG_NULL, NULL), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_free(MPITEV_REG_NULL, NULL, NULL), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_check(MPITEV_REG_NULL), MPITEV_ERR_INVALID_HANDLE);
    /* Bad safety levels are errors now (no count of 0 that hides them); the count is
     * still written (0) where asked for. */
    int n = -1;
    assert_int_equal(mpitev_progress(-1, &n), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(n, 0);
    assert_int_equal(mpitev_progress(MPITEV_CB_LEVELS, NULL), MPITEV_ERR_INVALID_ARG);
}

static void null_allocator_fields(void **state) {
    (void)state;
    mpitev_allocator a = { NULL, NULL, NULL };
    /* While initialised either answer is an error; never a crash. */
    assert_int_not_equal(mpitev_set_allocator(&a), MPITEV_SUCCESS);
}

/* ---- Instance accessors. ---- */
static int checked;
static void acc_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud; struct pair p = { 0, 0 };
    int i;
    int64_t ts;
    assert_int_equal(mpitev_instance_read(inst, 2, &p), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_instance_read(inst, -1, &p), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_instance_read(inst, 0, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_instance_copy(inst, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_instance_timestamp(inst, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_instance_source(inst, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_instance_type(inst, NULL), MPITEV_ERR_INVALID_ARG);
    OK(mpitev_instance_read(inst, 1, &p.b));
    assert_true(p.b == 99);
    OK(mpitev_instance_type(inst, &i));
    OK(mpitev_instance_timestamp(inst, &ts));
    checked++;
}

static void instance_accessors(void **state) {
    (void)state;
    struct pair p;
    int i;
    int64_t ts;
    assert_int_equal(mpitev_instance_read(NULL, 0, &p), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_instance_copy(NULL, &p), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_instance_timestamp(NULL, &ts), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_instance_source(NULL, &i), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_instance_type(NULL, &i), MPITEV_ERR_INVALID_HANDLE);
    /* A zeroed (foreign) instance object fails the magic check. */
    mpitev_instance fake;
    memset(&fake, 0, sizeof fake);
    assert_int_equal(mpitev_instance_read(&fake, 0, &p), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_instance_copy(&fake, &p), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_instance_timestamp(&fake, &ts), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_instance_source(&fake, &i), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_instance_type(&fake, &i), MPITEV_ERR_INVALID_HANDLE);
    mpitev_reg r;
    OK(mpitev_reg_alloc(0, NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, 0, acc_cb, NULL, NULL, 0));
    checked = 0;
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ 1, 99 });
    assert_int_equal(checked, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(null_declarations, setup, core_teardown),
        cmocka_unit_test_setup_teardown(null_queries, setup, core_teardown),
        cmocka_unit_test_setup_teardown(null_registration_args, setup, core_teardown),
        cmocka_unit_test_setup_teardown(null_allocator_fields, setup, core_teardown),
        cmocka_unit_test_setup_teardown(instance_accessors, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
