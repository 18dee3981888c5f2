/* Lifecycle: not initialised, reference counting, finalize, re-init; declarations live
 * for the process (they survive finalize, declaring again is a no-op if equal). Each
 * test declares objects of its own. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

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
    assert_int_equal(mpitev_reg_check(some_reg), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_type_get_default_info(0, visit, NULL), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(mpitev_source_drain(&s, MPITEV_DRAIN_ALL, 0, &n), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(n, 0); /* counts are written (0) even on error */
    n = -7;
    assert_int_equal(mpitev_progress(MPITEV_CB_REQUIRE_NONE, &n), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(n, 0);
    n = -7;
    int flag = -1;
    OK(mpitev_initialized(&flag));
    assert_int_equal(flag, 0);
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
    /* Nothing declared yet and not initialised: the allocator may still change. */
    OK(mpitev_set_allocator(NULL));
}

static void refcounted(void **state) {
    (void)state;
    static mpitev_type ev;
    static mpitev_source src;
    OK(mpitev_init());
    OK(mpitev_init());
    assert_int_equal(is_initialized(), 1);
    int n0 = -1, n = -1;
    OK(mpitev_type_get_num(&n0));
    mpitev_source_desc sd = src_desc("src_rc", MPITEV_SOURCE_ORDERED, NULL);
    OK(mpitev_source_declare(&src, &sd));
    mpitev_type_desc td = pair_desc("ev_rc", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    OK(mpitev_finalize()); /* inner: everything stays */
    assert_int_equal(is_initialized(), 1);
    OK(mpitev_reg_check(r));
    OK(mpitev_type_get_num(&n));
    assert_int_equal(n, n0 + 1);
    assert_int_equal(tindex(&ev), n0);
    OK(mpitev_finalize()); /* last: the registration goes, the declarations stay */
    assert_int_equal(is_initialized(), 0);
    assert_int_equal(tindex(&ev), n0);
    int si = -1;
    OK(mpitev_source_index_of(&src, &si));
    assert_true(si >= 0);
    assert_everything_uninitialized(r);
    assert_int_equal(mpitev_finalize(), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(is_initialized(), 0);
}

static int delivered;
static void count_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s; (void)u; delivered++;
}

/* An MPI that declares in every init: the first declares, later ones are no-ops that
 * find the same indices; raises are delivered in every session. */
static void reinit_redeclare(void **state) {
    (void)state;
    static mpitev_type ev;
    static mpitev_source src;
    int nt0 = -1, ns0 = -1, ti = -1, si = -1;
    for (int round = 0; round < 3; round++) {
        OK(mpitev_init());
        int n = -1;
        if (round == 0) {
            OK(mpitev_type_get_num(&nt0));
            OK(mpitev_source_get_num(&ns0));
        }
        /* Fresh descriptors each time, equal by value (names in other buffers). */
        char sname[] = "src", tname[] = "ev", cat[] = "cat";
        mpitev_source_desc sd = src_desc(round ? sname : "src", MPITEV_SOURCE_ORDERED, NULL);
        OK(mpitev_source_declare(&src, &sd)); /* the same storage and names again */
        mpitev_type_desc td = pair_desc(round ? tname : "ev", MPITEV_BIND_NO_OBJECT);
        td.category = round ? cat : "cat";
        OK(mpitev_type_declare(&ev, &td));
        OK(mpitev_type_get_num(&n));
        assert_int_equal(n, nt0 + 1);
        OK(mpitev_source_get_num(&n));
        assert_int_equal(n, ns0 + 1);
        if (round == 0) {
            ti = tindex(&ev);
            si = sindex(&src);
        }
        assert_int_equal(tindex(&ev), ti);
        assert_int_equal(sindex(&src), si);
        OK(mpitev_type_get_index("ev", &n));
        assert_int_equal(n, ti);
        mpitev_type_info info;
        OK(mpitev_type_get_info(ti, &info));
        assert_string_equal(info.category, "cat"); /* the first declaration's strings */
        OK(mpitev_category_get_num(&n));
        assert_int_equal(n, 1);
        mpitev_reg r;
        OK(mpitev_reg_alloc(ti, NULL, NULL, 0, &r));
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
    static mpitev_type ev;
    OK(mpitev_init());
    mpitev_type_desc td = pair_desc("ev_stale", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
    mpitev_reg old;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &old));
    OK(mpitev_finalize());
    OK(mpitev_init());
    OK(mpitev_type_declare(&ev, &td));
    assert_int_equal(mpitev_reg_check(old), MPITEV_ERR_INVALID_HANDLE);
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    assert_true(r.bits != old.bits);
    assert_int_equal(mpitev_reg_check(old), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_free(old, NULL, NULL), MPITEV_ERR_INVALID_HANDLE);
    OK(mpitev_reg_check(r));
    OK(mpitev_finalize());
}

/* Without declaring again, a later session has every declaration, rings included:
 * buffered delivery works as in the first session. */
static int buffered_seen;
static void buffered_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)r; (void)s; (void)u;
    struct pair p;
    OK(mpitev_instance_copy(i, &p));
    assert_int_equal(p.a, 10 + buffered_seen);
    buffered_seen++;
}
static void declarations_survive_without_redeclaring(void **state) {
    (void)state;
    static mpitev_type ev;
    static mpitev_source ord, unord;
    OK(mpitev_init());
    mpitev_source_desc od = src_desc("surv_ord", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc ud = src_desc("surv_unord", MPITEV_SOURCE_UNORDERED, NULL);
    od.buffer_capacity = ud.buffer_capacity = 4;
    OK(mpitev_source_declare(&ord, &od));
    OK(mpitev_source_declare(&unord, &ud));
    mpitev_type_desc td = pair_desc("surv_ev", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
    int ti = tindex(&ev), oi = sindex(&ord), ui = sindex(&unord);
    OK(mpitev_finalize());
    for (int session = 0; session < 3; session++) {
        OK(mpitev_init());
        assert_int_equal(tindex(&ev), ti);
        assert_int_equal(sindex(&ord), oi);
        assert_int_equal(sindex(&unord), ui);
        int idx = -1;
        OK(mpitev_type_get_index("surv_ev", &idx));
        assert_int_equal(idx, ti);
        mpitev_source_info info;
        OK(mpitev_source_get_info(ui, &info));
        assert_string_equal(info.name, "surv_unord");
        assert_int_equal(info.ordering, MPITEV_SOURCE_UNORDERED);
        mpitev_reg r;
        OK(mpitev_reg_alloc(ti, NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &r));
        OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, buffered_cb, NULL, NULL, 0));
        buffered_seen = 0;
        /* Three records per ring (capacity 4) per session: positions move on, the
         * rings wrap in the second session. */
        for (int k = 0; k < 3; k++) MPITEV_RAISE(&ev, &ord, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ 10 + k, 0 });
        assert_int_equal(drain_n(&ord, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE), 3);
        for (int k = 3; k < 6; k++) MPITEV_RAISE(&ev, &unord, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ 10 + k, 0 });
        assert_int_equal(drain_n(&unord, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE), 3);
        assert_int_equal(buffered_seen, 6);
        /* Left in the ring at finalize: delivered by it. */
        MPITEV_RAISE(&ev, &ord, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ 16, 0 });
        OK(mpitev_finalize());
        assert_int_equal(buffered_seen, 7);
        assert_false(MPITEV_ENABLED(&ev));
    }
}

/* Declaring again: equal is a no-op, different is refused, a taken name is refused,
 * whatever the session. */
static void redeclare_rules(void **state) {
    (void)state;
    static mpitev_type ev, other_t;
    static mpitev_source src, other_s;
    static const mpitev_element els[] = { MPITEV_ELEMENT_OF(struct pair, a, MPITEV_DTYPE_INT32),
                                          MPITEV_ELEMENT_OF(struct pair, b, MPITEV_DTYPE_INT64) };
    static test_clock tc;
    mpitev_clock clk = { test_clock_now, &tc, 1000, 5000, NULL };
    OK(mpitev_init());
    mpitev_type_desc td = pair_desc("rd_ev", MPITEV_BIND_MPI_COMM);
    td.desc = "d";
    td.category = "rd_cat";
    mpitev_source_desc sd = src_desc("rd_src", MPITEV_SOURCE_UNORDERED, &clk);
    sd.buffer_capacity = 100; /* compared as given, not as rounded up */
    OK(mpitev_type_declare(&ev, &td));
    OK(mpitev_source_declare(&src, &sd));
    int nt = -1, ns = -1;
    OK(mpitev_type_get_num(&nt));
    OK(mpitev_source_get_num(&ns));
    for (int session = 0; session < 2; session++) {
        /* Equal: other element array with the same contents, other clock struct with the
         * same fields, strings in other buffers. */
        mpitev_type_desc t2 = td;
        t2.elements = els;
        char cat[] = "rd_cat", name[] = "rd_ev";
        t2.category = cat;
        t2.name = name;
        OK(mpitev_type_declare(&ev, &t2));
        mpitev_clock clk2 = clk;
        mpitev_source_desc s2 = sd;
        s2.clock = &clk2;
        OK(mpitev_source_declare(&src, &s2));
        /* Different, field by field: INVALID_ARG, nothing changes. */
        t2 = td; t2.desc = NULL;                      assert_int_equal(mpitev_type_declare(&ev, &t2), MPITEV_ERR_INVALID_ARG);
        t2 = td; t2.verbosity = MPITEV_VERBOSITY_USER_ALL; assert_int_equal(mpitev_type_declare(&ev, &t2), MPITEV_ERR_INVALID_ARG);
        t2 = td; t2.bind = MPITEV_BIND_NO_OBJECT;     assert_int_equal(mpitev_type_declare(&ev, &t2), MPITEV_ERR_INVALID_ARG);
        t2 = td; t2.category = NULL;                  assert_int_equal(mpitev_type_declare(&ev, &t2), MPITEV_ERR_INVALID_ARG);
        t2 = td; t2.num_elements = 1; t2.payload_size = 0; assert_int_equal(mpitev_type_declare(&ev, &t2), MPITEV_ERR_INVALID_ARG);
        t2 = td; t2.payload_size = 0;                 assert_int_equal(mpitev_type_declare(&ev, &t2), MPITEV_ERR_INVALID_ARG);
        t2 = td; t2.flags = MPITEV_TYPE_ALWAYS_BUFFERED; assert_int_equal(mpitev_type_declare(&ev, &t2), MPITEV_ERR_INVALID_ARG);
        t2 = td; t2.name = "rd_ev2";                  assert_int_equal(mpitev_type_declare(&ev, &t2), MPITEV_ERR_INVALID_ARG);
        mpitev_source_desc s3;
        s3 = sd; s3.ordering = MPITEV_SOURCE_ORDERED; assert_int_equal(mpitev_source_declare(&src, &s3), MPITEV_ERR_INVALID_ARG);
        s3 = sd; s3.clock = NULL;                     assert_int_equal(mpitev_source_declare(&src, &s3), MPITEV_ERR_INVALID_ARG);
        s3 = sd; s3.buffer_capacity = 128;            assert_int_equal(mpitev_source_declare(&src, &s3), MPITEV_ERR_INVALID_ARG);
        s3 = sd; s3.buffered_by_default = 1;          assert_int_equal(mpitev_source_declare(&src, &s3), MPITEV_ERR_INVALID_ARG);
        s3 = sd; s3.desc = "x";                       assert_int_equal(mpitev_source_declare(&src, &s3), MPITEV_ERR_INVALID_ARG);
        clk2.max_ticks = 5001; s3 = sd; s3.clock = &clk2; assert_int_equal(mpitev_source_declare(&src, &s3), MPITEV_ERR_INVALID_ARG);
        /* Another object with a taken name. */
        assert_int_equal(mpitev_type_declare(&other_t, &td), MPITEV_ERR_INVALID_NAME);
        assert_int_equal(mpitev_source_declare(&other_s, &sd), MPITEV_ERR_INVALID_NAME);
        assert_int_equal(mpitev_type_index_of(&other_t, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
        int n = -1;
        OK(mpitev_type_get_num(&n));
        assert_int_equal(n, nt);
        OK(mpitev_source_get_num(&n));
        assert_int_equal(n, ns);
        mpitev_type_info info;
        OK(mpitev_type_get_info(tindex(&ev), &info));
        assert_string_equal(info.desc, "d");
        assert_int_equal(info.bind, MPITEV_BIND_MPI_COMM);
        OK(mpitev_finalize());
        /* Declaring needs mpitev_init, a no-op or not. */
        assert_int_equal(mpitev_type_declare(&ev, &td), MPITEV_ERR_NOT_INITIALIZED);
        assert_int_equal(mpitev_source_declare(&src, &sd), MPITEV_ERR_NOT_INITIALIZED);
        OK(mpitev_init());
    }
    OK(mpitev_finalize());
    /* A NULL clock is the default one, also when the default is given explicitly. */
    static mpitev_source dflt;
    OK(mpitev_init());
    mpitev_source_desc dd = src_desc("rd_default_clock", MPITEV_SOURCE_ORDERED, NULL);
    OK(mpitev_source_declare(&dflt, &dd));
    dd.clock = mpitev_clock_monotonic();
    OK(mpitev_source_declare(&dflt, &dd));
    OK(mpitev_finalize());
}

/* Declared objects keep memory from the allocator for the process: once something is
 * declared the allocator cannot change, initialised or not. */
static void *other_alloc(size_t size, size_t align, void *ctx) { (void)size; (void)align; (void)ctx; return NULL; }
static void other_free(void *p, size_t size, size_t align, void *ctx) { (void)p; (void)size; (void)align; (void)ctx; }
static void allocator_fixed_after_declaration(void **state) {
    (void)state;
    int n = -1;
    OK(mpitev_init());
    OK(mpitev_type_get_num(&n));
    assert_true(n > 0); /* earlier tests declared */
    mpitev_allocator a = { other_alloc, other_free, NULL };
    assert_int_equal(mpitev_set_allocator(&a), MPITEV_ERR_NOT_SUPPORTED);
    OK(mpitev_finalize());
    assert_int_equal(mpitev_set_allocator(&a), MPITEV_ERR_NOT_SUPPORTED);
    assert_int_equal(mpitev_set_allocator(NULL), MPITEV_ERR_NOT_SUPPORTED);
    /* Still the old allocator: a registration works. */
    static mpitev_type ev;
    OK(mpitev_init());
    mpitev_type_desc td = pair_desc("alloc_fixed", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    OK(mpitev_finalize());
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(before_init, core_teardown),
        cmocka_unit_test_teardown(refcounted, core_teardown),
        cmocka_unit_test_teardown(reinit_redeclare, core_teardown),
        cmocka_unit_test_teardown(handle_from_previous_session_stale, core_teardown),
        cmocka_unit_test_teardown(declarations_survive_without_redeclaring, core_teardown),
        cmocka_unit_test_teardown(redeclare_rules, core_teardown),
        cmocka_unit_test_teardown(allocator_fixed_after_declaration, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
