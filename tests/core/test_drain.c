/* The drain, seen from the tool and the progress engine (public API only): what each
 * callback gets, in which order and how often, when records are drained one per call
 * or many at once, across the ring's wrap, with several registrations per type and
 * object, with bound types alternating objects, with records that reach nobody, when a
 * callback frees or changes registrations in the middle of a drain, when the drain's
 * level changes between calls, when a drop is pending, and when drains nest or run
 * concurrently (one drainer per ring: the other returns at once with 0). Every drain
 * goes through MPITEV_DRAIN or mpitev_source_drain, often both in turn, since a
 * progress engine may use either. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

#include <pthread.h>
#include <semaphore.h>

#define SEC_FIELDS(X)                 \
    X(int32_t, a, MPITEV_DTYPE_INT32) \
    X(int64_t, b, MPITEV_DTYPE_INT64)
MPITEV_EVENT_TYPE(drain_ev, SEC_FIELDS) /* the layout of struct pair */
MPITEV_EVENT_DEFINE(drain_ev)
MPITEV_EVENT_TYPE_EMPTY(drain_empty)
MPITEV_EVENT_DEFINE(drain_empty)

static mpitev_type ev1, ev2, evb;
static mpitev_source so, so2, so4, su; /* so4: a ring of 4 records; su: unordered */
static char objs[4];

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc d1 = pair_desc("ev1", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc d2 = pair_desc("ev2", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc db = pair_desc("evb", MPITEV_BIND_MPI_COMM);
    mpitev_source_desc a = src_desc("so", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc a2 = src_desc("so2", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc a4 = src_desc("so4", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc u = src_desc("su", MPITEV_SOURCE_UNORDERED, NULL);
    a4.buffer_capacity = 4;
    return (mpitev_source_declare(&so, &a) || mpitev_source_declare(&so2, &a2) || mpitev_source_declare(&so4, &a4) ||
            mpitev_source_declare(&su, &u) || mpitev_type_declare(&ev1, &d1) || mpitev_type_declare(&ev2, &d2) ||
            mpitev_type_declare(&evb, &db) ||
            drain_ev_declare((mpitev_type_desc){ .verbosity = MPITEV_VERBOSITY_USER_BASIC }) ||
            drain_empty_declare((mpitev_type_desc){ .verbosity = MPITEV_VERBOSITY_USER_BASIC }))
               ? -1
               : 0;
}

/* One log of what the tool sees, in order: deliveries ('E': tag from the user data,
 * type, payload's a, level) and drop reports ('D': tag, count). */
#define MAXC 256
static struct call {
    char kind;
    int tag, type, a, cb_safety;
    int64_t b, ts;
    mpitev_count_t count;
} calls[MAXC];
static int ncalls; /* deliveries and reports */
static int tagv[64];

static void cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg;
    assert_true(ncalls < MAXC);
    struct call *c = &calls[ncalls++];
    struct pair p = { -1, -1 };
    OK(mpitev_instance_type(inst, &c->type));
    if (c->type != tindex(&drain_empty_type)) OK(mpitev_instance_copy(inst, &p));
    OK(mpitev_instance_timestamp(inst, &c->ts));
    c->b = p.b;
    c->kind = 'E';
    c->tag = *(const int *)ud;
    c->a = p.a;
    c->cb_safety = cb_safety;
    c->count = 0;
}
static void dropped(mpitev_count_t n, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)source_index; (void)cb_safety;
    assert_true(ncalls < MAXC);
    struct call *c = &calls[ncalls++];
    memset(c, 0, sizeof *c);
    c->kind = 'D';
    c->tag = ud ? *(const int *)ud : -1; /* (the user data of the callback that would run: none left) */
    c->count = n;
}
static int freed_n;
static int reports_at_free; /* the drop reports logged when the free callback ran */
static void freed(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud;
    freed_n++;
    reports_at_free = 0;
    for (int i = 0; i < ncalls; i++) reports_at_free += calls[i].kind == 'D' ? (int)calls[i].count : 0;
}

/* A registration of t on obj with callback fn at MPITEV_CB_REQUIRE_NONE, tagged tag,
 * with the dropped handler; buffered: the "mpitev_buffered" hint's value. */
static mpitev_reg reg_with(mpitev_type *t, const void *obj, const char *buffered, mpitev_event_cb fn, int tag) {
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", buffered };
    OK(mpitev_reg_alloc(tindex(t), obj, &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, fn, &tagv[tag], NULL, 0));
    OK(mpitev_reg_set_dropped_handler(r, dropped));
    return r;
}
static mpitev_reg reg_buf(mpitev_type *t, const void *obj, int tag) { return reg_with(t, obj, "true", cb, tag); }
static void raise_at(mpitev_source *s, mpitev_type *t, const void *obj, int a) {
    struct pair p = { a, -a };
    MPITEV_RAISE(t, s, obj, MPITEV_CB_REQUIRE_NONE, &p);
}
static void raise1(mpitev_type *t, const void *obj, int a) { raise_at(&so, t, obj, a); }
static int drain_src(mpitev_source *s) {
    int n = -1;
    OK(mpitev_source_drain(s, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n));
    return n;
}
static int drain(void) { return drain_src(&so); }
static void check_calls(const int *want_tag, const int *want_a, int n) {
    assert_int_equal(ncalls, n);
    for (int i = 0; i < n; i++) {
        assert_int_equal(calls[i].kind, 'E');
        assert_int_equal(calls[i].tag, want_tag[i]);
        assert_int_equal(calls[i].a, want_a[i]);
    }
}
/* The same for the deliveries alone (drop reports may come anywhere in between). */
static void check_events(const int *want_tag, const int *want_a, int n) {
    int k = 0;
    for (int i = 0; i < ncalls; i++) {
        if (calls[i].kind != 'E') continue;
        assert_true(k < n);
        assert_int_equal(calls[i].tag, want_tag[k]);
        assert_int_equal(calls[i].a, want_a[k]);
        k++;
    }
    assert_int_equal(k, n);
}
static void free_all(mpitev_reg *r, int n) {
    for (int i = 0; i < n; i++) OK(mpitev_reg_free(r[i], NULL, NULL));
}

/* The thread's delivery room is whole: a drain's callback that raises an immediate
 * event gets it delivered (MPITEV_MAX_DEPTH 2: the drain's callback and the raise's),
 * with no drop. A level lost by an earlier call would leave the nested raise too deep. */
static mpitev_reg room_imm;
static void room_raiser(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    cb(inst, reg, cb_safety, ud);
    raise_at(&so2, &ev2, NULL, 1000);
}
static void assert_room_whole(void) {
    assert_true(MPITEV_MAX_DEPTH >= 2);
    mpitev_reg outer = reg_with(&evb, &objs[0], "true", room_raiser, 60);
    room_imm = reg_with(&ev2, NULL, "false", cb, 61);
    int before = ncalls;
    raise_at(&so4, &evb, &objs[0], 999);
    assert_int_equal(drain_src(&so4), 1);
    assert_int_equal(ncalls, before + 2);
    assert_int_equal(calls[before].tag, 60);
    assert_int_equal(calls[before + 1].kind, 'E'); /* delivered, not a drop report */
    assert_int_equal(calls[before + 1].tag, 61);
    assert_int_equal(calls[before + 1].a, 1000);
    OK(mpitev_reg_free(outer, NULL, NULL));
    OK(mpitev_reg_free(room_imm, NULL, NULL));
    ncalls = before;
}

/* One record per drain call, types alternating, through MPITEV_DRAIN and
 * mpitev_source_drain in turn: each delivered to its type's registration with its own
 * payload and type, nothing else reported; the thread's room whole after. */
static void one_record_per_call(void **state) {
    (void)state;
    mpitev_reg r[2] = { reg_buf(&ev1, NULL, 1), reg_buf(&ev2, NULL, 2) };
    ncalls = 0;
    raise1(&ev1, NULL, 100);
    raise1(&ev2, NULL, 101);
    assert_int_equal(drain(), 2);
    for (int i = 0; i < 10; i++) {
        mpitev_type *t = (i & 2) ? &ev2 : &ev1;
        raise1(t, NULL, i);
        if (i & 1) MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        else assert_int_equal(drain(), 1);
        assert_int_equal(ncalls, 3 + i);
    }
    for (int i = 0; i < 10; i++) {
        struct call *c = &calls[2 + i];
        assert_int_equal(c->kind, 'E');
        assert_int_equal(c->a, i);
        assert_int_equal(c->tag, (i & 2) ? 2 : 1);
        assert_int_equal(c->type, tindex((i & 2) ? &ev2 : &ev1));
        assert_int_equal(c->cb_safety, MPITEV_CB_REQUIRE_NONE);
    }
    assert_int_equal(drain(), 0);
    assert_room_whole();
    free_all(r, 2);
}

/* Three registrations on one object and one on another type, records interleaved:
 * every registration once per record, in allocation order, records in raise order. */
static void several_registrations_per_record(void **state) {
    (void)state;
    mpitev_reg x[3], y;
    for (int i = 0; i < 3; i++) x[i] = reg_buf(&evb, &objs[1], i);
    y = reg_buf(&ev1, NULL, 5);
    for (int pass = 0; pass < 2; pass++) { /* the same twice: nothing left from the first */
        ncalls = 0;
        for (int i = 1; i <= 4; i++) raise1(&evb, &objs[1], i);
        raise1(&ev1, NULL, 5);
        raise1(&evb, &objs[1], 6);
        raise1(&evb, &objs[2], 7); /* nobody on objs[2] */
        if (pass) MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        else assert_int_equal(drain(), 4 * 3 + 1 + 3);
        assert_int_equal(ncalls, 16);
        int k = 0;
        for (int i = 1; i <= 6; i++) {
            int ntags = i == 5 ? 1 : 3;
            for (int j = 0; j < ntags; j++, k++) {
                assert_int_equal(calls[k].a, i);
                assert_int_equal(calls[k].tag, i == 5 ? 5 : j);
                assert_int_equal(calls[k].type, tindex(i == 5 ? &ev1 : &evb));
            }
        }
    }
    free_all(x, 3);
    free_all(&y, 1);
}

/* Records across the ring's end: a ring of 4, three records per drain call, so that the
 * calls wrap at every position in turn; each record delivered to both registrations,
 * in order, with its own payload, through mpitev_source_drain and MPITEV_DRAIN alike;
 * a fifth record in a full ring is dropped, reported before the next one. */
static void records_across_the_wrap(void **state) {
    (void)state;
    mpitev_reg x[2];
    for (int i = 0; i < 2; i++) x[i] = reg_buf(&evb, &objs[1], i);
    for (int round = 0; round < 12; round++) {
        ncalls = 0;
        for (int j = 0; j < 3; j++) raise_at(&so4, &evb, &objs[1], round * 3 + j);
        if (round & 1) MPITEV_DRAIN(&so4, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        else assert_int_equal(drain_src(&so4), 6);
        assert_int_equal(ncalls, 6);
        for (int k = 0; k < 6; k++) {
            assert_int_equal(calls[k].a, round * 3 + k / 2);
            assert_int_equal(calls[k].tag, k % 2);
            assert_int_equal(calls[k].type, tindex(&evb));
        }
    }
    /* Full: four fit, the fifth is dropped for both; reported before record 6. */
    ncalls = 0;
    for (int j = 0; j < 5; j++) raise_at(&so4, &evb, &objs[1], j);
    assert_int_equal(drain_src(&so4), 8);
    raise_at(&so4, &evb, &objs[1], 6);
    assert_int_equal(drain_src(&so4), 2);
    assert_int_equal(ncalls, 8 + 2 + 2);
    for (int k = 0; k < 8; k++) assert_int_equal(calls[k].a, k / 2);
    for (int k = 8; k < 10; k++) {
        assert_int_equal(calls[k].kind, 'D');
        assert_int_equal(calls[k].count, 1);
    }
    assert_int_equal(calls[10].a, 6);
    assert_int_equal(calls[11].a, 6);
    free_all(x, 2);
}

/* Partial drains: max records per call, in order; what is left comes with the next
 * call. */
static void partial_drains_keep_the_order(void **state) {
    (void)state;
    mpitev_reg r = reg_buf(&ev1, NULL, 1);
    ncalls = 0;
    for (int i = 0; i < 7; i++) raise1(&ev1, NULL, i);
    int n = -1;
    OK(mpitev_source_drain(&so, 3, MPITEV_CB_REQUIRE_NONE, &n));
    assert_int_equal(n, 3);
    MPITEV_DRAIN(&so, 2, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, 5);
    OK(mpitev_source_drain(&so, 0, MPITEV_CB_REQUIRE_NONE, &n));
    assert_int_equal(n, 0);
    assert_int_equal(drain(), 2);
    static const int tag[] = { 1, 1, 1, 1, 1, 1, 1 }, a[] = { 0, 1, 2, 3, 4, 5, 6 };
    check_calls(tag, a, 7);
    free_all(&r, 1);
}

/* A bound type raised for two objects in turn (each with its own registration), then
 * for three of 64 registered objects in turn, for every pair of the 64: every record
 * reaches its object's registration and no other. */
static void alternate(const void *ox, const void *oy, int tx, int ty, int macro) {
    ncalls = 0;
    for (int i = 0; i < 8; i++) raise1(&evb, i & 1 ? oy : ox, 10 + i);
    if (macro) MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    else assert_int_equal(drain(), 8);
    for (int i = 0; i < 4; i++) { /* and one record per call */
        raise1(&evb, i & 1 ? oy : ox, 20 + i);
        if (macro) MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        else assert_int_equal(drain(), 1);
    }
    assert_int_equal(ncalls, 12);
    for (int i = 0; i < 12; i++) {
        assert_int_equal(calls[i].a, i < 8 ? 10 + i : 20 + i - 8);
        assert_int_equal(calls[i].tag, i & 1 ? ty : tx);
    }
}
static void bound_type_alternating_objects(void **state) {
    (void)state;
    mpitev_reg r0 = reg_buf(&evb, &objs[0], 0), r1 = reg_buf(&evb, &objs[1], 1);
    alternate(&objs[0], &objs[1], 0, 1, 0);
    alternate(&objs[1], &objs[0], 1, 0, 1);
    OK(mpitev_reg_free(r0, NULL, NULL));
    OK(mpitev_reg_free(r1, NULL, NULL));
}
static char many[64];
static void many_objects_every_pair(void **state) {
    (void)state;
    mpitev_reg r[64];
    for (int i = 0; i < 64; i++) r[i] = reg_buf(&evb, &many[i], i);
    for (int x = 0; x < 64; x++)
        for (int y = x + 1; y < 64; y++) alternate(&many[x], &many[y], x, y, (x + y) & 1);
    ncalls = 0; /* three in turn */
    for (int i = 0; i < 63; i++) raise1(&evb, &many[(i * 7) % 64], i);
    assert_int_equal(drain(), 63);
    for (int i = 0; i < 63; i++) {
        assert_int_equal(calls[i].a, i);
        assert_int_equal(calls[i].tag, (i * 7) % 64);
    }
    free_all(r, 64);
}

/* Records that reach nobody (a bound type raised for an object nobody registered for,
 * while someone buffers the type on another object) interleaved with records that
 * reach one or two registrations: the drain's count is the deliveries, nothing is
 * reported, and a registration for that object later gets what is raised after it. */
static void records_without_delivery(void **state) {
    (void)state;
    mpitev_reg r0 = reg_buf(&evb, &objs[0], 0);
    ncalls = 0;
    raise1(&evb, &objs[3], 100);
    raise1(&evb, &objs[0], 101);
    assert_int_equal(drain(), 1);
    for (int i = 0; i < 6; i++) raise1(&evb, &objs[(i & 1) ? 0 : 3], i);
    assert_int_equal(drain(), 3);
    raise1(&evb, &objs[3], 6);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    raise1(&evb, &objs[3], 6);
    assert_int_equal(drain(), 0);
    static const int tag[] = { 0, 0, 0, 0 }, a[] = { 101, 1, 3, 5 };
    check_calls(tag, a, 4);
    mpitev_reg r3 = reg_buf(&evb, &objs[3], 3);
    ncalls = 0;
    raise1(&evb, &objs[3], 7);
    raise1(&evb, &objs[3], 8);
    assert_int_equal(drain(), 2);
    static const int tag2[] = { 3, 3 }, a2[] = { 7, 8 };
    check_calls(tag2, a2, 2);
    /* None and two deliveries alternating. */
    mpitev_reg y = reg_buf(&evb, &objs[1], 1), z = reg_buf(&evb, &objs[1], 2);
    ncalls = 0;
    for (int i = 1; i <= 8; i++) raise1(&evb, &objs[(i & 1) ? 1 : 2], i);
    assert_int_equal(drain(), 8);
    for (int i = 1; i <= 4; i++) {
        raise1(&evb, &objs[(i & 1) ? 1 : 2], 10 + i);
        assert_int_equal(drain(), (i & 1) ? 2 : 0);
    }
    static const int tag3[] = { 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2 }, a3[] = { 1, 1, 3, 3, 5, 5, 7, 7, 11, 11, 13, 13 };
    check_calls(tag3, a3, 12);
    OK(mpitev_reg_free(r0, NULL, NULL));
    OK(mpitev_reg_free(r3, NULL, NULL));
    OK(mpitev_reg_free(y, NULL, NULL));
    OK(mpitev_reg_free(z, NULL, NULL));
}

/* ---- Registrations changed by a callback in the middle of a drain. ---- */
static int change_at;
static mpitev_reg change_target;
static enum { SET_CALLBACK, FREE } change_kind;
static void changer(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    cb(inst, reg, cb_safety, ud);
    if (calls[ncalls - 1].a != change_at) return;
    if (change_kind == SET_CALLBACK)
        OK(mpitev_reg_set_callback(change_target, MPITEV_CB_REQUIRE_NONE, cb, &tagv[7], NULL, 0));
    else
        OK(mpitev_reg_free(change_target, NULL, freed));
}
/* Three registrations on objs[1], the one at index by (callback: changer) replacing
 * the callback of the one at index target (tag 7 then) when it sees record at; record 0
 * drained first, then records 1 to 3 in one call (counted, or by MPITEV_DRAIN). */
static void replaced_while_draining(int by, int target, int at, int counted, const int want_tag[9], mpitev_reg r[3]) {
    for (int i = 0; i < 3; i++) r[i] = reg_with(&evb, &objs[1], "true", i == by ? changer : cb, i);
    change_kind = SET_CALLBACK;
    change_target = r[target];
    change_at = at;
    ncalls = 0;
    raise1(&evb, &objs[1], 0);
    assert_int_equal(drain(), 3);
    ncalls = 0;
    for (int i = 1; i <= 3; i++) raise1(&evb, &objs[1], i);
    if (counted) assert_int_equal(drain(), 9);
    else MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    static const int a[] = { 1, 1, 1, 2, 2, 2, 3, 3, 3 };
    check_calls(want_tag, a, 9);
}
/* The first delivery of a record replaces the third registration's callback: the third
 * delivery of that record, and every later one, go to the new callback (tag 7). */
static void callback_replaced_before_a_later_delivery(void **state) {
    (void)state;
    mpitev_reg r[3];
    static const int tag1[] = { 0, 1, 2, 0, 1, 7, 0, 1, 7 };
    replaced_while_draining(0, 2, 2, 1, tag1, r);
    ncalls = 0;
    for (int i = 4; i <= 5; i++) raise1(&evb, &objs[1], i);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    static const int tag2[] = { 0, 1, 7, 0, 1, 7 }, a2[] = { 4, 4, 4, 5, 5, 5 };
    check_calls(tag2, a2, 6);
    free_all(r, 3);
}
/* The second delivery of a record replaces the third's callback. */
static void callback_replaced_at_a_records_second_delivery(void **state) {
    (void)state;
    mpitev_reg r[3];
    static const int tag[] = { 0, 1, 2, 0, 1, 7, 0, 1, 7 };
    replaced_while_draining(1, 2, 2, 0, tag, r);
    free_all(r, 3);
}
/* The last delivery of a record replaces the first's callback: the next record goes to
 * the new one. */
static void callback_replaced_at_a_records_last_delivery(void **state) {
    (void)state;
    mpitev_reg r[3];
    static const int tag[] = { 0, 1, 2, 7, 1, 2, 7, 1, 2 };
    replaced_while_draining(2, 0, 1, 0, tag, r);
    free_all(r, 3);
}

/* A callback frees a registration of the same record, before its delivery (the first
 * delivery frees the third registration) or after it (the last delivery frees the
 * first): the freed one gets nothing more; the records raised while it was active and
 * not delivered to it are counted, reported once, before its free callback, which runs
 * once; delivered + reported = raised while active. */
static void freed_in_the_middle_of_a_drain(int by, int victim, int at, const int *want_tag, const int *want_a,
                                           int nwant, int want_dropped) {
    mpitev_reg r[3];
    for (int i = 0; i < 3; i++) r[i] = reg_with(&evb, &objs[2], "true", i == by ? changer : cb, i);
    change_kind = FREE;
    change_target = r[victim];
    change_at = at;
    freed_n = 0;
    reports_at_free = -1;
    ncalls = 0;
    raise1(&evb, &objs[2], 0);
    assert_int_equal(drain(), 3);
    ncalls = 0;
    for (int i = 1; i <= 4; i++) raise1(&evb, &objs[2], i);
    assert_int_equal(drain(), nwant);
    check_events(want_tag, want_a, nwant);
    for (int i = 0; i < 4 && freed_n == 0; i++) (void)drain();
    assert_int_equal(freed_n, 1);
    assert_int_equal(reports_at_free, want_dropped); /* all reported before the free callback */
    int reported = 0;
    for (int i = 0; i < ncalls; i++)
        if (calls[i].kind == 'D') {
            assert_int_equal(calls[i].tag, victim);
            reported += (int)calls[i].count;
        }
    assert_int_equal(reported, want_dropped); /* once */
    ncalls = 0;
    raise1(&evb, &objs[2], 5);
    assert_int_equal(drain(), 2);
    for (int i = 0; i < 2; i++) assert_int_equal(calls[i].tag == victim, 0);
    for (int i = 0; i < 3; i++)
        if (i != victim) OK(mpitev_reg_free(r[i], NULL, NULL));
    freed_n = 0;
    for (int i = 0; i < 4; i++) (void)drain();
    assert_int_equal(freed_n, 0); /* its free callback ran once */
}
static void freed_before_its_delivery(void **state) {
    (void)state;
    /* record 2: 0 frees 2, 1 delivered, 2's dropped; 3, 4: 0 and 1 */
    static const int tag[] = { 0, 1, 2, 0, 1, 0, 1, 0, 1 }, a[] = { 1, 1, 1, 2, 2, 3, 3, 4, 4 };
    freed_in_the_middle_of_a_drain(0, 2, 2, tag, a, 9, 3);
}
static void freed_after_its_delivery(void **state) {
    (void)state;
    /* record 1's last delivery frees 0: 0 gets nothing from record 2 on */
    static const int tag[] = { 0, 1, 2, 1, 2, 1, 2, 1, 2 }, a[] = { 1, 1, 1, 2, 2, 3, 3, 4, 4 };
    freed_in_the_middle_of_a_drain(2, 0, 1, tag, a, 9, 3);
}

/* A registration whose only callback is removed with records still buffered for it:
 * nothing more is delivered to it, and once nobody buffers any more the sources are no
 * longer due. */
static void callback_removed_with_records_left(void **state) {
    (void)state;
    mpitev_reg r = reg_buf(&ev1, NULL, 1);
    ncalls = 0;
    for (int i = 0; i < 2; i++) {
        raise1(&ev1, NULL, i);
        assert_int_equal(drain(), 1);
    }
    raise1(&ev1, NULL, 2);
    raise1(&ev1, NULL, 3);
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, NULL, NULL, NULL, 0));
    for (int i = 0; i < 4; i++) OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    for (int i = 0; i < 4; i++) MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 0);
    assert_int_equal(drain(), 0);
    OK(mpitev_reg_free(r, NULL, NULL));
    for (int i = 0; i < 4; i++) OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    /* 0 and 1 delivered; 2 and 3 reported dropped, once (by the free at the latest) */
    int reported = 0;
    for (int i = 0; i < ncalls; i++) {
        if (calls[i].kind == 'E') assert_true(i < 2 && calls[i].a == i);
        else reported += (int)calls[i].count;
    }
    assert_int_equal(reported, 2);
}

/* The drain's level changes between calls: a callback registered for
 * MPITEV_CB_REQUIRE_NONE only is not safe for a drain at ASYNC_SIGNAL_SAFE (its
 * instances are dropped there, and reported), and the first level is served again
 * after; a callback added at THREAD_SAFE is picked for a THREAD_SAFE drain (Table 21:
 * the lowest registered level at or above the drain's), NONE's for a NONE drain. */
static void level_changes_between_drains(void **state) {
    (void)state;
    mpitev_reg r = reg_buf(&ev1, NULL, 1);
    ncalls = 0;
    for (int i = 0; i < 3; i++) {
        raise1(&ev1, NULL, i);
        assert_int_equal(drain(), 1);
    }
    for (int i = 3; i < 5; i++) {
        raise1(&ev1, NULL, i);
        assert_int_equal(drain_n(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE), 0);
    }
    raise1(&ev1, NULL, 5);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    raise1(&ev1, NULL, 6);
    assert_int_equal(drain(), 1);
    raise1(&ev1, NULL, 7);
    assert_int_equal(drain(), 1);
    /* 0 1 2, the report of 3 4 5 (at one drain or several), 6 7 */
    int delivered = 0, reported = 0, first_after = -1;
    for (int i = 0; i < ncalls; i++) {
        if (calls[i].kind == 'E') {
            assert_int_equal(calls[i].a, delivered < 3 ? delivered : delivered + 3);
            if (delivered == 3) first_after = i;
            delivered++;
        } else {
            assert_true(first_after < 0); /* reported before record 6 */
            reported += (int)calls[i].count;
        }
    }
    assert_int_equal(delivered, 5);
    assert_int_equal(reported, 3);
    /* A second callback at THREAD_SAFE. */
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_THREAD_SAFE, cb, &tagv[2], NULL, 0));
    ncalls = 0;
    raise1(&ev1, NULL, 8);
    assert_int_equal(drain_n(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_THREAD_SAFE), 1);
    raise1(&ev1, NULL, 9);
    assert_int_equal(drain(), 1);
    raise1(&ev1, NULL, 10);
    assert_int_equal(drain_n(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_MPI_RESTRICTED), 1);
    raise1(&ev1, NULL, 11);
    assert_int_equal(drain_n(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE), 0);
    raise1(&ev1, NULL, 12);
    assert_int_equal(drain(), 1);
    assert_int_equal(ncalls, 5); /* 8, 9, 10, the report of 11, 12 */
    /* (MPI_RESTRICTED is below THREAD_SAFE: the THREAD_SAFE callback serves it) */
    static const int want_tag[] = { 2, 1, 2 }, want_level[] = { MPITEV_CB_REQUIRE_THREAD_SAFE, MPITEV_CB_REQUIRE_NONE,
                                                                 MPITEV_CB_REQUIRE_MPI_RESTRICTED };
    for (int i = 0; i < 3; i++) {
        assert_int_equal(calls[i].kind, 'E');
        assert_int_equal(calls[i].a, 8 + i);
        assert_int_equal(calls[i].tag, want_tag[i]);
        assert_int_equal(calls[i].cb_safety, want_level[i]);
    }
    assert_int_equal(calls[3].kind, 'D');
    assert_int_equal(calls[3].count, 1);
    assert_int_equal(calls[4].a, 12);
    assert_int_equal(calls[4].tag, 1);
    free_all(&r, 1);
}

/* Registrations changed between drains (not by a callback): a callback replaced, a
 * registration added, one freed, a drop counted at an immediate raise; each drain after
 * the change delivers to the registrations of the record's raise, the drop reported
 * before the next record. */
static void registrations_changed_between_drains(void **state) {
    (void)state;
    mpitev_reg r1 = reg_buf(&ev1, NULL, 1), r2 = reg_buf(&ev2, NULL, 2);
    mpitev_reg imm = reg_with(&evb, &objs[3], "false", cb, 7);
    ncalls = 0;
    raise1(&ev1, NULL, 0);
    raise1(&ev2, NULL, 1);
    assert_int_equal(drain(), 2);
    raise1(&ev1, NULL, 2);
    assert_int_equal(drain(), 1);
    OK(mpitev_reg_set_callback(r1, MPITEV_CB_REQUIRE_NONE, cb, &tagv[3], NULL, 0));
    raise1(&ev1, NULL, 3);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, 4);
    assert_int_equal(calls[3].tag, 3);
    /* added: gets what is raised after it */
    mpitev_reg r3 = reg_buf(&ev1, NULL, 4);
    raise1(&ev1, NULL, 4);
    assert_int_equal(drain(), 2);
    assert_int_equal(calls[4].tag, 3);
    assert_int_equal(calls[5].tag, 4);
    /* raised, then freed: the record is dropped for it (reported), nothing delivered */
    raise1(&ev1, NULL, 5);
    OK(mpitev_reg_free(r3, NULL, freed));
    freed_n = 0;
    assert_int_equal(drain(), 1);
    assert_int_equal(ncalls, 8); /* r1's delivery and r3's drop, reported */
    int e = calls[6].kind == 'E' ? 6 : 7;
    assert_int_equal(calls[e].kind, 'E');
    assert_int_equal(calls[e].tag, 3);
    assert_int_equal(calls[e].a, 5);
    assert_int_equal(calls[13 - e].kind, 'D');
    assert_int_equal(calls[13 - e].tag, 4);
    assert_int_equal(calls[13 - e].count, 1);
    for (int i = 0; i < 4 && !freed_n; i++) (void)drain();
    assert_int_equal(freed_n, 1);
    /* a drop counted at a raise (no callback of imm safe at the raise's level): reported
     * before the record raised next */
    ncalls = 0;
    struct pair p = { 6, -6 };
    MPITEV_RAISE(&evb, &so, &objs[3], MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &p);
    assert_int_equal(ncalls, 0);
    raise1(&ev2, NULL, 7);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, 2);
    assert_int_equal(calls[0].kind, 'D');
    assert_int_equal(calls[0].tag, 7);
    assert_int_equal(calls[0].count, 1);
    assert_int_equal(calls[1].kind, 'E');
    assert_int_equal(calls[1].a, 7);
    free_all(&r1, 1);
    free_all(&r2, 1);
    free_all(&imm, 1);
}

/* A source nobody raises on, while some registration buffers: not due once drained; a
 * drop counted at an immediate raise on it makes it due, and is reported by the next
 * MPITEV_DRAIN, with no record; a drain at another level has nothing to deliver
 * either. */
static void source_without_records(void **state) {
    (void)state;
    mpitev_reg r = reg_buf(&ev1, NULL, 1), imm = reg_with(&evb, &objs[3], "false", cb, 7);
    ncalls = 0;
    for (int i = 0; i < 4; i++) MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(MPITEV_DRAIN_DUE(&so2), 0);
    OK(mpitev_source_drain(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_THREAD_SAFE, NULL));
    assert_int_equal(ncalls, 0);
    struct pair p = { 1, -1 };
    MPITEV_RAISE(&evb, &so2, &objs[3], MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &p);
    assert_int_equal(MPITEV_DRAIN_DUE(&so2), 1);
    MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, 1);
    assert_int_equal(calls[0].kind, 'D');
    assert_int_equal(calls[0].count, 1);
    for (int i = 0; i < 2; i++) MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, 1); /* reported once */
    OK(mpitev_reg_free(r, NULL, NULL));
    for (int i = 0; i < 4; i++) MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(MPITEV_DRAIN_DUE(&so2), 0);
    OK(mpitev_reg_free(imm, NULL, NULL));
}

/* A free that waits for another source's drain (a record of its type left there)
 * completes at a drain call, with no mpitev_progress call: its record on so2 is not
 * delivered after the free, a drain of so2 from a callback of so's drain is allowed (another
 * ring), and the free callback runs once. */
static int nest_so2;
static void nesting_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    cb(inst, reg, cb_safety, ud);
    if (nest_so2) MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
}
static void free_completes_at_a_drain(void **state) {
    (void)state;
    mpitev_reg r1 = reg_buf(&ev1, NULL, 1), r2 = reg_with(&ev2, NULL, "true", nesting_cb, 2);
    freed_n = nest_so2 = 0;
    ncalls = 0;
    for (int i = 0; i < 3; i++) {
        raise_at(&so, &ev2, NULL, i);
        MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        raise_at(&so2, &ev1, NULL, i);
        MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    }
    assert_int_equal(ncalls, 6);
    raise_at(&so2, &ev1, NULL, 100);
    OK(mpitev_reg_free(r1, NULL, freed));
    nest_so2 = 1;
    int k;
    for (k = 0; k < 4 && !freed_n; k++) {
        raise_at(&so, &ev2, NULL, 101 + k);
        MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    }
    assert_int_equal(freed_n, 1);
    /* r1's record on so2 is not delivered: reported dropped, once, before its free
     * callback; so's records all reach r2 */
    int reports = 0;
    for (int i = 6; i < ncalls; i++) {
        if (calls[i].kind == 'D') {
            assert_int_equal(calls[i].tag, 1);
            reports += (int)calls[i].count;
        } else {
            assert_int_equal(calls[i].tag, 2);
            assert_int_equal(calls[i].a, 101 + (i - 6 - reports));
        }
    }
    assert_int_equal(reports, 1);
    assert_int_equal(reports_at_free, 1);
    assert_int_equal(ncalls - 6 - reports, k);
    nest_so2 = 0;
    OK(mpitev_reg_free(r2, NULL, NULL));
}

/* A callback of a drain drains the same source again (MPITEV_DRAIN and
 * mpitev_source_drain): refused at once, success with 0 delivered; the records after it
 * come in order from the outer drain; nothing is dropped and the thread's room is whole
 * after many such calls (a level kept by each would leave the next callbacks too deep). */
static int redrain;
static void redrain_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    cb(inst, reg, cb_safety, ud);
    if (!redrain) return;
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    int n = -1;
    OK(mpitev_source_drain(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n));
    assert_int_equal(n, 0);
}
static void nested_drain_of_the_same_source_returns_at_once(void **state) {
    (void)state;
    mpitev_reg r = reg_with(&ev1, NULL, "true", redrain_cb, 1);
    ncalls = 0;
    redrain = 1;
    for (int i = 0; i < 3; i++) {
        raise1(&ev1, NULL, i);
        MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        assert_int_equal(ncalls, i + 1);
    }
    raise1(&ev1, NULL, 3);
    raise1(&ev1, NULL, 4);
    assert_int_equal(drain(), 2);
    redrain = 0;
    for (int i = 5; i < 8; i++) {
        raise1(&ev1, NULL, i);
        MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    }
    static const int tag[] = { 1, 1, 1, 1, 1, 1, 1, 1 }, a[] = { 0, 1, 2, 3, 4, 5, 6, 7 };
    check_calls(tag, a, 8);
    assert_room_whole();
    OK(mpitev_reg_free(r, NULL, NULL));
}

/* Two threads drain one source: while the first is inside a callback, the second's
 * drain returns at once with 0 (the records wait for the first); the first then
 * delivers them all, in order. */
static sem_t in_cb, go_on;
static int block_first;
static void blocking_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    cb(inst, reg, cb_safety, ud);
    if (block_first) {
        block_first = 0;
        sem_post(&in_cb);
        sem_wait(&go_on);
    }
}
static void *drainer(void *arg) {
    (void)arg;
    int n = -1;
    OK(mpitev_source_drain(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n));
    return (void *)(intptr_t)n;
}
static void concurrent_drain_returns_at_once(void **state) {
    (void)state;
    mpitev_reg r = reg_with(&ev1, NULL, "true", blocking_cb, 1);
    sem_init(&in_cb, 0, 0);
    sem_init(&go_on, 0, 0);
    ncalls = 0;
    for (int i = 0; i < 5; i++) raise1(&ev1, NULL, i);
    block_first = 1;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, drainer, NULL), 0);
    sem_wait(&in_cb);
    int n = -1;
    OK(mpitev_source_drain(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n));
    assert_int_equal(n, 0);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, 1);
    sem_post(&go_on);
    void *got;
    assert_int_equal(pthread_join(th, &got), 0);
    assert_int_equal((int)(intptr_t)got, 5);
    static const int tag[] = { 1, 1, 1, 1, 1 }, a[] = { 0, 1, 2, 3, 4 };
    check_calls(tag, a, 5);
    sem_destroy(&in_cb);
    sem_destroy(&go_on);
    OK(mpitev_reg_free(r, NULL, NULL));
}

/* Typed, empty and plain raises in one ring, on both ring kinds: drained in raise order,
 * each with its type, payload, source and a timestamp that never decreases. */
static void typed_empty_and_plain_raises_in_one_ring(void **state) {
    (void)state;
    mpitev_reg r[3] = { reg_buf(&drain_ev_type, NULL, 1), reg_buf(&drain_empty_type, NULL, 2), reg_buf(&ev1, NULL, 3) };
    mpitev_source *const srcs[2] = { &so, &su };
    for (int k = 0; k < 2; k++) {
        ncalls = 0;
        for (int i = 1; i <= 3; i++) {
            MPITEV_RAISE_EVENT(drain_ev, srcs[k], NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, i, 10 * i);
            MPITEV_RAISE_EVENT_EMPTY(drain_empty, srcs[k], NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
            struct pair p = { 100 + i, 1000 + i };
            MPITEV_RAISE(&ev1, srcs[k], NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &p);
        }
        assert_int_equal(ncalls, 0);
        if (k) MPITEV_DRAIN(srcs[k], MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        else assert_int_equal(drain_src(srcs[k]), 9);
        assert_int_equal(ncalls, 9);
        for (int i = 0; i < 9; i++) {
            struct call *c = &calls[i];
            int n = i / 3 + 1;
            assert_int_equal(c->kind, 'E');
            assert_int_equal(c->tag, i % 3 + 1);
            assert_int_equal(c->cb_safety, MPITEV_CB_REQUIRE_NONE);
            if (i) assert_true(c->ts >= calls[i - 1].ts);
            switch (i % 3) {
            case 0:
                assert_int_equal(c->type, tindex(&drain_ev_type));
                assert_int_equal(c->a, n);
                assert_int_equal(c->b, 10 * n);
                break;
            case 1: assert_int_equal(c->type, tindex(&drain_empty_type)); break;
            default:
                assert_int_equal(c->type, tindex(&ev1));
                assert_int_equal(c->a, 100 + n);
                assert_int_equal(c->b, 1000 + n);
            }
        }
    }
    free_all(r, 3);
}

/* An unordered source through MPITEV_DRAIN: everything in order, an empty poll
 * delivers nothing, and the source drains again after (its claim released). */
static void unordered_source(void **state) {
    (void)state;
    mpitev_reg r = reg_buf(&ev1, NULL, 4);
    ncalls = 0;
    for (int i = 0; i < 3; i++) raise_at(&su, &ev1, NULL, i);
    MPITEV_DRAIN(&su, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    MPITEV_DRAIN(&su, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    raise_at(&su, &ev1, NULL, 3);
    MPITEV_DRAIN(&su, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(drain_src(&su), 0);
    raise_at(&su, &ev1, NULL, 4);
    assert_int_equal(drain_src(&su), 1);
    static const int tag[] = { 4, 4, 4, 4, 4 }, a[] = { 0, 1, 2, 3, 4 };
    check_calls(tag, a, 5);
    OK(mpitev_reg_free(r, NULL, NULL));
}

/* Between sessions (after the last finalize, before the next init) a drain delivers
 * nothing: mpitev_source_drain says MPITEV_ERR_NOT_INITIALIZED, MPITEV_DRAIN does
 * nothing; the next session starts with nothing left from the last. */
static void drain_between_sessions(void **state) {
    (void)state;
    (void)reg_buf(&ev1, NULL, 1); /* (freed by the finalize) */
    (void)reg_buf(&ev2, NULL, 2);
    ncalls = 0;
    raise1(&ev1, NULL, 0);
    raise1(&ev2, NULL, 1);
    assert_int_equal(drain(), 2);
    raise1(&ev1, NULL, 2);
    OK(mpitev_finalize());
    int after_finalize = ncalls; /* the finalize delivered what was buffered */
    assert_int_equal(after_finalize, 3);
    assert_int_equal(calls[2].a, 2);
    raise1(&ev1, NULL, 3);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(mpitev_source_drain(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL),
                     MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    assert_int_equal(ncalls, after_finalize);
    OK(mpitev_init());
    assert_int_equal(drain(), 0);
    assert_int_equal(ncalls, after_finalize);
}

int main(void) {
    for (int i = 0; i < 64; i++) tagv[i] = i;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(one_record_per_call, setup, core_teardown),
        cmocka_unit_test_setup_teardown(several_registrations_per_record, setup, core_teardown),
        cmocka_unit_test_setup_teardown(records_across_the_wrap, setup, core_teardown),
        cmocka_unit_test_setup_teardown(partial_drains_keep_the_order, setup, core_teardown),
        cmocka_unit_test_setup_teardown(bound_type_alternating_objects, setup, core_teardown),
        cmocka_unit_test_setup_teardown(many_objects_every_pair, setup, core_teardown),
        cmocka_unit_test_setup_teardown(records_without_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(callback_replaced_before_a_later_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(callback_replaced_at_a_records_second_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(callback_replaced_at_a_records_last_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(freed_before_its_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(freed_after_its_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(callback_removed_with_records_left, setup, core_teardown),
        cmocka_unit_test_setup_teardown(level_changes_between_drains, setup, core_teardown),
        cmocka_unit_test_setup_teardown(registrations_changed_between_drains, setup, core_teardown),
        cmocka_unit_test_setup_teardown(source_without_records, setup, core_teardown),
        cmocka_unit_test_setup_teardown(free_completes_at_a_drain, setup, core_teardown),
        cmocka_unit_test_setup_teardown(nested_drain_of_the_same_source_returns_at_once, setup, core_teardown),
        cmocka_unit_test_setup_teardown(concurrent_drain_returns_at_once, setup, core_teardown),
        cmocka_unit_test_setup_teardown(typed_empty_and_plain_raises_in_one_ring, setup, core_teardown),
        cmocka_unit_test_setup_teardown(unordered_source, setup, core_teardown),
        cmocka_unit_test_setup_teardown(drain_between_sessions, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
