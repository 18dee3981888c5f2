/* MPITEV_RAISE's payload forms on buffered sources (public API only): a pointer to the
 * declared struct, an untyped pointer, a pointer to its bytes, NULL for a type without
 * elements, a payload larger than most; on ordered sources (default clock, TSC clock)
 * and unordered ones, records larger or smaller than the payload, sources declared
 * after the registrations. Whatever the form, the drain delivers the whole payload, in
 * raise order, with timestamps that never decrease, and a record that does not fit is
 * dropped and reported. */
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
struct big { char text[320]; };
static const mpitev_element big_elems[] = { MPITEV_CHARS_OF(struct big, text) };

static mpitev_type ev, ev_nopsize, ev_empty, ev_big;
static mpitev_source ord, ord_small, unord, late, ord_tsc;

static int64_t seen_seq[64], seen_ts[64];
static int nseen, seen_nopayload, seen_big, ndropped;
static char big_text(int i) { return (char)('a' + i % 26); }

static int setup(void **state) {
    (void)state;
    nseen = seen_nopayload = seen_big = ndropped = 0;
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
    } else if (t == tindex(&ev_big)) {
        static struct big b;
        OK(mpitev_instance_copy(i, &b));
        for (int k = 0; k < (int)sizeof b.text; k++) assert_int_equal(b.text[k], big_text(k));
        seen_big++;
        m.seq = -3;
    } else {
        OK(mpitev_instance_copy(i, &m));
        assert_int_equal(m.a, (int32_t)m.seq + 1);
        assert_int_equal(m.b, 7);
    }
    assert_true(nseen < 64);
    seen_seq[nseen] = m.seq;
    seen_ts[nseen++] = ts;
}

static void dropped_cb(mpitev_count_t n, mpitev_reg r, int si, int safety, void *ud) {
    (void)r; (void)si; (void)safety; (void)ud;
    ndropped += (int)n;
}
static mpitev_reg reg(mpitev_type *t, const char *buffered) {
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", buffered };
    OK(mpitev_reg_alloc(tindex(t), NULL, &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, cb, NULL, NULL, 0));
    OK(mpitev_reg_set_dropped_handler(r, dropped_cb));
    return r;
}

/* A source declared after the registrations gets their records like the others. */
static void late_source_gets_records(void **state) {
    (void)state;
    reg(&ev, "true");
    OK(mpitev_source_declare(&late, &(mpitev_source_desc){ .name = "late", .ordering = MPITEV_SOURCE_ORDERED }));
    MPITEV_RAISE(&ev, &late, NULL, MPITEV_CB_REQUIRE_NONE, &(struct msg){ 1, 7, 0 });
    assert_int_equal(nseen, 0);
    assert_int_equal(drain_n(&late, -1, MPITEV_CB_REQUIRE_NONE), 1);
    assert_int_equal(seen_seq[0], 0);
}

static void raise_typed(mpitev_source *s, int64_t seq) {
    MPITEV_RAISE(&ev, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &(struct msg){ (int32_t)seq + 1, 7, seq });
}
static void raise_void(mpitev_source *s, int64_t seq) {
    struct msg m = { (int32_t)seq + 1, 7, seq };
    const void *p = &m; /* the size unknown at the raise site: the declared one */
    MPITEV_RAISE(&ev, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, p);
}
static void raise_bytes(mpitev_source *s, int64_t seq) {
    struct msg m = { (int32_t)seq + 1, 7, seq };
    unsigned char bytes[sizeof m];
    memcpy(bytes, &m, sizeof m);
    const unsigned char *p = bytes; /* a pointer to bytes: the declared size, not 1 */
    MPITEV_RAISE(&ev, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, p);
}
static void raise_nopsize(mpitev_source *s, int64_t seq) {
    /* a type declared without payload_size, raised with its struct */
    MPITEV_RAISE(&ev_nopsize, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &(struct msg){ (int32_t)seq + 1, 7, seq });
}
static void (*const raise_forms[])(mpitev_source *, int64_t) = { raise_typed, raise_void, raise_bytes, raise_nopsize };

/* rounds of n raises on s, the four payload forms in turn, each round drained:
 * delivered in raise order, whole, timestamps never decreasing (and positive if
 * ts_positive). */
static void interleave_and_check(mpitev_source *s, int rounds, int n, int ts_positive) {
    int64_t seq = 0;
    for (int round = 0; round < rounds; round++) {
        for (int k = 0; k < n; k++, seq++) raise_forms[(round + k) % 4](s, seq);
        assert_int_equal(drain_n(s, -1, MPITEV_CB_REQUIRE_NONE), n);
    }
    assert_int_equal(nseen, rounds * n);
    for (int i = 0; i < rounds * n; i++) {
        assert_int_equal(seen_seq[i], i);
        if (ts_positive) assert_true(seen_ts[i] > 0);
        if (i) assert_true(seen_ts[i] >= seen_ts[i - 1]);
    }
}

/* The payload forms interleave on one source: one order, one record format, timestamps
 * that never decrease, across the wrap (capacity 8); a full ring drops the rest, counted
 * and reported after the records raised before. On an unordered source the same. */
static void payload_forms_agree(void **state) {
    (void)state;
    reg(&ev, "true");
    reg(&ev_nopsize, "true");
    interleave_and_check(&ord, 5, 5, 0);
    nseen = 0;
    for (int k = 0; k < 10; k++) raise_forms[k % 4](&ord, 100 + k);
    assert_int_equal(drain_n(&ord, -1, MPITEV_CB_REQUIRE_NONE), 8);
    assert_int_equal(seen_seq[7], 107);
    assert_int_equal(ndropped, 2);
    nseen = 0;
    interleave_and_check(&unord, 3, 7, 0);
}

/* A type without elements, raised with NULL, 0 or a null void pointer: delivered, with
 * no payload. */
static void empty_type(void **state) {
    (void)state;
    reg(&ev_empty, "true");
    MPITEV_RAISE(&ev_empty, &ord, NULL, MPITEV_CB_REQUIRE_NONE, NULL);
    MPITEV_RAISE(&ev_empty, &ord, NULL, MPITEV_CB_REQUIRE_NONE, 0);
    MPITEV_RAISE(&ev_empty, &ord, NULL, MPITEV_CB_REQUIRE_NONE, (const void *)0);
    MPITEV_RAISE(&ev_empty, &unord, NULL, MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(drain_n(&ord, -1, MPITEV_CB_REQUIRE_NONE), 3);
    assert_int_equal(drain_n(&unord, -1, MPITEV_CB_REQUIRE_NONE), 1);
    assert_int_equal(seen_nopayload, 4);
}

/* A 320-byte payload in 512-byte records: delivered whole, typed or untyped. */
static void big_payload(void **state) {
    (void)state;
    reg(&ev_big, "true");
    static struct big b;
    for (int k = 0; k < (int)sizeof b.text; k++) b.text[k] = big_text(k);
    MPITEV_RAISE(&ev_big, &ord, NULL, MPITEV_CB_REQUIRE_NONE, &b);
    MPITEV_RAISE(&ev_big, &ord, NULL, MPITEV_CB_REQUIRE_NONE, (const void *)&b);
    assert_int_equal(drain_n(&ord, -1, MPITEV_CB_REQUIRE_NONE), 2);
    assert_int_equal(seen_big, 2);
    assert_int_equal(ndropped, 0);
}

/* Records too small for the payload (8 bytes, struct msg is 16): every form dropped,
 * counted and reported; a payload-less raise of the same type fits. */
static void record_too_small(void **state) {
    (void)state;
    reg(&ev, "true");
    for (int k = 0; k < 4; k++) raise_forms[k](&ord_small, k);
    assert_int_equal(drain_n(&ord_small, -1, MPITEV_CB_REQUIRE_NONE), 0);
    assert_int_equal(nseen, 0);
    assert_int_equal(ndropped, 3); /* (raise_nopsize is ev_nopsize's, nobody listens) */
}

/* A raise is over when it returns: a free asked for after in-place raises completes,
 * and the records are still delivered to the registrations of their raise. */
static int frees;
static void free_cb(mpitev_reg r, int safety, void *ud) {
    (void)r; (void)safety; (void)ud;
    frees++;
}
static void free_after_raises_completes(void **state) {
    (void)state;
    reg(&ev, "true");
    mpitev_reg r2 = reg(&ev, "true");
    frees = 0;
    raise_typed(&ord, 1);
    raise_typed(&ord, 2);
    OK(mpitev_reg_free(r2, NULL, free_cb));
    assert_int_equal(drain_n(&ord, -1, MPITEV_CB_REQUIRE_NONE), 2); /* the other one's */
    for (int i = 0; i < 4 && !frees; i++) OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    assert_int_equal(frees, 1);
    assert_int_equal(ndropped, 2); /* r2's two, reported before its free callback */
}

/* An ordered source on the TSC clock: the payload forms interleaved deliver in order
 * with positive, non-decreasing timestamps, as on the default clock. */
static void tsc_source(void **state) {
    (void)state;
    const mpitev_clock *tsc = mpitev_clock_tsc();
    if (!tsc) {
        skip(); /* no invariant TSC here */
        return;
    }
    OK(mpitev_source_declare(&ord_tsc, &(mpitev_source_desc){ .name = "ord_tsc", .ordering = MPITEV_SOURCE_ORDERED,
                                                             .clock = tsc, .buffer_capacity = 8 }));
    reg(&ev, "true");
    reg(&ev_nopsize, "true");
    interleave_and_check(&ord_tsc, 3, 6, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(late_source_gets_records, setup, teardown),
        cmocka_unit_test_setup_teardown(payload_forms_agree, setup, teardown),
        cmocka_unit_test_setup_teardown(empty_type, setup, teardown),
        cmocka_unit_test_setup_teardown(big_payload, setup, teardown),
        cmocka_unit_test_setup_teardown(record_too_small, setup, teardown),
        cmocka_unit_test_setup_teardown(free_after_raises_completes, setup, teardown),
        cmocka_unit_test_setup_teardown(tsc_source, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
