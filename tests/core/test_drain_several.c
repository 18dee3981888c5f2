/* The drain cache's entry for none or several deliveries (impl_drain.inc,
 * mpitev__drain_quick_several): its copies of a record's deliveries are checked against
 * regver once before each delivery, and each record's last check is the next record's
 * first. These tests change registrations from inside a callback at every place that
 * matters (before a later delivery of the same record, at a record's last delivery) and
 * fail if a stale copy is used after the change: a replaced callback called, a freed
 * registration called. Also: records that have no delivery at all (a bound type's
 * raise for an object nobody registered for), and MPITEV_DRAIN on an unordered source
 * (whose records case the drain call sends to the general drain). */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

static mpitev_type ev1, evb;
static mpitev_source so, su;
static char objs[4];

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc d1 = pair_desc("ev1", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc db = pair_desc("evb", MPITEV_BIND_MPI_COMM);
    mpitev_source_desc a = src_desc("so", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc u = src_desc("su", MPITEV_SOURCE_UNORDERED, NULL);
    return (mpitev_source_declare(&so, &a) || mpitev_source_declare(&su, &u) || mpitev_type_declare(&ev1, &d1) ||
            mpitev_type_declare(&evb, &db))
               ? -1
               : 0;
}

/* Every callback records (tag from user data, payload's a). */
#define MAXC 64
static struct call {
    int tag, a;
} calls[MAXC];
static int ncalls;
static int tagv[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
static void cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety;
    assert_true(ncalls < MAXC);
    struct pair p;
    OK(mpitev_instance_copy(inst, &p));
    calls[ncalls].tag = *(const int *)ud;
    calls[ncalls].a = p.a;
    ncalls++;
}

/* What the changing callback does, at the record whose a is change_at. */
static int change_at;
static mpitev_reg change_target;
static enum { SET_CALLBACK, FREE } change_kind;
static int dropped_n, freed_n, dropped_at_free;
static void dropped(mpitev_count_t n, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)source_index; (void)cb_safety; (void)ud;
    dropped_n += (int)n;
}
static void freed(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud;
    freed_n++;
    dropped_at_free = dropped_n;
}
static void changer(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    cb(inst, reg, cb_safety, ud);
    if (calls[ncalls - 1].a != change_at) return;
    if (change_kind == SET_CALLBACK) OK(mpitev_reg_set_callback(change_target, MPITEV_CB_REQUIRE_NONE, cb, &tagv[7], NULL, 0));
    else OK(mpitev_reg_free(change_target, NULL, freed));
}

static mpitev_reg reg_on(mpitev_type *t, const void *obj, mpitev_event_cb fn, int tag) {
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", "true" };
    OK(mpitev_reg_alloc(tindex(t), obj, &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, fn, &tagv[tag], NULL, 0));
    return r;
}
static void raise_on(mpitev_source *s, mpitev_type *t, const void *obj, int a) {
    struct pair p = { a, -a };
    MPITEV_RAISE(t, s, obj, MPITEV_CB_REQUIRE_NONE, &p);
}
static int drain(mpitev_source *s) {
    int n = -1;
    OK(mpitev_source_drain(s, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n));
    return n;
}
/* Three registrations on objs[1], delivered in allocation order; which one changes
 * what is the test's. The first record fills the cache's entry; the caller then checks
 * the entry for several deliveries serves the object. */
static void fill(mpitev_reg r[3]) {
    (void)r;
    ncalls = 0;
    raise_on(&so, &evb, &objs[1], 0);
    assert_int_equal(drain(&so), 3);
    assert_int_equal(so.mpitev__buf->cache.n, 3);
    assert_true(so.mpitev__buf->cache.objn == &objs[1]);
    ncalls = 0;
}
static void check_tags(const int *want_tag, const int *want_a, int n) {
    assert_int_equal(ncalls, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(calls[i].tag, want_tag[i]);
        assert_int_equal(calls[i].a, want_a[i]);
    }
}

/* Three registrations on objs[1], the one at index `by` (its callback: changer)
 * replacing the callback of the one at index `target` (user data tag 7 then) when it sees record `at`; records 1
 * to 3 raised and drained (by mpitev_source_drain, its count checked, if counted; else
 * by MPITEV_DRAIN), their deliveries checked against want_tag. r: the registrations. */
static void replaced_while_draining(int by, int target, int at, int counted, const int want_tag[9],
                                    mpitev_reg r[3]) {
    for (int i = 0; i < 3; i++) r[i] = reg_on(&evb, &objs[1], i == by ? changer : cb, i);
    change_kind = SET_CALLBACK;
    change_target = r[target];
    change_at = at;
    fill(r);
    for (int i = 1; i <= 3; i++) raise_on(&so, &evb, &objs[1], i);
    if (counted) assert_int_equal(drain(&so), 9);
    else MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    static const int a[] = { 1, 1, 1, 2, 2, 2, 3, 3, 3 };
    check_tags(want_tag, a, 9);
}

/* The first delivery of a record replaces the callback of its third registration: the
 * third delivery of that record, and every later one, go to the new callback (user data
 * tag 7), never to the copy the cache held. */
static void callback_replaced_before_a_later_delivery(void **state) {
    (void)state;
    mpitev_reg r[3];
    static const int tag1[] = { 0, 1, 2, 0, 1, 7, 0, 1, 7 };
    replaced_while_draining(0, 2, 2, 1, tag1, r);
    /* The cache refilled: quick again, with the new callback. */
    ncalls = 0;
    for (int i = 4; i <= 5; i++) raise_on(&so, &evb, &objs[1], i);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    static const int tag2[] = { 0, 1, 7, 0, 1, 7 }, a2[] = { 4, 4, 4, 5, 5, 5 };
    check_tags(tag2, a2, 6);
    for (int i = 0; i < 3; i++) OK(mpitev_reg_free(r[i], NULL, NULL));
}

/* The second delivery of a record replaces the callback of its third registration (the
 * quick loop delivers the first two of an entry in line, then the rest): the record's
 * third delivery goes live, to the new callback (tag 7), and so do the later records. */
static void callback_replaced_at_a_records_second_delivery(void **state) {
    (void)state;
    mpitev_reg r[3];
    static const int tag[] = { 0, 1, 2, 0, 1, 7, 0, 1, 7 };
    replaced_while_draining(1, 2, 2, 0, tag, r);
    for (int i = 0; i < 3; i++) OK(mpitev_reg_free(r[i], NULL, NULL));
}

/* The last delivery of a record replaces the callback of the record's first
 * registration: the next record (the same entry, checked only by the previous record's
 * last look at regver) goes to the new callback. */
static void callback_replaced_at_a_records_last_delivery(void **state) {
    (void)state;
    mpitev_reg r[3];
    static const int tag[] = { 0, 1, 2, 7, 1, 2, 7, 1, 2 };
    replaced_while_draining(2, 0, 1, 0, tag, r);
    for (int i = 0; i < 3; i++) OK(mpitev_reg_free(r[i], NULL, NULL));
}

/* The last delivery of a record frees the record's first registration: it gets nothing
 * more (the records raised before the free are dropped for it, counted, and reported
 * before its free callback), the others get every record. Exact: delivered + reported
 * dropped = raised while it was active. */
static void freed_at_a_records_last_delivery(void **state) {
    (void)state;
    mpitev_reg r[3];
    r[0] = reg_on(&evb, &objs[1], cb, 0);
    OK(mpitev_reg_set_dropped_handler(r[0], dropped));
    r[1] = reg_on(&evb, &objs[1], cb, 1);
    r[2] = reg_on(&evb, &objs[1], changer, 2);
    change_kind = FREE;
    change_target = r[0];
    change_at = 1;
    dropped_n = freed_n = 0;
    dropped_at_free = -1;
    fill(r);
    for (int i = 1; i <= 4; i++) raise_on(&so, &evb, &objs[1], i);
    assert_int_equal(drain(&so), 3 + 3 * 2);
    static const int tag[] = { 0, 1, 2, 1, 2, 1, 2, 1, 2 }, a[] = { 1, 1, 1, 2, 2, 3, 3, 4, 4 };
    check_tags(tag, a, 9);
    for (int i = 0; i < 4 && freed_n == 0; i++) (void)drain(&so);
    assert_int_equal(freed_n, 1);
    assert_int_equal(dropped_n, 3); /* records 2, 3, 4; 0 and 1 delivered: 5 raised */
    assert_int_equal(dropped_at_free, 3);
    OK(mpitev_reg_free(r[1], NULL, NULL));
    OK(mpitev_reg_free(r[2], NULL, NULL));
}

/* A bound type's raise for an object nobody registered for still makes a record when
 * someone buffers the type (on another object): it has no delivery. Such records are
 * served by a slot of their own (its delivery, mpitev__drain_nothing, is no callback of
 * the tool's and is not counted), interleaved with records that have one; a
 * registration for that object later gets what is raised after it. */
static void records_without_delivery(void **state) {
    (void)state;
    mpitev_reg r0 = reg_on(&evb, &objs[0], cb, 0);
    ncalls = 0;
    raise_on(&so, &evb, &objs[3], 100);
    raise_on(&so, &evb, &objs[0], 101);
    assert_int_equal(drain(&so), 1); /* fills a slot for each */
    mpitev__drain_cache *k = &so.mpitev__buf->cache;
    const mpitev__drain_slot *none =
        mpitev__drain_slot_find(k, (uintptr_t)atomic_load(&evb.mpitev__regs), &objs[3]);
    assert_true(none->obj == &objs[3] && none->d.fn == mpitev__drain_nothing);
    for (int i = 0; i < 6; i++) raise_on(&so, &evb, &objs[(i & 1) ? 0 : 3], i);
    assert_int_equal(drain(&so), 3);
    raise_on(&so, &evb, &objs[3], 6); /* alone: the drain calls' one-record cases */
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    raise_on(&so, &evb, &objs[3], 6);
    assert_int_equal(drain(&so), 0);
    static const int tag[] = { 0, 0, 0, 0 }, a[] = { 101, 1, 3, 5 };
    check_tags(tag, a, 4);
    const struct mpitev__srcbuf *b = so.mpitev__buf;
    assert_true(atomic_load(&b->head) == atomic_load(&so.mpitev__spsc.tail)); /* all passed */
    mpitev_reg r3 = reg_on(&evb, &objs[3], cb, 3);
    ncalls = 0;
    raise_on(&so, &evb, &objs[3], 7);
    raise_on(&so, &evb, &objs[3], 8);
    assert_int_equal(drain(&so), 2);
    static const int tag2[] = { 3, 3 }, a2[] = { 7, 8 };
    check_tags(tag2, a2, 2);
    OK(mpitev_reg_free(r0, NULL, NULL));
    OK(mpitev_reg_free(r3, NULL, NULL));
}

/* Records with no delivery and records with two, alternating (a type bound to one
 * communicator by two tools, raised for that one and for another): both are served
 * by the cache, no refill by the general drain (its grace section) per record. With one
 * entry for none and several alike, each record evicted the other's. */
static int graced;
static void cb_grace(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    cb(inst, reg, cb_safety, ud);
    const struct mpitev__srcbuf *b = so.mpitev__buf;
    graced += atomic_load(&b->grace.inflight[0]) + atomic_load(&b->grace.inflight[1]) != 0;
}
static void none_and_several_alternating(void **state) {
    (void)state;
    mpitev_reg x = reg_on(&evb, &objs[1], cb_grace, 1), y = reg_on(&evb, &objs[1], cb_grace, 2);
    raise_on(&so, &evb, &objs[1], 0); /* fill both */
    raise_on(&so, &evb, &objs[2], 0);
    assert_int_equal(drain(&so), 2);
    ncalls = graced = 0;
    for (int i = 1; i <= 8; i++) raise_on(&so, &evb, &objs[(i & 1) ? 1 : 2], i);
    assert_int_equal(drain(&so), 8); /* four records with two deliveries each */
    for (int i = 1; i <= 4; i++) { /* and one record per call */
        raise_on(&so, &evb, &objs[(i & 1) ? 1 : 2], 10 + i);
        assert_int_equal(drain(&so), (i & 1) ? 2 : 0);
    }
    assert_int_equal(ncalls, 12);
    assert_int_equal(graced, 0);
    static const int tag[] = { 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2 }, a[] = { 1, 1, 3, 3, 5, 5, 7, 7, 11, 11, 13, 13 };
    check_tags(tag, a, 12);
    OK(mpitev_reg_free(x, NULL, NULL));
    OK(mpitev_reg_free(y, NULL, NULL));
}

/* MPITEV_DRAIN on an unordered source: its ring's unused ordered tail never looks like
 * one record published, so the drain call's records case hands it to the general drain,
 * which delivers everything, in order; an empty poll delivers nothing. */
static void unordered_source_through_the_drain_call(void **state) {
    (void)state;
    mpitev_reg r = reg_on(&ev1, NULL, cb, 4);
    ncalls = 0;
    for (int i = 0; i < 3; i++) raise_on(&su, &ev1, NULL, i);
    MPITEV_DRAIN(&su, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    MPITEV_DRAIN(&su, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    raise_on(&su, &ev1, NULL, 3);
    MPITEV_DRAIN(&su, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    static const int tag[] = { 4, 4, 4, 4 }, a[] = { 0, 1, 2, 3 };
    check_tags(tag, a, 4);
    assert_int_equal(drain(&su), 0);
    assert_int_equal(atomic_load(&su.mpitev__buf->claim), 0); /* released */
    OK(mpitev_reg_free(r, NULL, NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(callback_replaced_before_a_later_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(callback_replaced_at_a_records_second_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(callback_replaced_at_a_records_last_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(freed_at_a_records_last_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(records_without_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(none_and_several_alternating, setup, core_teardown),
        cmocka_unit_test_setup_teardown(unordered_source_through_the_drain_call, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
