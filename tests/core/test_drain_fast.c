/* The drain's fast cases (impl_drain.inc): a drain call that delivers one record from
 * the slot of the last one (mpitev_source_drain / mpitev__drain_all, no call further),
 * and records of the cache's entry for several deliveries, served by a quick loop of
 * their own without the drainer's grace section (mpitev__drain_quick_several). Each
 * test checks the path is taken (white-box: the drainer's grace counters, the cache's
 * last slot) and that what a tool sees is right: payloads, types, counts, order, and
 * nothing delivered after a free. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

static mpitev_type ev1, ev2, evb;
static mpitev_source so, so2, so4; /* so4: a ring of 4 records */
static char objs[4];

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc d1 = pair_desc("ev1", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc d2 = pair_desc("ev2", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc db = pair_desc("evb", MPITEV_BIND_MPI_COMM);
    mpitev_source_desc a = src_desc("so", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc a2 = src_desc("so2", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc a4 = src_desc("so4", MPITEV_SOURCE_ORDERED, NULL);
    a4.buffer_capacity = 4;
    return (mpitev_source_declare(&so, &a) || mpitev_source_declare(&so2, &a2) || mpitev_source_declare(&so4, &a4) ||
            mpitev_type_declare(&ev1, &d1) ||
            mpitev_type_declare(&ev2, &d2) || mpitev_type_declare(&evb, &db))
               ? -1
               : 0;
}

/* Whether the drain delivering now is inside a drainer's grace section (the general
 * drain, and the live deliveries after a registration change, enter one; the quick
 * drains do not). */
static mpitev_source *grace_of = &so; /* (the source whose drains the tests watch) */
static int in_grace(void) {
    const struct mpitev__srcbuf *b = grace_of->mpitev__buf;
    return atomic_load(&b->grace.inflight[0]) + atomic_load(&b->grace.inflight[1]) != 0;
}

/* One callback for everything: checks the payload against the expected sequence,
 * records the type and whether it ran inside a grace section. */
#define MAXC 64
static struct call {
    int tag, type, a, graced;
} calls[MAXC];
static int ncalls;
static void cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety;
    assert_true(ncalls < MAXC);
    struct call *c = &calls[ncalls++];
    struct pair p;
    OK(mpitev_instance_copy(inst, &p));
    OK(mpitev_instance_type(inst, &c->type));
    c->tag = *(const int *)ud;
    c->a = p.a;
    c->graced = in_grace();
}
static int tagv[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

static mpitev_reg reg_buf(mpitev_type *t, const void *obj, int tag) {
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", "true" };
    OK(mpitev_reg_alloc(tindex(t), obj, &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, cb, &tagv[tag], NULL, 0));
    return r;
}
static void raise_at(mpitev_source *s, mpitev_type *t, const void *obj, int a) {
    struct pair p = { a, -a };
    MPITEV_RAISE(t, s, obj, MPITEV_CB_REQUIRE_NONE, &p);
}
static void raise1(mpitev_type *t, const void *obj, int a) { raise_at(&so, t, obj, a); }
static int drain(void) {
    int n = -1;
    OK(mpitev_source_drain(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n));
    return n;
}

/* One record per drain call, types alternating: each call is served by the slot of its
 * type (remembered as the cache's last slot), with the instance's type and payload
 * right, through MPITEV_DRAIN (mpitev__drain_all) and mpitev_source_drain alike. */
static void one_record_per_call(void **state) {
    (void)state;
    mpitev_reg r1 = reg_buf(&ev1, NULL, 1), r2 = reg_buf(&ev2, NULL, 2);
    ncalls = 0;
    raise1(&ev1, NULL, 100); /* first records: the general drain fills the slots */
    raise1(&ev2, NULL, 101);
    assert_int_equal(drain(), 2);
    const struct mpitev__drain_slot *s2 = so.mpitev__buf->cache.last;
    assert_int_equal(s2->inst.mpitev__type->mpitev__index, tindex(&ev2));
    for (int i = 0; i < 10; i++) {
        mpitev_type *t = (i & 2) ? &ev2 : &ev1;
        raise1(t, NULL, i);
        if (i & 1) MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        else assert_int_equal(drain(), 1);
        /* the delivery level left (MPITEV_DRAIN's through the thread-local's second
         * name, MPITEV__LEVEL_LEAVE_AFTER_CALL) */
        assert_int_equal(mpitev__tls_room, MPITEV_MAX_DEPTH);
        /* the slot that served it is the one the next call starts from */
        assert_int_equal(so.mpitev__buf->cache.last->inst.mpitev__type->mpitev__index, tindex(t));
    }
    assert_int_equal(ncalls, 12);
    for (int i = 0; i < 10; i++) {
        struct call *c = &calls[2 + i];
        assert_int_equal(c->a, i);
        assert_int_equal(c->tag, (i & 2) ? 2 : 1);
        assert_int_equal(c->type, tindex((i & 2) ? &ev2 : &ev1));
        assert_int_equal(c->graced, 0); /* quick: no grace section */
    }
    /* A callback changed nothing: nothing left, nothing due but the buffering. */
    assert_int_equal(drain(), 0);
    OK(mpitev_reg_free(r1, NULL, NULL));
    OK(mpitev_reg_free(r2, NULL, NULL));
}

/* Two and three registrations on one object: once the cache holds the record's
 * deliveries, records are delivered without a grace section, in order, every
 * registration once per record, interleaved with single-delivery records. */
static void several_deliveries_are_quick(void **state) {
    (void)state;
    mpitev_reg x[3], y;
    for (int i = 0; i < 3; i++) x[i] = reg_buf(&evb, &objs[1], i);
    y = reg_buf(&ev1, NULL, 5);
    ncalls = 0;
    raise1(&evb, &objs[1], 0); /* fills the entry for several deliveries */
    raise1(&ev1, NULL, 0);     /* and a slot */
    assert_int_equal(drain(), 4);
    ncalls = 0;
    for (int i = 1; i <= 4; i++) raise1(&evb, &objs[1], i);
    raise1(&ev1, NULL, 5);
    raise1(&evb, &objs[1], 6);
    assert_int_equal(drain(), 4 * 3 + 1 + 3);
    assert_int_equal(ncalls, 16);
    int k = 0;
    for (int i = 1; i <= 6; i++) {
        int ntags = i == 5 ? 1 : 3;
        for (int j = 0; j < ntags; j++, k++) {
            assert_int_equal(calls[k].a, i);
            assert_int_equal(calls[k].tag, i == 5 ? 5 : j);
            assert_int_equal(calls[k].type, tindex(i == 5 ? &ev1 : &evb));
            assert_int_equal(calls[k].graced, 0);
        }
    }
    for (int i = 0; i < 3; i++) OK(mpitev_reg_free(x[i], NULL, NULL));
    OK(mpitev_reg_free(y, NULL, NULL));
}

/* Records with several deliveries across the ring's end: a ring of 4, three records per
 * drain call, so that most calls wrap, at every position in turn. The quick loop of the
 * entry for several deliveries steps a pointer through the records and wraps at the
 * ring's sentinel (mpitev__drain_quick_several): every record delivered twice, in
 * order, with its own payload, outside any grace section (the quick loop), through
 * mpitev_source_drain and MPITEV_DRAIN alike. */
static void several_deliveries_wrap(void **state) {
    (void)state;
    mpitev_reg x[2];
    for (int i = 0; i < 2; i++) x[i] = reg_buf(&evb, &objs[1], i);
    grace_of = &so4;
    raise_at(&so4, &evb, &objs[1], -1); /* fills the entry for several deliveries */
    int n = -1;
    OK(mpitev_source_drain(&so4, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n));
    assert_int_equal(n, 2);
    for (int round = 0; round < 12; round++) {
        ncalls = 0;
        for (int j = 0; j < 3; j++) raise_at(&so4, &evb, &objs[1], round * 3 + j);
        if (round & 1) {
            MPITEV_DRAIN(&so4, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        } else {
            OK(mpitev_source_drain(&so4, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n));
            assert_int_equal(n, 6);
        }
        assert_int_equal(ncalls, 6);
        for (int k = 0; k < 6; k++) {
            assert_int_equal(calls[k].a, round * 3 + k / 2);
            assert_int_equal(calls[k].tag, k % 2);
            assert_int_equal(calls[k].type, tindex(&evb));
            assert_int_equal(calls[k].graced, 0); /* quick: no grace section */
        }
    }
    grace_of = &so;
    for (int i = 0; i < 2; i++) OK(mpitev_reg_free(x[i], NULL, NULL));
}

/* A callback of a cached record with several deliveries frees a later registration of
 * the same record: the record's rest goes live (inside a grace section), the freed one
 * gets nothing more, its undelivered instance is counted and reported before its free
 * callback, and the next records are right. */
static mpitev_reg victim;
static int kill_at = -1, dropped_seen, freed_seen, free_after_drop;
static void victim_dropped(mpitev_count_t n, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)source_index; (void)cb_safety; (void)ud;
    dropped_seen += (int)n;
}
static void victim_freed(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud;
    freed_seen++;
    free_after_drop = dropped_seen;
}
static void killer(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    cb(inst, reg, cb_safety, ud);
    if (calls[ncalls - 1].a == kill_at) OK(mpitev_reg_free(victim, NULL, victim_freed));
}
static void free_inside_a_record_goes_live(void **state) {
    (void)state;
    mpitev_kv kv = { "mpitev_buffered", "true" };
    mpitev_reg k, mid;
    OK(mpitev_reg_alloc(tindex(&evb), &objs[2], &kv, 1, &k));
    OK(mpitev_reg_set_callback(k, MPITEV_CB_REQUIRE_NONE, killer, &tagv[0], NULL, 0));
    mid = reg_buf(&evb, &objs[2], 1);
    OK(mpitev_reg_alloc(tindex(&evb), &objs[2], &kv, 1, &victim));
    OK(mpitev_reg_set_callback(victim, MPITEV_CB_REQUIRE_NONE, cb, &tagv[2], NULL, 0));
    OK(mpitev_reg_set_dropped_handler(victim, victim_dropped));
    dropped_seen = freed_seen = 0;
    free_after_drop = -1;
    ncalls = 0;
    raise1(&evb, &objs[2], 0); /* fills the entry */
    assert_int_equal(drain(), 3);
    ncalls = 0;
    kill_at = 2;
    for (int i = 1; i <= 3; i++) raise1(&evb, &objs[2], i);
    /* 1: three deliveries from the cache; 2: the killer frees the victim, the middle one
     * is delivered live, the victim's is dropped; 3 (raised before the free): killer and
     * middle, the victim's dropped again. */
    assert_int_equal(drain(), 7);
    static const int want_tag[] = { 0, 1, 2, 0, 1, 0, 1 }, want_a[] = { 1, 1, 1, 2, 2, 3, 3 };
    assert_int_equal(ncalls, 7);
    for (int i = 0; i < 7; i++) {
        assert_int_equal(calls[i].tag, want_tag[i]);
        assert_int_equal(calls[i].a, want_a[i]);
    }
    assert_int_equal(calls[0].graced, 0); /* from the cache, quick */
    assert_int_equal(calls[2].graced, 0);
    assert_int_equal(calls[4].graced, 1); /* the rest of record 2, live */
    for (int i = 0; i < 4 && freed_seen == 0; i++) (void)drain();
    /* delivered 1 + dropped 2 = the 3 raised while active; reported before free_cb */
    assert_int_equal(dropped_seen, 2);
    assert_int_equal(freed_seen, 1);
    assert_int_equal(free_after_drop, 2);
    raise1(&evb, &objs[2], 4);
    ncalls = 0;
    assert_int_equal(drain(), 2);
    assert_int_equal(calls[0].tag, 0);
    assert_int_equal(calls[1].tag, 1);
    OK(mpitev_reg_free(k, NULL, NULL));
    OK(mpitev_reg_free(mid, NULL, NULL));
}

/* The cache keeps callbacks chosen for the level of the drain that filled it. A drain
 * at another cb_safety must not use them: a callback registered for
 * MPITEV_CB_REQUIRE_NONE only is not safe for a drain at MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE
 * (the instance is dropped, and reported), and the first level is served again after. */
static int drops_at_level;
static void level_dropped(mpitev_count_t n, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)source_index; (void)cb_safety; (void)ud;
    drops_at_level += (int)n;
}
static void other_level_is_not_served(void **state) {
    (void)state;
    mpitev_reg r = reg_buf(&ev1, NULL, 1);
    OK(mpitev_reg_set_dropped_handler(r, level_dropped));
    drops_at_level = 0;
    ncalls = 0;
    for (int i = 0; i < 3; i++) { /* fills the slot at NONE, then served from it */
        raise1(&ev1, NULL, i);
        assert_int_equal(drain(), 1);
    }
    for (int i = 3; i < 5; i++) {
        raise1(&ev1, NULL, i);
        int n = -1;
        OK(mpitev_source_drain(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &n));
        assert_int_equal(n, 0);
    }
    raise1(&ev1, NULL, 5);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    assert_int_equal(ncalls, 3);
    raise1(&ev1, NULL, 6);
    assert_int_equal(drain(), 1);
    raise1(&ev1, NULL, 7);
    assert_int_equal(drain(), 1);
    assert_int_equal(ncalls, 5);
    assert_int_equal(drops_at_level, 3); /* the three at the unsafe level, all reported */
    assert_int_equal(calls[3].a, 6);
    assert_int_equal(calls[4].a, 7);
    assert_int_equal(calls[4].graced, 0); /* quick again at NONE */
    OK(mpitev_reg_free(r, NULL, NULL));
}

/* Records of type evb for objects ox and oy (registrations tagged tx, ty), alternating:
 * once both slots are filled, eight records in one drain call, then one per call, all
 * served quickly (no grace section: no refill by the general drain), each by the right
 * registration. macro: the last two calls are MPITEV_DRAIN's (mpitev__drain_all)
 * instead of mpitev_source_drain's. */
static void alternate_quickly(const void *ox, const void *oy, int tx, int ty, int macro) {
    ncalls = 0;
    raise1(&evb, ox, 0);
    raise1(&evb, oy, 1);
    assert_int_equal(drain(), 2);
    ncalls = 0;
    for (int i = 0; i < 8; i++) raise1(&evb, i & 1 ? oy : ox, 10 + i);
    assert_int_equal(drain(), 8);
    for (int i = 0; i < 4; i++) { /* and one record per call */
        raise1(&evb, i & 1 ? oy : ox, 20 + i);
        if (macro && (i & 2)) MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        else assert_int_equal(drain(), 1);
    }
    assert_int_equal(ncalls, 12);
    for (int i = 0; i < 12; i++) {
        assert_int_equal(calls[i].a, i < 8 ? 10 + i : 20 + i - 8);
        assert_int_equal(calls[i].tag, i & 1 ? ty : tx);
        assert_int_equal(calls[i].graced, 0);
    }
}

/* Records of one type for two objects, alternating: each (set, object) has a slot of its
 * own. */
static void alternating_objects_are_quick(void **state) {
    (void)state;
    mpitev_reg r0 = reg_buf(&evb, &objs[0], 0), r1 = reg_buf(&evb, &objs[1], 1);
    alternate_quickly(&objs[0], &objs[1], 0, 1, 0);
    OK(mpitev_reg_free(r0, NULL, NULL));
    OK(mpitev_reg_free(r1, NULL, NULL));
}

/* Two keys (one type, two objects) whose slots are one pair of the table: both are held
 * (a direct-mapped table held one, and the other refilled it through the general drain
 * on every record, inside its grace section). Found among 64 registered objects (64
 * pairs: two always meet); the set word is the type's set once all are registered. */
static char many[64];
static void keys_of_one_pair_are_quick(void **state) {
    (void)state;
    mpitev_reg r[64];
    for (int i = 0; i < 64; i++) r[i] = reg_buf(&evb, &many[i], i & 7);
    mpitev__drain_cache *k = &so.mpitev__buf->cache;
    uintptr_t sv = (uintptr_t)atomic_load(&evb.mpitev__regs);
    int x = -1, y = -1;
    for (int i = 0; i < 64 && x < 0; i++)
        for (int j = i + 1; j < 64; j++)
            if (mpitev__drain_pair_of(k, sv, &many[i]) == mpitev__drain_pair_of(k, sv, &many[j])) {
                x = i, y = j;
                break;
            }
    assert_true(x >= 0);
    alternate_quickly(&many[x], &many[y], x & 7, y & 7, 1);
    /* A third key of the pair, if there is one: the three still get every record,
     * each to its own registration (one of them through the general drain). */
    int z = -1;
    for (int i = 0; i < 64; i++)
        if (i != x && i != y && mpitev__drain_pair_of(k, sv, &many[i]) == mpitev__drain_pair_of(k, sv, &many[x]))
            z = i;
    if (z >= 0) {
        ncalls = 0;
        const int o[3] = { x, y, z };
        for (int i = 0; i < 9; i++) raise1(&evb, &many[o[i % 3]], 30 + i);
        assert_int_equal(drain(), 9);
        assert_int_equal(ncalls, 9);
        for (int i = 0; i < 9; i++) {
            assert_int_equal(calls[i].a, 30 + i);
            assert_int_equal(calls[i].tag, o[i % 3] & 7);
        }
    }
    for (int i = 0; i < 64; i++) OK(mpitev_reg_free(r[i], NULL, NULL));
}

/* The gate (impl_ring.inc), the one-record drains' single check: the cache's level
 * exactly while nothing else needs looking at. A drop counted on the source closes it
 * until a drain reports the drop, which happens before the next record is delivered; a
 * registration change closes it, and the drain that opens it again leaves no entry of
 * the cache filled before the change; a drain at another level moves it. */
static int gate_drops_seen, gate_drops_at_call;
static void gate_dropped(mpitev_count_t n, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)source_index; (void)cb_safety; (void)ud;
    gate_drops_seen += (int)n;
    gate_drops_at_call = ncalls;
}
static uint64_t gate(void) { return atomic_load(&so.mpitev__buf->gate); }
static void gate_closes_and_opens(void **state) {
    (void)state;
    mpitev_reg r1 = reg_buf(&ev1, NULL, 1), r2 = reg_buf(&ev2, NULL, 2), imm;
    mpitev_kv kv = { "mpitev_buffered", "false" };
    OK(mpitev_reg_alloc(tindex(&evb), &objs[3], &kv, 1, &imm));
    OK(mpitev_reg_set_callback(imm, MPITEV_CB_REQUIRE_NONE, cb, &tagv[7], NULL, 0));
    OK(mpitev_reg_set_dropped_handler(imm, gate_dropped));
    gate_drops_seen = 0;
    gate_drops_at_call = -1;
    ncalls = 0;
    raise1(&ev1, NULL, 0); /* fills both slots, then one record from its slot */
    raise1(&ev2, NULL, 1);
    assert_int_equal(drain(), 2);
    raise1(&ev1, NULL, 2);
    assert_int_equal(drain(), 1);
    assert_true(gate() == MPITEV_CB_REQUIRE_NONE);
    /* A registration change (r1's callback replaced): closed; the next one-record drain
     * calls the new callback, opens the gate, and no entry predates the change. */
    OK(mpitev_reg_set_callback(r1, MPITEV_CB_REQUIRE_NONE, cb, &tagv[3], NULL, 0));
    assert_true(gate() & MPITEV__GATE_STALE);
    raise1(&ev1, NULL, 3);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, 4);
    assert_int_equal(calls[3].tag, 3);
    assert_true(gate() == MPITEV_CB_REQUIRE_NONE);
    const mpitev__drain_cache *k = &so.mpitev__buf->cache;
    uint64_t ver = atomic_load(&mpitev__S->regver);
    for (int i = 0; i < MPITEV__DRAIN_SLOTS; i++)
        if (k->slot[i].sv != 0) assert_true(k->slot[i].ver == ver);
    assert_true(k->svn == 0 || k->vern == ver);
    raise1(&ev2, NULL, 4); /* ev2's slot was emptied: refilled, served quickly after */
    assert_int_equal(drain(), 1);
    raise1(&ev2, NULL, 5);
    assert_int_equal(drain(), 1);
    assert_int_equal(calls[5].graced, 0);
    /* A drop counted at a raise (an immediate registration with no callback safe at the
     * raise's level): closed; the record raised next is delivered after the report. */
    struct pair p = { 6, -6 };
    MPITEV_RAISE(&evb, &so, &objs[3], MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &p);
    assert_true(gate() & MPITEV__GATE_DROPS);
    raise1(&ev2, NULL, 7);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, 7);
    assert_int_equal(calls[6].a, 7);
    assert_int_equal(gate_drops_seen, 1);
    assert_int_equal(gate_drops_at_call, 6); /* reported before record 7's callback */
    assert_true(gate() == MPITEV_CB_REQUIRE_NONE); /* open again once reported */
    raise1(&ev2, NULL, 8);
    assert_int_equal(drain(), 1);
    /* Another level: the gate holds it (open at that level only). */
    OK(mpitev_reg_set_callback(r2, MPITEV_CB_REQUIRE_THREAD_SAFE, cb, &tagv[2], NULL, 0));
    raise1(&ev2, NULL, 9);
    assert_int_equal(drain_n(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_THREAD_SAFE), 1);
    assert_true(gate() == MPITEV_CB_REQUIRE_THREAD_SAFE);
    raise1(&ev2, NULL, 10);
    assert_int_equal(drain(), 1);
    assert_true(gate() == MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, 10);
    OK(mpitev_reg_free(r1, NULL, NULL));
    OK(mpitev_reg_free(r2, NULL, NULL));
    OK(mpitev_reg_free(imm, NULL, NULL));
}

/* What an open gate says (impl_ring.inc): an spsc ring, the library initialised, the
 * call's level valid. MPITEV_DRAIN's case of several records goes to the quick drains
 * on the gate alone (mpitev__drain_all_records), in order and without a grace section;
 * and no gate is open after the last finalize. */
static void open_gate_vouches(void **state) {
    (void)state;
    (void)reg_buf(&ev1, NULL, 1); /* (freed by the finalize) */
    (void)reg_buf(&ev2, NULL, 2);
    ncalls = 0;
    raise1(&ev1, NULL, 0);
    raise1(&ev2, NULL, 1);
    assert_int_equal(drain(), 2); /* the first drain settles the gate: open */
    assert_true(gate() == MPITEV_CB_REQUIRE_NONE);
    raise1(&ev1, NULL, 2);
    raise1(&ev2, NULL, 3);
    raise1(&ev1, NULL, 4);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, 5);
    for (int i = 2; i < 5; i++) {
        assert_int_equal(calls[i].a, i);
        assert_int_equal(calls[i].tag, i % 2 ? 2 : 1);
        assert_int_equal(calls[i].graced, 0);
    }
    assert_true(gate() == MPITEV_CB_REQUIRE_NONE);
    /* The session ends with the gate open and registrations alive: closed after it (a
     * drain between sessions finds it closed and takes the checks' path, which refuses). */
    OK(mpitev_finalize());
    assert_true(gate() & MPITEV__GATE_STALE);
}

/* Deferred registry work closes every gate (DEFERRED), so a drain call that finds its
 * gate open has none to run; the call that settles the gate runs it, and when some is
 * still waiting (here a free that waits for another source's drain) closes its own gate
 * again, so that the next one-record call runs it too. The free completes at the first
 * call after that drain, with no mpitev_progress call. */
static int later_freed, nest_so2;
static void later_free_cb(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud;
    later_freed++;
}
static void nesting_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    cb(inst, reg, cb_safety, ud);
    /* a drain of so2 inside a delivery: it runs no deferred work (nested) */
    if (nest_so2) MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
}
static void deferred_work_closes_the_gate(void **state) {
    (void)state;
    mpitev_reg r1 = reg_buf(&ev1, NULL, 1), r2;
    mpitev_kv kv = { "mpitev_buffered", "true" };
    OK(mpitev_reg_alloc(tindex(&ev2), NULL, &kv, 1, &r2));
    OK(mpitev_reg_set_callback(r2, MPITEV_CB_REQUIRE_NONE, nesting_cb, &tagv[2], NULL, 0));
    later_freed = nest_so2 = 0;
    ncalls = 0;
    /* One-record drains on both sources until the registrations' own deferred work is
     * done and both gates are open. */
    int i;
    for (i = 0; i < 8; i++) {
        raise_at(&so, &ev2, NULL, i);
        MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        raise_at(&so2, &ev1, NULL, i);
        MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        if (!atomic_load(&mpitev__S->deferred) && gate() == MPITEV_CB_REQUIRE_NONE &&
            atomic_load(&so2.mpitev__buf->gate) == MPITEV_CB_REQUIRE_NONE)
            break;
    }
    assert_true(i < 8);
    assert_int_equal(ncalls, 2 * (i + 1));
    /* r1 freed with a record of its type left on so2: the free waits for so2's drain. */
    raise_at(&so2, &ev1, NULL, 100);
    OK(mpitev_reg_free(r1, NULL, later_free_cb));
    assert_true(gate() & MPITEV__GATE_DEFERRED);
    assert_true(atomic_load(&so2.mpitev__buf->gate) & MPITEV__GATE_DEFERRED);
    /* so's next call settles its gate and runs the work, which cannot finish yet: the
     * gate is closed again. */
    raise_at(&so, &ev2, NULL, 101);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(calls[ncalls - 1].a, 101);
    assert_int_equal(later_freed, 0);
    assert_true(gate() & MPITEV__GATE_DEFERRED);
    /* The next one-record call on so: its callback drains so2 (nested: no deferred work
     * runs there), and the call's end completes the free (the gate was closed). */
    nest_so2 = 1;
    raise_at(&so, &ev2, NULL, 102);
    int before = ncalls;
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, before + 1); /* r1's record on so2: not delivered after its free */
    assert_int_equal(calls[ncalls - 1].a, 102);
    assert_int_equal(later_freed, 1);
    nest_so2 = 0;
    OK(mpitev_reg_free(r2, NULL, NULL));
}

/* A source whose ring is never written (an MPI's source of rare events, the toy MPI's
 * API source) still gets its gate opened: the empty drain call that finds it closed at
 * its level with nothing to do settles it, so the next empty call is one compare. A
 * drop then closes it again, and the next empty call reports it; with nobody buffering
 * any more, the gate stays closed (IDLE) and the source goes idle. */
static void empty_source_gate_opens(void **state) {
    (void)state;
    mpitev_reg r = reg_buf(&ev1, NULL, 1), imm;
    mpitev_kv kv = { "mpitev_buffered", "false" };
    OK(mpitev_reg_alloc(tindex(&evb), &objs[3], &kv, 1, &imm));
    OK(mpitev_reg_set_callback(imm, MPITEV_CB_REQUIRE_NONE, cb, &tagv[7], NULL, 0));
    OK(mpitev_reg_set_dropped_handler(imm, gate_dropped));
    gate_drops_seen = 0;
    const _Atomic uint64_t *g2 = &so2.mpitev__buf->gate;
    assert_true(atomic_load(g2) != MPITEV_CB_REQUIRE_NONE); /* never settled yet */
    for (int i = 0; i < 4; i++) MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_true(atomic_load(g2) == MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(MPITEV_DRAIN_DUE(&so2), 1); /* r buffers: still due */
    /* a call at another level leaves the gate and its level alone */
    MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_THREAD_SAFE);
    assert_true(atomic_load(g2) == MPITEV_CB_REQUIRE_NONE);
    /* a drop (no callback safe at the raise's level): closed, reported by the next call */
    struct pair p = { 1, -1 };
    MPITEV_RAISE(&evb, &so2, &objs[3], MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &p);
    assert_true(atomic_load(g2) & MPITEV__GATE_DROPS);
    MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(gate_drops_seen, 1);
    for (int i = 0; i < 2; i++) MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_true(atomic_load(g2) == MPITEV_CB_REQUIRE_NONE);
    /* the last buffering registration gone: closed for good, and the source goes idle */
    OK(mpitev_reg_free(r, NULL, NULL));
    for (int i = 0; i < 4; i++) MPITEV_DRAIN(&so2, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_true(atomic_load(g2) != MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(MPITEV_DRAIN_DUE(&so2), 0);
    OK(mpitev_reg_free(imm, NULL, NULL));
}

/* Records left on a source after the last buffering registration lost its callback
 * (unlisted: it buffers no more, nothing is freed): the drain that passes them settles
 * the gate with nobody buffering, which keeps it closed (IDLE), so the empty calls after
 * it look at the words and find the source idle. */
static void leftovers_keep_the_gate_closed(void **state) {
    (void)state;
    mpitev_reg r = reg_buf(&ev1, NULL, 1);
    ncalls = 0;
    raise1(&ev1, NULL, 0);
    assert_int_equal(drain(), 1);
    raise1(&ev1, NULL, 1);
    assert_int_equal(drain(), 1); /* the gate open: one record from the slot */
    assert_true(gate() == MPITEV_CB_REQUIRE_NONE);
    raise1(&ev1, NULL, 2);
    raise1(&ev1, NULL, 3);
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, NULL, NULL, NULL, 0));
    /* progress passes: the old set's grace period is over, only the drain is waited for */
    for (int i = 0; i < 4; i++) OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    assert_true(atomic_load(&mpitev__S->deferred));
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE); /* the leftovers */
    assert_false(atomic_load(&mpitev__S->deferred)); /* the set reclaimed at the call's end */
    assert_true(gate() & MPITEV__GATE_IDLE);
    for (int i = 0; i < 4; i++) MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(MPITEV_DRAIN_DUE(&so), 0);
    assert_int_equal(MPITEV_ANY_DRAIN_DUE(), 0);
    OK(mpitev_reg_free(r, NULL, NULL));
}

/* MPITEV_DRAIN called from a callback of the drain it would repeat (the source's claim
 * is the caller's: the records case is refused before the claim, as it is when nested
 * too deep): the delivery level that call entered is given back (the records case
 * enters it before the claim, mpitev__drain_all). Three such calls: a level kept by
 * each would leave the thread too deep for the next drain's callbacks (MPITEV_MAX_DEPTH
 * 2), which would then be counted as drops instead. */
static int redrain;
static void redrain_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    cb(inst, reg, cb_safety, ud);
    if (redrain) MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
}
static void refused_drain_gives_its_level_back(void **state) {
    (void)state;
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", "true" };
    OK(mpitev_reg_alloc(tindex(&ev1), NULL, &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, redrain_cb, &tagv[1], NULL, 0));
    OK(mpitev_reg_set_dropped_handler(r, gate_dropped));
    gate_drops_seen = 0;
    ncalls = 0;
    redrain = 1;
    for (int i = 0; i < 3; i++) { /* one record per call: each callback's call refused */
        raise1(&ev1, NULL, i);
        MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        assert_int_equal(ncalls, i + 1);
    }
    raise1(&ev1, NULL, 3); /* and from a call with several records */
    raise1(&ev1, NULL, 4);
    MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(ncalls, 5);
    redrain = 0;
    for (int i = 5; i < 8; i++) {
        raise1(&ev1, NULL, i);
        MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    }
    assert_int_equal(ncalls, 8);
    for (int i = 0; i < 8; i++) assert_int_equal(calls[i].a, i);
    assert_int_equal(gate_drops_seen, 0);
    assert_int_equal(mpitev__tls_room, MPITEV_MAX_DEPTH);
    OK(mpitev_reg_free(r, NULL, NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(one_record_per_call, setup, core_teardown),
        cmocka_unit_test_setup_teardown(several_deliveries_are_quick, setup, core_teardown),
        cmocka_unit_test_setup_teardown(several_deliveries_wrap, setup, core_teardown),
        cmocka_unit_test_setup_teardown(free_inside_a_record_goes_live, setup, core_teardown),
        cmocka_unit_test_setup_teardown(other_level_is_not_served, setup, core_teardown),
        cmocka_unit_test_setup_teardown(alternating_objects_are_quick, setup, core_teardown),
        cmocka_unit_test_setup_teardown(keys_of_one_pair_are_quick, setup, core_teardown),
        cmocka_unit_test_setup_teardown(gate_closes_and_opens, setup, core_teardown),
        cmocka_unit_test_setup_teardown(open_gate_vouches, setup, core_teardown),
        cmocka_unit_test_setup_teardown(deferred_work_closes_the_gate, setup, core_teardown),
        cmocka_unit_test_setup_teardown(empty_source_gate_opens, setup, core_teardown),
        cmocka_unit_test_setup_teardown(leftovers_keep_the_gate_closed, setup, core_teardown),
        cmocka_unit_test_setup_teardown(refused_drain_gives_its_level_back, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
