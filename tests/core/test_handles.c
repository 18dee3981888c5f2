/* Registration handles: validity, stale and forged handles, slot reuse. */
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

static int visit_count(const char *k, const char *v, void *ctx) {
    (void)k; (void)v;
    ++*(int *)ctx;
    return 0;
}
static void dummy_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s; (void)u; fail_msg("callback on an invalid handle");
}
static void dummy_dropped(mpitev_count_t c, mpitev_reg r, int si, int s, void *u) {
    (void)c; (void)r; (void)si; (void)s; (void)u; }
static int free_cb_calls;
static void dummy_free(mpitev_reg r, int s, void *u) {
    (void)r; (void)s; (void)u; free_cb_calls++;
}

/* Every registration function rejects h with INVALID_HANDLE and changes nothing. */
static void assert_handle_rejected(mpitev_reg h) {
    mpitev_kv kv = { "k", "v" };
    int n = 0, ti = -5;
    assert_int_equal(mpitev_reg_check(h), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_set_info(h, &kv, 1), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_get_info(h, visit_count, &n), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_set_callback(h, 0, dummy_cb, NULL, NULL, 0), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_set_callback(h, 0, NULL, NULL, NULL, 0), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_callback_set_info(h, 0, &kv, 1), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_callback_get_info(h, 0, visit_count, &n), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_set_dropped_handler(h, dummy_dropped), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_get_type(h, &ti), MPITEV_ERR_INVALID_HANDLE);
    int before = free_cb_calls;
    assert_int_equal(mpitev_reg_free(h, NULL, dummy_free), MPITEV_ERR_INVALID_HANDLE);
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(free_cb_calls, before);
    assert_int_equal(n, 0);
    assert_int_equal(ti, -5);
    assert_false(MPITEV_ENABLED(&ev));
}

static void valid_handle_works(void **state) {
    (void)state;
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    assert_true(r.bits != MPITEV_REG_NULL.bits);
    OK(mpitev_reg_check(r));
    int ti = -1;
    OK(mpitev_reg_get_type(r, &ti));
    assert_int_equal(ti, tindex(&ev));
    assert_int_equal(mpitev_reg_alloc(1, NULL, NULL, 0, &r), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_reg_alloc(-1, NULL, NULL, 0, &r), MPITEV_ERR_INVALID_INDEX);
}

static void freed_handle_rejected_everywhere(void **state) {
    (void)state;
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    OK(mpitev_reg_free(r, NULL, NULL));
    assert_handle_rejected(r);
    /* Double free. */
    assert_int_equal(mpitev_reg_free(r, NULL, NULL), MPITEV_ERR_INVALID_HANDLE);
}

static void forged_handles_rejected(void **state) {
    (void)state;
    mpitev_reg live;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &live));
    assert_handle_rejected(MPITEV_REG_NULL);
    mpitev_reg h;
    /* Same slot, even generation (free/being freed). */
    h.bits = live.bits + (UINT64_C(1) << 32);
    assert_handle_rejected(h);
    /* Same slot, another odd generation. */
    h.bits = live.bits + (UINT64_C(2) << 32);
    assert_handle_rejected(h);
    /* Index zero (reserved), odd generation. */
    h.bits = UINT64_C(1) << 32;
    assert_handle_rejected(h);
    /* Huge index. */
    h.bits = (UINT64_C(1) << 32) | UINT64_C(0xffffffff);
    assert_handle_rejected(h);
    h.bits = (UINT64_C(1) << 32) | UINT64_C(0x7fffffff);
    assert_handle_rejected(h);
    h.bits = UINT64_MAX;
    assert_handle_rejected(h);
    /* Random bits. */
    uint64_t x = UINT64_C(0x9e3779b97f4a7c15);
    for (int i = 0; i < 2000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        h.bits = x;
        if (h.bits == live.bits) continue;
        assert_int_equal(mpitev_reg_check(h), MPITEV_ERR_INVALID_HANDLE);
        int ti;
        assert_int_equal(mpitev_reg_get_type(h, &ti), MPITEV_ERR_INVALID_HANDLE);
    }
    OK(mpitev_reg_check(live)); /* untouched by all that */
}

static void slot_reuse_new_handle(void **state) {
    (void)state;
    mpitev_reg a, b, c;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &a));
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &b));
    assert_true(a.bits != b.bits);
    OK(mpitev_reg_free(a, NULL, NULL));
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &c));
    /* The slot of a may be reused (it is here: the free completed at once), but the
     * handle is new and the old one stays invalid. */
    assert_true(c.bits != a.bits);
    assert_true(c.bits != b.bits);
    assert_true((c.bits & 0xffffffffu) == (a.bits & 0xffffffffu)); /* same slot reused */
    assert_handle_rejected(a);
    OK(mpitev_reg_check(c));
    OK(mpitev_reg_check(b));
    /* The old handle does not reach the new registration's callbacks either. */
    recorder rec = { 0 };
    rec_ud u = { 1, &rec };
    OK(mpitev_reg_set_callback(c, MPITEV_CB_REQUIRE_NONE, rec_cb, &u, NULL, 0));
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(rec.n, 1);
    assert_true(rec.calls[0].reg == c.bits);
    assert_int_equal(mpitev_reg_set_callback(a, MPITEV_CB_REQUIRE_NONE, NULL, NULL, NULL, 0), MPITEV_ERR_INVALID_HANDLE);
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(rec.n, 2);
    /* Many cycles on one slot: every handle distinct, each dead after its free. */
    mpitev_reg prev[16];
    for (int i = 0; i < 16; i++) {
        OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &prev[i]));
        for (int j = 0; j < i; j++) assert_true(prev[i].bits != prev[j].bits);
        OK(mpitev_reg_free(prev[i], NULL, NULL));
        assert_int_equal(mpitev_reg_check(prev[i]), MPITEV_ERR_INVALID_HANDLE);
    }
}

/* More registrations than one chunk of slots: all valid, all distinct. */
static void many_registrations(void **state) {
    (void)state;
    enum { N = 300 };
    static mpitev_reg r[N];
    for (int i = 0; i < N; i++) OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r[i]));
    for (int i = 0; i < N; i++) {
        OK(mpitev_reg_check(r[i]));
        for (int j = i + 1; j < N; j++) assert_true(r[i].bits != r[j].bits);
    }
    for (int i = 0; i < N; i += 2) OK(mpitev_reg_free(r[i], NULL, NULL));
    for (int i = 0; i < N; i++) assert_int_equal(mpitev_reg_check(r[i]), i % 2 ? MPITEV_SUCCESS : MPITEV_ERR_INVALID_HANDLE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(valid_handle_works, setup, core_teardown),
        cmocka_unit_test_setup_teardown(freed_handle_rejected_everywhere, setup, core_teardown),
        cmocka_unit_test_setup_teardown(forged_handles_rejected, setup, core_teardown),
        cmocka_unit_test_setup_teardown(slot_reuse_new_handle, setup, core_teardown),
        cmocka_unit_test_setup_teardown(many_registrations, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
