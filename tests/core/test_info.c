/* Info hints on registrations and on callbacks (16.3.8.4). */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

static mpitev_type ev;
static mpitev_source src;

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc d = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    mpitev_source_desc s = src_desc("src", MPITEV_SOURCE_ORDERED, NULL);
    return (mpitev_source_declare(&src, &s) || mpitev_type_declare(&ev, &d)) ? -1 : 0;
}

/* Collect hints into a small table. */
typedef struct kvs {
    int n;
    char key[16][32];
    char val[16][32];
} kvs;
static int collect(const char *k, const char *v, void *ctx) {
    kvs *c = (kvs *)ctx;
    assert_true(c->n < 16);
    snprintf(c->key[c->n], sizeof c->key[0], "%s", k);
    snprintf(c->val[c->n], sizeof c->val[0], "%s", v);
    c->n++;
    return 0;
}
static const char *lookup(const kvs *c, const char *k) {
    for (int i = 0; i < c->n; i++)
        if (strcmp(c->key[i], k) == 0) return c->val[i];
    return NULL;
}
static int stop_after_one(const char *k, const char *v, void *ctx) {
    (void)k; (void)v;
    ++*(int *)ctx;
    return 1;
}
static void cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s; (void)u; }
static void cb2(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s; (void)u; }

static void hints_at_alloc_and_merge(void **state) {
    (void)state;
    char k1[] = "alpha", v1[] = "1";
    mpitev_kv kv[] = { { k1, v1 }, { "beta", "two" } };
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, kv, 2, &r));
    strcpy(k1, "XXXXX"); /* hints are copied */
    strcpy(v1, "9");
    kvs got = { 0 };
    OK(mpitev_reg_get_info(r, collect, &got));
    assert_non_null(lookup(&got, "alpha"));
    assert_string_equal(lookup(&got, "alpha"), "1");
    assert_string_equal(lookup(&got, "beta"), "two");
    assert_null(lookup(&got, "XXXXX"));
    int before = got.n;
    /* set_info merges: updates beta, adds gamma, keeps alpha. */
    mpitev_kv upd[] = { { "beta", "three" }, { "gamma", "g" } };
    OK(mpitev_reg_set_info(r, upd, 2));
    memset(&got, 0, sizeof got);
    OK(mpitev_reg_get_info(r, collect, &got));
    assert_int_equal(got.n, before + 1);
    assert_string_equal(lookup(&got, "alpha"), "1");
    assert_string_equal(lookup(&got, "beta"), "three");
    assert_string_equal(lookup(&got, "gamma"), "g");
    /* Empty set_info changes nothing. */
    OK(mpitev_reg_set_info(r, NULL, 0));
    kvs again = { 0 };
    OK(mpitev_reg_get_info(r, collect, &again));
    assert_int_equal(again.n, got.n);
    /* The visitor can stop early. */
    int visits = 0;
    OK(mpitev_reg_get_info(r, stop_after_one, &visits));
    assert_int_equal(visits, 1);
}

static void no_hints_alloc(void **state) {
    (void)state;
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    kvs got = { 0 };
    OK(mpitev_reg_get_info(r, collect, &got));
    /* Only hints the implementation sets itself may appear, never user keys. */
    assert_null(lookup(&got, "alpha"));
    for (int i = 0; i < got.n; i++) assert_true(strncmp(got.key[i], "mpitev_", 7) == 0);
}

static void callback_hints_per_level(void **state) {
    (void)state;
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    mpitev_kv a[] = { { "a", "1" }, { "shared", "x" } };
    mpitev_kv b[] = { { "b", "2" } };
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, cb, NULL, a, 2));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_THREAD_SAFE, cb, NULL, b, 1));
    kvs g0 = { 0 }, g2 = { 0 }, g3 = { 0 };
    OK(mpitev_reg_callback_get_info(r, MPITEV_CB_REQUIRE_NONE, collect, &g0));
    OK(mpitev_reg_callback_get_info(r, MPITEV_CB_REQUIRE_THREAD_SAFE, collect, &g2));
    OK(mpitev_reg_callback_get_info(r, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, collect, &g3));
    assert_int_equal(g0.n, 2);
    assert_string_equal(lookup(&g0, "a"), "1");
    assert_string_equal(lookup(&g0, "shared"), "x");
    assert_int_equal(g2.n, 1);
    assert_string_equal(lookup(&g2, "b"), "2");
    assert_int_equal(g3.n, 0);
    /* callback_set_info merges into one level only. */
    mpitev_kv c[] = { { "shared", "y" }, { "c", "3" } };
    OK(mpitev_reg_callback_set_info(r, MPITEV_CB_REQUIRE_NONE, c, 2));
    memset(&g0, 0, sizeof g0);
    memset(&g2, 0, sizeof g2);
    OK(mpitev_reg_callback_get_info(r, MPITEV_CB_REQUIRE_NONE, collect, &g0));
    OK(mpitev_reg_callback_get_info(r, MPITEV_CB_REQUIRE_THREAD_SAFE, collect, &g2));
    assert_int_equal(g0.n, 3);
    assert_string_equal(lookup(&g0, "a"), "1");
    assert_string_equal(lookup(&g0, "shared"), "y");
    assert_string_equal(lookup(&g0, "c"), "3");
    assert_int_equal(g2.n, 1);
    /* Replacing the callback replaces its hints (not merged). */
    mpitev_kv d[] = { { "d", "4" } };
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, cb2, NULL, d, 1));
    memset(&g0, 0, sizeof g0);
    OK(mpitev_reg_callback_get_info(r, MPITEV_CB_REQUIRE_NONE, collect, &g0));
    assert_int_equal(g0.n, 1);
    assert_string_equal(lookup(&g0, "d"), "4");
    /* Replacing without hints leaves none; removing leaves none. */
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_THREAD_SAFE, cb2, NULL, NULL, 0));
    memset(&g2, 0, sizeof g2);
    OK(mpitev_reg_callback_get_info(r, MPITEV_CB_REQUIRE_THREAD_SAFE, collect, &g2));
    assert_int_equal(g2.n, 0);
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, NULL, NULL, d, 1));
    memset(&g0, 0, sizeof g0);
    OK(mpitev_reg_callback_get_info(r, MPITEV_CB_REQUIRE_NONE, collect, &g0));
    assert_int_equal(g0.n, 0);
    /* Registration hints are separate from callback hints. */
    kvs rg = { 0 };
    OK(mpitev_reg_get_info(r, collect, &rg));
    assert_null(lookup(&rg, "a"));
    assert_null(lookup(&rg, "d"));
}

static void bad_kv_rejected(void **state) {
    (void)state;
    mpitev_reg r;
    mpitev_kv nullkey[] = { { "ok", "1" }, { NULL, "v" } };
    mpitev_kv nullval[] = { { "ok", "1" }, { "k", NULL } };
    mpitev_kv emptykey[] = { { "", "v" } };
    mpitev_kv good[] = { { "ok", "1" } };
    int ti = tindex(&ev);
    mpitev_reg untouched = { 12345 };
    r = untouched;
    assert_int_equal(mpitev_reg_alloc(ti, NULL, nullkey, 2, &r), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_alloc(ti, NULL, nullval, 2, &r), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_alloc(ti, NULL, emptykey, 1, &r), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_alloc(ti, NULL, good, -1, &r), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_alloc(ti, NULL, NULL, 1, &r), MPITEV_ERR_INVALID_ARG);
    assert_true(r.bits == untouched.bits);
    OK(mpitev_reg_alloc(ti, NULL, good, 1, &r));
    assert_int_equal(mpitev_reg_set_info(r, nullkey, 2), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_set_info(r, nullval, 2), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_set_info(r, good, -1), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_set_info(r, NULL, 3), MPITEV_ERR_INVALID_ARG);
    /* Nothing of a rejected list was applied (not even its valid first pair). */
    mpitev_kv half[] = { { "ok", "changed" }, { NULL, "v" } };
    assert_int_equal(mpitev_reg_set_info(r, half, 2), MPITEV_ERR_INVALID_ARG);
    kvs got = { 0 };
    OK(mpitev_reg_get_info(r, collect, &got));
    assert_string_equal(lookup(&got, "ok"), "1");
    assert_int_equal(mpitev_reg_set_callback(r, 0, cb, NULL, nullkey, 2), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_set_callback(r, 0, cb, NULL, nullval, 2), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_set_callback(r, 0, cb, NULL, good, -2), MPITEV_ERR_INVALID_ARG);
    assert_false(MPITEV_ENABLED(&ev)); /* rejected callbacks were not installed */
    OK(mpitev_reg_set_callback(r, 0, cb, NULL, good, 1));
    assert_int_equal(mpitev_reg_callback_set_info(r, 0, nullkey, 2), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_callback_set_info(r, 0, nullval, 2), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_callback_set_info(r, 0, good, -1), MPITEV_ERR_INVALID_ARG);
    memset(&got, 0, sizeof got);
    OK(mpitev_reg_callback_get_info(r, 0, collect, &got));
    assert_int_equal(got.n, 1);
    assert_string_equal(lookup(&got, "ok"), "1");
    assert_int_equal(mpitev_reg_get_info(r, NULL, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_callback_get_info(r, 0, NULL, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_callback_get_info(r, 4, collect, &got), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_reg_callback_get_info(r, -1, collect, &got), MPITEV_ERR_INVALID_ARG);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hints_at_alloc_and_merge, setup, core_teardown),
        cmocka_unit_test_setup_teardown(no_hints_alloc, setup, core_teardown),
        cmocka_unit_test_setup_teardown(callback_hints_per_level, setup, core_teardown),
        cmocka_unit_test_setup_teardown(bad_kv_rejected, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
