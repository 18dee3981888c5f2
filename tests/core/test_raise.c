/* The raise: lazy argument evaluation, delivered contents, timestamps, bound objects. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

static mpitev_type ev_pair, ev_other, ev_comm, ev_rich;
static mpitev_source src, src2;
static test_clock tclk;

static int n_obj, n_payload, n_safety;
static struct pair cur;
static int comm_a, comm_b;
static const void *obj_arg(const void *o) { n_obj++; return o; }
static const void *payload_arg(void) { n_payload++; return &cur; }
static int safety_arg(int s) { n_safety++; return s; }

#define RAISE_PAIR(obj) \
    MPITEV_RAISE(&ev_pair, &src, obj_arg(obj), safety_arg(MPITEV_CB_REQUIRE_NONE), payload_arg())

static int setup(void **state) {
    if (core_setup(state)) return -1;
    tclk.value = 100;
    tclk.calls = 0;
    n_obj = n_payload = n_safety = 0;
    mpitev_clock clk = { test_clock_now, &tclk, 1000, INT64_MAX, NULL };
    mpitev_source_desc sd = src_desc("src", MPITEV_SOURCE_ORDERED, &clk);
    mpitev_source_desc sd2 = src_desc("src2", MPITEV_SOURCE_UNORDERED, &clk);
    mpitev_type_desc p = pair_desc("pair", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc o = pair_desc("other", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc c = pair_desc("comm", MPITEV_BIND_MPI_COMM);
    if (mpitev_source_declare(&src, &sd) || mpitev_source_declare(&src2, &sd2) || mpitev_type_declare(&ev_pair, &p) ||
        mpitev_type_declare(&ev_other, &o) || mpitev_type_declare(&ev_comm, &c))
        return -1;
    return 0;
}

static void assert_not_evaluated(void) {
    assert_int_equal(n_obj, 0);
    assert_int_equal(n_payload, 0);
    assert_int_equal(n_safety, 0);
}

static void lazy_before_any_registration(void **state) {
    (void)state;
    assert_false(MPITEV_ENABLED(&ev_pair));
    for (int i = 0; i < 3; i++) RAISE_PAIR(NULL);
    assert_not_evaluated();
    assert_int_equal(tclk.calls, 0); /* no timestamp taken either */
}

static void lazy_after_alloc_without_callback(void **state) {
    (void)state;
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev_pair), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_dropped_handler(r, NULL));
    RAISE_PAIR(NULL);
    assert_false(MPITEV_ENABLED(&ev_pair));
    assert_not_evaluated();
}

static void lazy_when_other_type_listened(void **state) {
    (void)state;
    recorder rec = { 0 };
    rec_ud ud = { 1, &rec };
    (void)rec_listen(&ev_other, &ud);
    RAISE_PAIR(NULL);
    assert_not_evaluated();
    assert_int_equal(rec.n, 0);
}

static void evaluated_once_when_active_then_lazy_again(void **state) {
    (void)state;
    recorder rec = { 0 };
    rec_ud ud = { 1, &rec };
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev_pair), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, rec_pair_cb, &ud, NULL, 0));
    assert_true(MPITEV_ENABLED(&ev_pair));
    RAISE_PAIR(NULL);
    assert_int_equal(n_obj, 1);
    assert_int_equal(n_payload, 1);
    assert_int_equal(n_safety, 1);
    assert_int_equal(rec.n, 1);
    /* Callback removed: nobody listens, arguments not evaluated. */
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, NULL, NULL, NULL, 0));
    n_obj = n_payload = n_safety = 0;
    RAISE_PAIR(NULL);
    assert_not_evaluated();
    assert_int_equal(rec.n, 1);
    /* Back on, then freed: not evaluated after free. */
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_THREAD_SAFE, rec_pair_cb, &ud, NULL, 0));
    RAISE_PAIR(NULL);
    assert_int_equal(rec.n, 2);
    OK(mpitev_reg_free(r, NULL, NULL));
    n_obj = n_payload = n_safety = 0;
    RAISE_PAIR(NULL);
    assert_not_evaluated();
    assert_int_equal(rec.n, 2);
}

static void callback_sees_instance(void **state) {
    (void)state;
    recorder rec = { 0 };
    rec_ud ud = { 7, &rec };
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev_pair), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, rec_pair_cb, &ud, NULL, 0));
    tclk.value = 4242;
    cur = (struct pair){ -17, INT64_C(0x123456789abcdef) };
    MPITEV_RAISE(&ev_pair, &src2, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(rec.n, 1);
    rec_call *c = &rec.calls[0];
    assert_int_equal(c->tag, 7);
    assert_int_equal(c->type_index, tindex(&ev_pair));
    assert_int_equal(c->source_index, sindex(&src2));
    assert_true(c->ts == 4242);
    assert_true(c->reg == r.bits);
    assert_int_equal(c->cb_safety, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(c->p.a, -17);
    assert_true(c->p.b == INT64_C(0x123456789abcdef));
}

/* A type with every kind of element: read each, copy all, compare. */
struct rich {
    uint8_t u8;
    int16_t i16;
    double d;
    char name[5];
    int64_t i64;
    float f;
    uintptr_t up;
};
static const mpitev_element rich_elems[] = {
    MPITEV_ELEMENT_OF(struct rich, u8, MPITEV_DTYPE_UINT8),
    MPITEV_ELEMENT_OF(struct rich, i16, MPITEV_DTYPE_INT16),
    MPITEV_ELEMENT_OF(struct rich, d, MPITEV_DTYPE_DOUBLE),
    MPITEV_CHARS_OF(struct rich, name),
    MPITEV_ELEMENT_OF(struct rich, i64, MPITEV_DTYPE_INT64),
    MPITEV_ELEMENT_OF(struct rich, f, MPITEV_DTYPE_FLOAT),
    MPITEV_ELEMENT_OF(struct rich, up, MPITEV_DTYPE_UINTPTR),
};
static int rich_seen;
static void rich_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; const struct rich *want = (const struct rich *)ud;
    struct rich got;
    memset(&got, 0, sizeof got);
    OK(mpitev_instance_read(inst, 0, &got.u8));
    OK(mpitev_instance_read(inst, 1, &got.i16));
    OK(mpitev_instance_read(inst, 2, &got.d));
    char name[8];
    memset(name, 'X', sizeof name);
    OK(mpitev_instance_read(inst, 3, name));
    assert_memory_equal(name, want->name, 5);
    assert_int_equal(name[5], 'X'); /* exactly count bytes */
    memcpy(got.name, name, 5);
    OK(mpitev_instance_read(inst, 4, &got.i64));
    OK(mpitev_instance_read(inst, 5, &got.f));
    OK(mpitev_instance_read(inst, 6, &got.up));
    assert_int_equal(got.u8, want->u8);
    assert_int_equal(got.i16, want->i16);
    assert_true(got.d == want->d);
    assert_true(got.i64 == want->i64);
    assert_true(got.f == want->f);
    assert_true(got.up == want->up);
    assert_int_equal(mpitev_instance_read(inst, 7, &got), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_instance_read(inst, -1, &got), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_instance_read(inst, 0, NULL), MPITEV_ERR_INVALID_ARG);
    /* copy: extent bytes at the declared displacements; the struct's bytes are equal
     * where elements are (padding excepted). */
    unsigned char buf[sizeof(struct rich) + 8];
    memset(buf, 0xee, sizeof buf);
    OK(mpitev_instance_copy(inst, buf));
    assert_int_equal(buf[sizeof(struct rich)], 0xee); /* nothing beyond the extent */
    mpitev_type_info info;
    OK(mpitev_type_get_info(tindex(&ev_rich), &info));
    assert_int_equal(buf[info.extent], 0xee); /* not even the struct's trailing padding */
    for (int i = 0; i < info.num_elements; i++)
        assert_memory_equal(buf + info.displacements[i], (const unsigned char *)want + info.displacements[i], info.sizes[i]);
    assert_int_equal(mpitev_instance_copy(inst, NULL), MPITEV_ERR_INVALID_ARG);
    rich_seen++;
}

static void read_every_element(void **state) {
    (void)state;
    mpitev_type_desc d = pair_desc("rich", MPITEV_BIND_NO_OBJECT);
    d.elements = rich_elems;
    d.num_elements = 7;
    d.payload_size = sizeof(struct rich);
    OK(mpitev_type_declare(&ev_rich, &d));
    struct rich r;
    memset(&r, 0, sizeof r);
    r.u8 = 250; r.i16 = -30000; r.d = 3.25; memcpy(r.name, "ab\0\0\0", 5); r.i64 = INT64_MIN + 3; r.f = -1.5f;
    r.up = (uintptr_t)&r;
    mpitev_reg reg;
    OK(mpitev_reg_alloc(tindex(&ev_rich), NULL, NULL, 0, &reg));
    OK(mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_NONE, rich_cb, &r, NULL, 0));
    rich_seen = 0;
    MPITEV_RAISE(&ev_rich, &src, NULL, MPITEV_CB_REQUIRE_NONE, &r);
    memcpy(r.name, "hello", 5); /* a full char array without NUL */
    r.i16 = 1;
    MPITEV_RAISE(&ev_rich, &src, NULL, MPITEV_CB_REQUIRE_NONE, &r);
    assert_int_equal(rich_seen, 2);
}

static void one_timestamp_per_instance(void **state) {
    (void)state;
    recorder rec = { 0 };
    rec_ud u1 = { 1, &rec }, u2 = { 2, &rec };
    mpitev_reg r1, r2;
    int ti = tindex(&ev_pair);
    OK(mpitev_reg_alloc(ti, NULL, NULL, 0, &r1));
    OK(mpitev_reg_alloc(ti, NULL, NULL, 0, &r2));
    OK(mpitev_reg_set_callback(r1, MPITEV_CB_REQUIRE_NONE, rec_cb, &u1, NULL, 0));
    OK(mpitev_reg_set_callback(r2, MPITEV_CB_REQUIRE_NONE, rec_cb, &u2, NULL, 0));
    for (int i = 0; i < 3; i++) {
        tclk.value = 1000 + i * 10;
        int before = tclk.calls;
        MPITEV_RAISE(&ev_pair, &src2, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
        assert_int_equal(tclk.calls - before, 1); /* one clock read for both registrations */
    }
    assert_int_equal(rec.n, 6);
    for (int i = 0; i < 3; i++) {
        rec_call *a = &rec.calls[2 * i], *b = &rec.calls[2 * i + 1];
        assert_int_not_equal(a->tag, b->tag);
        assert_true(a->ts == b->ts);
        assert_true(a->ts == 1000 + i * 10);
        assert_true(a->reg != b->reg);
    }
}

static void ordered_source_never_goes_back(void **state) {
    (void)state;
    /* A source of its own: an ordered source's last timestamp lives as long as the
     * source (the process), and src has given later ones in earlier tests. */
    static mpitev_source fresh;
    mpitev_clock clk = { test_clock_now, &tclk, 1000, INT64_MAX, NULL };
    mpitev_source_desc sd = src_desc("src_never_back", MPITEV_SOURCE_ORDERED, &clk);
    OK(mpitev_source_declare(&fresh, &sd));
    recorder rec = { 0 };
    rec_ud u = { 1, &rec };
    (void)rec_listen(&ev_pair, &u);
    static const int64_t seq[] = { 50, 40, 60, 10, 60, 70, -5 };
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        tclk.value = seq[i];
        MPITEV_RAISE(&ev_pair, &fresh, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    }
    assert_int_equal(rec.n, 7);
    for (int i = 1; i < rec.n; i++) assert_true(rec.calls[i].ts >= rec.calls[i - 1].ts);
    assert_true(rec.calls[0].ts == 50);
    assert_true(rec.calls[2].ts == 60);
    assert_true(rec.calls[5].ts == 70);
    assert_true(rec.calls[6].ts == 70);
    /* The unordered source reports the clock as it is. */
    tclk.value = 3;
    MPITEV_RAISE(&ev_pair, &src2, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_true(rec.calls[7].ts == 3);
}

static void bound_registration_filters_by_object(void **state) {
    (void)state;
    recorder rec = { 0 };
    rec_ud ua = { 'A', &rec }, ub = { 'B', &rec };
    int ti = tindex(&ev_comm);
    mpitev_reg ra, rb;
    OK(mpitev_reg_alloc(ti, &comm_a, NULL, 0, &ra));
    OK(mpitev_reg_alloc(ti, &comm_b, NULL, 0, &rb));
    OK(mpitev_reg_set_callback(ra, MPITEV_CB_REQUIRE_NONE, rec_cb, &ua, NULL, 0));
    OK(mpitev_reg_set_callback(rb, MPITEV_CB_REQUIRE_NONE, rec_cb, &ub, NULL, 0));
    MPITEV_RAISE(&ev_comm, &src, &comm_a, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(rec.n, 1);
    assert_int_equal(rec.calls[0].tag, 'A');
    assert_true(rec.calls[0].reg == ra.bits);
    MPITEV_RAISE(&ev_comm, &src, &comm_b, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(rec.n, 2);
    assert_int_equal(rec.calls[1].tag, 'B');
    int other;
    MPITEV_RAISE(&ev_comm, &src, &other, MPITEV_CB_REQUIRE_NONE, &cur);
    MPITEV_RAISE(&ev_comm, &src, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(rec.n, 2);
}

static void unbound_type_ignores_object(void **state) {
    (void)state;
    recorder rec = { 0 };
    rec_ud u = { 1, &rec };
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev_pair), &comm_a, NULL, 0, &r)); /* object ignored */
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, rec_cb, &u, NULL, 0));
    MPITEV_RAISE(&ev_pair, &src, &comm_b, MPITEV_CB_REQUIRE_NONE, &cur);
    MPITEV_RAISE(&ev_pair, &src, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    MPITEV_RAISE(&ev_pair, &src, &comm_a, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(rec.n, 3);
}

static void undeclared_source_is_ignored(void **state) {
    (void)state;
    static mpitev_source never;
    recorder rec = { 0 };
    rec_ud u = { 1, &rec };
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev_pair), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, rec_cb, &u, NULL, 0));
    MPITEV_RAISE(&ev_pair, &never, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(rec.n, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(lazy_before_any_registration, setup, core_teardown),
        cmocka_unit_test_setup_teardown(lazy_after_alloc_without_callback, setup, core_teardown),
        cmocka_unit_test_setup_teardown(lazy_when_other_type_listened, setup, core_teardown),
        cmocka_unit_test_setup_teardown(evaluated_once_when_active_then_lazy_again, setup, core_teardown),
        cmocka_unit_test_setup_teardown(callback_sees_instance, setup, core_teardown),
        cmocka_unit_test_setup_teardown(read_every_element, setup, core_teardown),
        cmocka_unit_test_setup_teardown(one_timestamp_per_instance, setup, core_teardown),
        cmocka_unit_test_setup_teardown(ordered_source_never_goes_back, setup, core_teardown),
        cmocka_unit_test_setup_teardown(bound_registration_filters_by_object, setup, core_teardown),
        cmocka_unit_test_setup_teardown(unbound_type_ignores_object, setup, core_teardown),
        cmocka_unit_test_setup_teardown(undeclared_source_is_ignored, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
