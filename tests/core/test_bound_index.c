/* Bound types: the object index of a registration set (impl_common.inc) and the drain's
 * delivery cache (impl_drain.inc). Each instance reaches exactly the registrations of
 * its object, whatever the number of registrations on other objects, in both delivery
 * modes, with objects alternating between records, registrations on one object added
 * and freed in any order, and callbacks changed between drains. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

#define NOBJ 70
static mpitev_type evb, evb2;
static mpitev_source so;
static char objs[NOBJ];
static struct pair cur;
static int hits[NOBJ][4]; /* [object][registration tag] */

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc d = pair_desc("evb", MPITEV_BIND_MPI_COMM);
    mpitev_type_desc d2 = pair_desc("evb2", MPITEV_BIND_MPI_COMM);
    mpitev_source_desc a = src_desc("so", MPITEV_SOURCE_ORDERED, NULL);
    memset(hits, 0, sizeof hits);
    return (mpitev_source_declare(&so, &a) || mpitev_type_declare(&evb, &d) || mpitev_type_declare(&evb2, &d2)) ? -1
                                                                                                              : 0;
}

/* user_data: &tags[obj * 4 + tag] */
static int tags[NOBJ * 4];
static void hit_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety;
    struct pair p;
    OK(mpitev_instance_copy(inst, &p));
    int t = (int)(*(int *)ud);
    assert_int_equal(p.a, t / 4); /* the payload names the object it was raised for */
    hits[t / 4][t % 4]++;
}
static mpitev_reg reg_on(int obj, int tag, int buffered) {
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", buffered ? "true" : "false" };
    tags[obj * 4 + tag] = obj * 4 + tag;
    OK(mpitev_reg_alloc(tindex(&evb), &objs[obj], &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, hit_cb, &tags[obj * 4 + tag], NULL, 0));
    return r;
}
static void raise_on(int obj) {
    cur.a = obj;
    MPITEV_RAISE(&evb, &so, &objs[obj], MPITEV_CB_REQUIRE_NONE, &cur);
}
static void drain(void) { (void)drain_n(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE); }

static void run(int buffered) {
    /* registrations on 64 objects, added in a scrambled order; two more on object 5 and
     * one on object 66 added later; none on objects 67..69 */
    mpitev_reg r[NOBJ][4];
    for (int i = 0; i < 64; i++) {
        int o = (i * 37) % 64;
        r[o][0] = reg_on(o, 0, buffered);
    }
    r[5][1] = reg_on(5, 1, buffered);
    r[5][2] = reg_on(5, 2, buffered);
    r[66][0] = reg_on(66, 0, buffered);
    /* alternating objects, including ones nobody registered */
    for (int k = 0; k < 3; k++)
        for (int o = 0; o < NOBJ; o++) raise_on(o);
    drain();
    for (int o = 0; o < NOBJ; o++) {
        int want = (o < 64 || o == 66) ? 3 : 0;
        assert_int_equal(hits[o][0], want);
    }
    assert_int_equal(hits[5][1], 3);
    assert_int_equal(hits[5][2], 3);
    /* the same object many times (the drain's cached path), then a free in the middle of
     * object 5's range and a changed callback: each later record sees the change */
    memset(hits, 0, sizeof hits);
    for (int k = 0; k < 10; k++) raise_on(5);
    drain();
    assert_int_equal(hits[5][0], 10);
    assert_int_equal(hits[5][1], 10);
    assert_int_equal(hits[5][2], 10);
    OK(mpitev_reg_free(r[5][1], NULL, NULL));
    for (int k = 0; k < 10; k++) raise_on(5);
    drain();
    assert_int_equal(hits[5][1], 10); /* freed: nothing more */
    assert_int_equal(hits[5][0], 20);
    assert_int_equal(hits[5][2], 20);
    OK(mpitev_reg_set_callback(r[5][0], MPITEV_CB_REQUIRE_NONE, NULL, NULL, NULL, 0)); /* remove its callback */
    for (int k = 0; k < 4; k++) raise_on(5);
    drain();
    assert_int_equal(hits[5][0], 20);
    assert_int_equal(hits[5][2], 24);
    for (int k = 0; k < 4; k++) raise_on(6);
    drain();
    assert_int_equal(hits[6][0], 4);
    assert_int_equal(hits[5][2], 24);
}

/* A callback that frees another registration of the same record: the record's later
 * delivery to it must not happen (its cached copy is stale), whether the record's
 * deliveries were just cached (refill) or come from the cache. Found by fuzz_api. */
static mpitev_reg victim;
static int free_victim, victim_calls, killer_calls;
static void killer_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst; (void)reg; (void)cb_safety; (void)ud;
    killer_calls++;
    if (free_victim) {
        free_victim = 0;
        OK(mpitev_reg_free(victim, NULL, NULL));
    }
}
static void victim_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst; (void)reg; (void)cb_safety; (void)ud;
    victim_calls++;
}
static void callback_frees_a_later_delivery_of_its_record(void **state) {
    (void)state;
    mpitev_kv kv = { "mpitev_buffered", "true" };
    for (int cached = 0; cached < 2; cached++) {
        mpitev_reg killer;
        victim_calls = killer_calls = 0;
        OK(mpitev_reg_alloc(tindex(&evb), &objs[7], &kv, 1, &killer));
        OK(mpitev_reg_set_callback(killer, MPITEV_CB_REQUIRE_NONE, killer_cb, NULL, NULL, 0));
        OK(mpitev_reg_alloc(tindex(&evb), &objs[7], &kv, 1, &victim));
        OK(mpitev_reg_set_callback(victim, MPITEV_CB_REQUIRE_NONE, victim_cb, NULL, NULL, 0));
        if (cached) { /* one record first: the drain caches the record's two deliveries */
            raise_on(7);
            drain();
            assert_int_equal(killer_calls, 1);
            assert_int_equal(victim_calls, 1);
        }
        free_victim = 1;
        raise_on(7);
        raise_on(7);
        drain();
        assert_int_equal(killer_calls, 2 + cached);
        assert_int_equal(victim_calls, cached); /* nothing after its free */
        OK(mpitev_reg_free(killer, NULL, NULL));
    }
}

/* Records of a type with two deliveries (the cache's multi-delivery entry) interleaved
 * with records of a type with one (a table slot): filling the slot must not change the
 * multi entry's deliveries. Found by fuzz_api (a delivery to a registration the record
 * was not raised to). */
static int calls_x1, calls_x2, calls_y;
static void cb_x1(const mpitev_instance *i, mpitev_reg r, int s, void *u) { (void)i; (void)r; (void)s; (void)u; calls_x1++; }
static void cb_x2(const mpitev_instance *i, mpitev_reg r, int s, void *u) { (void)i; (void)r; (void)s; (void)u; calls_x2++; }
static void cb_y(const mpitev_instance *i, mpitev_reg r, int s, void *u) { (void)i; (void)r; (void)s; (void)u; calls_y++; }
static void multi_and_single_deliveries_interleaved(void **state) {
    (void)state;
    mpitev_kv kv = { "mpitev_buffered", "true" };
    mpitev_reg x1, x2, y;
    OK(mpitev_reg_alloc(tindex(&evb), &objs[8], &kv, 1, &x1));
    OK(mpitev_reg_set_callback(x1, MPITEV_CB_REQUIRE_NONE, cb_x1, NULL, NULL, 0));
    OK(mpitev_reg_alloc(tindex(&evb), &objs[8], &kv, 1, &x2));
    OK(mpitev_reg_set_callback(x2, MPITEV_CB_REQUIRE_NONE, cb_x2, NULL, NULL, 0));
    OK(mpitev_reg_alloc(tindex(&evb2), &objs[8], &kv, 1, &y));
    OK(mpitev_reg_set_callback(y, MPITEV_CB_REQUIRE_NONE, cb_y, NULL, NULL, 0));
    calls_x1 = calls_x2 = calls_y = 0;
    for (int k = 0; k < 3; k++) {
        raise_on(8);
        MPITEV_RAISE(&evb2, &so, &objs[8], MPITEV_CB_REQUIRE_NONE, &cur);
    }
    raise_on(8);
    drain();
    assert_int_equal(calls_x1, 4);
    assert_int_equal(calls_x2, 4);
    assert_int_equal(calls_y, 3);
    OK(mpitev_reg_free(x1, NULL, NULL));
    OK(mpitev_reg_free(x2, NULL, NULL));
    OK(mpitev_reg_free(y, NULL, NULL));
}

static void immediate_delivery_follows_the_object(void **state) { (void)state; run(0); }
static void drained_delivery_follows_the_object(void **state) { (void)state; run(1); }

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(immediate_delivery_follows_the_object, setup, core_teardown),
        cmocka_unit_test_setup_teardown(drained_delivery_follows_the_object, setup, core_teardown),
        cmocka_unit_test_setup_teardown(callback_frees_a_later_delivery_of_its_record, setup, core_teardown),
        cmocka_unit_test_setup_teardown(multi_and_single_deliveries_interleaved, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
