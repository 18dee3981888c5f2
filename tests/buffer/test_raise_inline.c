/* The raise's inline buffered path (raise.inc): when a raise site writes its record in
 * place, and that it delivers exactly what the out-of-line path delivers. White-box
 * where the path taken is invisible from outside (the set's fast table). */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "../api_helpers.h"

#define OK(expr) assert_int_equal((expr), MPITEV_SUCCESS)

struct msg { int32_t a; int32_t b; int64_t seq; };
static const mpitev_element msg_elems[] = {
    MPITEV_ELEMENT_OF(struct msg, a, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg, b, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg, seq, MPITEV_DTYPE_INT64),
};
struct big { char text[320]; }; /* above MPITEV__FAST_MAX */
static const mpitev_element big_elems[] = { MPITEV_CHARS_OF(struct big, text) };

/* The payload size a raise site sees (compile time). */
_Static_assert(MPITEV__PAYLOAD_SIZE(&(struct msg){ 1, 2, 3 }) == sizeof(struct msg), "struct pointer");
_Static_assert(MPITEV__PAYLOAD_SIZE((const struct msg *)0) == sizeof(struct msg), "const struct pointer");
_Static_assert(MPITEV__PAYLOAD_SIZE(NULL) == 0, "NULL");
_Static_assert(MPITEV__PAYLOAD_SIZE(0) == 0, "literal 0");
_Static_assert(MPITEV__PAYLOAD_SIZE((void *)0) == 0, "void pointer");
_Static_assert(MPITEV__PAYLOAD_SIZE((const void *)0) == 0, "const void pointer");
_Static_assert(MPITEV__PAYLOAD_SIZE((const char *)0) == 1, "bytes: size 1, never a declared struct");

static mpitev_type ev, ev_nopsize, ev_empty, ev_big;
static mpitev_source ord, ord_small, unord, late, ord_tsc;

static int64_t seen_seq[64], seen_ts[64];
static int nseen, seen_nopayload;

static int setup(void **state) {
    (void)state;
    nseen = seen_nopayload = 0;
    /* Declarations live for the process: the first setup declares, later ones repeat
     * the same descriptors (a no-op). */
    if (mpitev_init()) return -1;
    mpitev_type_desc td = { .name = "ev", .elements = msg_elems, .num_elements = 3, .payload_size = sizeof(struct msg) };
    if (mpitev_type_declare(&ev, &td)) return -1;
    td.name = "ev_nopsize";
    td.payload_size = 0;
    if (mpitev_type_declare(&ev_nopsize, &td)) return -1;
    if (mpitev_type_declare(&ev_empty, &(mpitev_type_desc){ .name = "ev_empty" })) return -1;
    if (mpitev_type_declare(&ev_big, &(mpitev_type_desc){ .name = "ev_big", .elements = big_elems, .num_elements = 1,
                                                         .payload_size = sizeof(struct big) }))
        return -1;
    /* Records of 512 bytes: ev_big fits them, but is too big to copy in place. */
    mpitev_source_desc d = { .name = "ord", .ordering = MPITEV_SOURCE_ORDERED, .buffer_capacity = 8,
                             .buffer_record_size = 512 };
    if (mpitev_source_declare(&ord, &d)) return -1;
    d.name = "ord_small";
    d.buffer_record_size = 8; /* struct msg (16 bytes) does not fit */
    if (mpitev_source_declare(&ord_small, &d)) return -1;
    d.name = "unord";
    d.ordering = MPITEV_SOURCE_UNORDERED;
    d.buffer_record_size = 0;
    if (mpitev_source_declare(&unord, &d)) return -1;
    return 0;
}
static int teardown(void **state) {
    (void)state;
    while (is_initialized()) mpitev_finalize();
    return 0;
}

static void cb(const mpitev_instance *i, mpitev_reg r, int safety, void *ud) {
    (void)r; (void)safety; (void)ud; struct msg m = { 0, 0, -1 };
    int64_t ts = -1;
    OK(mpitev_instance_timestamp(i, &ts));
    int t = -1;
    OK(mpitev_instance_type(i, &t));
    if (t == tindex(&ev_empty)) {
        seen_nopayload++;
        m.seq = -2;
    } else {
        OK(mpitev_instance_copy(i, &m));
        assert_int_equal(m.a, (int32_t)m.seq + 1);
        assert_int_equal(m.b, 7);
    }
    assert_true(nseen < 64);
    seen_seq[nseen] = m.seq;
    seen_ts[nseen++] = ts;
}

static mpitev_reg reg(mpitev_type *t, const char *buffered) {
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", buffered };
    OK(mpitev_reg_alloc(tindex(t), NULL, &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, cb, NULL, NULL, 0));
    return r;
}

static unsigned fast(mpitev_type *t, mpitev_source *s) {
    const struct mpitev__regset_raise *set =
        (const struct mpitev__regset_raise *)(void *)atomic_load(&t->mpitev__regs);
    assert_non_null(set);
    return set->fast[sindex(s)];
}

/* The table: 1 + the declared size exactly where one in-place record does it all. */
static void fast_table(void **state) {
    (void)state;
    mpitev_reg r = reg(&ev, "true");
    assert_int_equal(fast(&ev, &ord), 1 + sizeof(struct msg));
    assert_int_equal(fast(&ev, &unord), 0);     /* unordered: mpsc ring, out of line */
    assert_int_equal(fast(&ev, &ord_small), 0); /* record too small: drop, out of line */
    mpitev_reg r2 = reg(&ev, "false");          /* an immediate registration too */
    assert_int_equal(fast(&ev, &ord), 0);
    OK(mpitev_reg_free(r2, NULL, NULL));
    assert_int_equal(fast(&ev, &ord), 1 + sizeof(struct msg));
    reg(&ev_nopsize, "true");
    assert_int_equal(fast(&ev_nopsize, &ord), 0); /* size unknown to the raise site */
    reg(&ev_empty, "true");
    assert_int_equal(fast(&ev_empty, &ord), 1);
    reg(&ev_big, "true");
    assert_int_equal(fast(&ev_big, &ord), 0);     /* above MPITEV__FAST_MAX */
    (void)r;
}

/* A source declared after the registrations: the sets are republished for it. */
static void late_source_gets_entry(void **state) {
    (void)state;
    reg(&ev, "true");
    OK(mpitev_source_declare(&late, &(mpitev_source_desc){ .name = "late", .ordering = MPITEV_SOURCE_ORDERED }));
    assert_int_equal(fast(&ev, &late), 1 + sizeof(struct msg));
}

static void raise_typed(mpitev_source *s, int64_t seq) {
    MPITEV_RAISE(&ev, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &(struct msg){ (int32_t)seq + 1, 7, seq });
}
static void raise_void(mpitev_source *s, int64_t seq) {
    struct msg m = { (int32_t)seq + 1, 7, seq };
    const void *p = &m; /* size unknown at the raise site: out of line */
    MPITEV_RAISE(&ev, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, p);
}

/* rounds of n raises on s, typed (in place when s allows) and void (out of line)
 * alternating, each round drained: delivered in raise order, timestamps never
 * decreasing (and positive if ts_positive). */
static void interleave_and_check(mpitev_source *s, int rounds, int n, int ts_positive) {
    int64_t seq = 0;
    for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < n; k++, seq++) (k & 1 ? raise_void : raise_typed)(s, seq);
        assert_int_equal(drain_n(s, -1, MPITEV_CB_REQUIRE_NONE), n);
    }
    assert_int_equal(nseen, rounds * n);
    for (int i = 0; i < rounds * n; i++) {
        assert_int_equal(seen_seq[i], i);
        if (ts_positive) assert_true(seen_ts[i] > 0);
        if (i) assert_true(seen_ts[i] >= seen_ts[i - 1]);
    }
}

/* In place and out of line interleave on one source: one order, one record format,
 * timestamps that never decrease, wrap-around (capacity 8) and a full ring on both. */
static void inline_and_out_of_line_agree(void **state) {
    (void)state;
    reg(&ev, "true");
    assert_int_equal(fast(&ev, &ord), 1 + sizeof(struct msg));
    interleave_and_check(&ord, 5, 5, 0);
    /* Full: 8 records fit, the 9th and 10th are dropped (counted by the cold path). */
    nseen = 0;
    for (int k = 0; k < 10; k++) raise_typed(&ord, 100 + k);
    assert_int_equal(drain_n(&ord, -1, MPITEV_CB_REQUIRE_NONE), 8);
    assert_int_equal(seen_seq[7], 107);
}

/* A type without elements, raised with NULL: written in place, payload NULL. */
static void empty_type_in_place(void **state) {
    (void)state;
    reg(&ev_empty, "true");
    for (int k = 0; k < 3; k++) MPITEV_RAISE(&ev_empty, &ord, NULL, MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(drain_n(&ord, -1, MPITEV_CB_REQUIRE_NONE), 3);
    assert_int_equal(seen_nopayload, 3);
}

/* The grace word is idle again after every in-place raise (a raise that left it set
 * would block every later reclamation). */
static void grace_word_idle_after_raise(void **state) {
    (void)state;
    reg(&ev, "true");
    /* ord lives on from the earlier tests (its ring is empty): one record more. */
    uint64_t tail0 = atomic_load(&ord.mpitev__spsc.tail);
    raise_typed(&ord, 1);
    assert_int_equal(atomic_load(&ord.mpitev__active), 1);
    assert_int_equal(atomic_load(&ord.mpitev__spsc.tail), tail0 + 1);
    /* A registry change after the raise completes: the old sets go after a grace period
     * and, since they may name records, after the drain. */
    mpitev_reg r2 = reg(&ev, "true");
    OK(mpitev_reg_free(r2, NULL, NULL));
    assert_int_equal(drain_n(&ord, -1, MPITEV_CB_REQUIRE_NONE), 1);
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    assert_null(mpitev__state.retired_head);
    assert_null(mpitev__state.bufwait_head);
}

/* An ordered source on the TSC clock: in place and out of line interleaved deliver in
 * order with non-decreasing timestamps, as on the default clock. With MPITEV_INLINE_TSC
 * (the buffer_raise_inline_tsc build) the typed raises read rdtsc in place and the void
 * ones go out of line through mpitev__raise_clocked; the default-clock tests above then
 * run out of line. */
static void tsc_source_in_place_and_out_of_line_agree(void **state) {
    (void)state;
    const mpitev_clock *tsc = mpitev_clock_tsc();
    if (!tsc) {
        skip(); /* no invariant TSC here */
        return;
    }
    OK(mpitev_source_declare(&ord_tsc, &(mpitev_source_desc){ .name = "ord_tsc", .ordering = MPITEV_SOURCE_ORDERED,
                                                             .clock = tsc, .buffer_capacity = 8 }));
    assert_int_equal(ord_tsc.mpitev__tsc, 1);
    assert_int_equal(ord.mpitev__tsc, 0);
    reg(&ev, "true");
    assert_int_equal(fast(&ev, &ord_tsc), 1 + sizeof(struct msg));
    interleave_and_check(&ord_tsc, 3, 6, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(fast_table, setup, teardown),
        cmocka_unit_test_setup_teardown(late_source_gets_entry, setup, teardown),
        cmocka_unit_test_setup_teardown(inline_and_out_of_line_agree, setup, teardown),
        cmocka_unit_test_setup_teardown(empty_type_in_place, setup, teardown),
        cmocka_unit_test_setup_teardown(grace_word_idle_after_raise, setup, teardown),
        cmocka_unit_test_setup_teardown(tsc_source_in_place_and_out_of_line_agree, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
