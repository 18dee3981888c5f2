/* A registration set's address used again (impl_free.inc): the
 * drain's cache names the sets its slots serve by address (impl_common.inc, the cache),
 * so a set given back to the allocator must make every slot that names it stale before
 * another set can be allocated there. The window that matters: a registry writer has
 * published a new set, at the address of one freed earlier, and has not yet bumped
 * regver nor closed the gates (impl_registration.inc); meanwhile a record raised against
 * the new set is drained. A test point stops the writer there, and
 * the library's allocator is a pooling one that hands the last block freed of a size
 * back first (as an MPI's own allocator may), so the new set does land at the old one's
 * address. The record must reach the new set's registrations, never the old set's.
 * (Found by review, fixed in 63ea234: before the fix the record went to the freed set's
 * registration, and the new one missed it.)
 * A unit test of internal modules, as no public call can stop a registry writer between
 * the publication and the rest of its update, nor tell where a set was allocated: it
 * uses the library's test point (MPITEV__TEST_POINT) and reads the type's published
 * set (mpitev__regs) only to check that the new set did land at the old address
 * (without that, the test would prove nothing). stress_set_reuse covers the same
 * without the handshake. */
#include <pthread.h>
#include <semaphore.h>

/* The writer stops at the set's publication when armed (before the implementation). */
static void test_point(const char *name);
#define MPITEV__TEST_POINT(name) test_point(#name)

#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"
#include "../lifo_pool.h" /* the pool: the last block freed of a size handed out first */

static sem_t at_point, go_on;
static atomic_int armed;
static void test_point(const char *name) {
    if (strcmp(name, "set_published") == 0 && atomic_exchange(&armed, 0)) {
        sem_post(&at_point);
        sem_wait(&go_on);
    }
}

static mpitev_type eva, evb;
static mpitev_source so;

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc da = pair_desc("reuse_a", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc db = pair_desc("reuse_b", MPITEV_BIND_NO_OBJECT);
    mpitev_source_desc s = src_desc("reuse", MPITEV_SOURCE_ORDERED, NULL);
    return (mpitev_source_declare(&so, &s) || mpitev_type_declare(&eva, &da) || mpitev_type_declare(&evb, &db)) ? -1
                                                                                                               : 0;
}

/* Who got what: per callback tag, the deliveries, the last payload and type. */
static struct got {
    int n, a, type;
} got[4];
static void cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety;
    struct got *g = &got[(intptr_t)ud];
    struct pair p;
    OK(mpitev_instance_copy(inst, &p));
    OK(mpitev_instance_type(inst, &g->type));
    g->a = p.a;
    g->n++;
}
static mpitev_reg reg_on(mpitev_type *t, intptr_t tag) {
    mpitev_reg r = MPITEV_REG_NULL;
    int ti = -1;
    mpitev_kv kv = { "mpitev_buffered", "true" };
    OK(mpitev_type_index_of(t, &ti));
    OK(mpitev_reg_alloc(ti, NULL, &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, cb, (void *)tag, NULL, 0));
    return r;
}
static void raise_a(mpitev_type *t, int a) {
    MPITEV_RAISE(t, &so, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ a, 0 });
}
static void drain(void) { MPITEV_DRAIN(&so, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE); }

/* The writer: frees a registration (a smaller set published), stopped at the
 * publication. */
static mpitev_reg to_free;
static void *writer(void *arg) {
    (void)arg;
    OK(mpitev_reg_free(to_free, NULL, NULL));
    return NULL;
}

/* R1 alone on eva (set S1); two records name S1; R2 joins (S1 retired); a drain serves
 * the two records (the drain's cache now names S1 -> R1); progress gives S1 back; empty
 * drains follow. Returns S1's address. */
static const void *cache_a_freed_set(mpitev_reg *r1, mpitev_reg *r2) {
    memset(got, 0, sizeof got);
    *r1 = reg_on(&eva, 1);
    const void *s1 = atomic_load(&eva.mpitev__regs);
    raise_a(&eva, 10);
    raise_a(&eva, 11);
    *r2 = reg_on(&eva, 2);
    drain();
    assert_int_equal(got[1].n, 2); /* S1 = {R1} served both */
    assert_int_equal(got[2].n, 0);
    for (int i = 0; i < 4; i++) (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL); /* S1 given back */
    for (int i = 0; i < 3; i++) drain();                                              /* empty */
    return s1;
}

/* Runs the writer up to the publication, then raises t and drains, then lets it end. */
static void raise_in_the_window(mpitev_type *t, int a, const void *s1, int *reused) {
    pthread_t th;
    atomic_store(&armed, 1);
    assert_int_equal(pthread_create(&th, NULL, writer, NULL), 0);
    sem_wait(&at_point);
    *reused = atomic_load(&t->mpitev__regs) == s1; /* the new set at the old address */
    raise_a(t, a);
    drain();
    sem_post(&go_on);
    assert_int_equal(pthread_join(th, NULL), 0);
}

/* Same type: R1 freed, S2 = {R2} at S1's address; a record raised against S2 reaches R2. */
static void test_reuse_same_type(void **state) {
    (void)state;
    mpitev_reg r1, r2;
    const void *s1 = cache_a_freed_set(&r1, &r2);
    to_free = r1;
    int reused;
    raise_in_the_window(&eva, 100, s1, &reused);
    assert_true(reused); /* (else the test proves nothing: the pool must give S1's block) */
    assert_int_equal(got[1].n, 2);   /* R1 freed: nothing more */
    assert_int_equal(got[2].n, 1);   /* R2 got the record */
    assert_int_equal(got[2].a, 100);
    drain();
    OK(mpitev_reg_free(r2, NULL, NULL));
}

/* Another type: a set of evb lands at S1's address (evb's {RB1, RB2} loses RB1); its
 * record reaches RB2, with evb's type, not R1 with eva's. */
static void test_reuse_other_type(void **state) {
    (void)state;
    mpitev_reg rb1 = reg_on(&evb, 3), rb2 = reg_on(&evb, 0);
    /* evb's first set ({RB1}, of S1's size) given back now, before S1: the pool hands
     * S1's block out first */
    for (int i = 0; i < 4; i++) (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    mpitev_reg r1, r2;
    const void *s1 = cache_a_freed_set(&r1, &r2);
    to_free = rb1;
    int reused;
    raise_in_the_window(&evb, 200, s1, &reused);
    assert_true(reused);
    assert_int_equal(got[1].n, 2); /* R1 (eva) got nothing more */
    assert_int_equal(got[3].n, 0); /* RB1 freed */
    assert_int_equal(got[0].n, 1); /* RB2 got it */
    assert_int_equal(got[0].a, 200);
    int tb = -1;
    OK(mpitev_type_index_of(&evb, &tb));
    assert_int_equal(got[0].type, tb);
    drain();
    OK(mpitev_reg_free(rb2, NULL, NULL));
    OK(mpitev_reg_free(r1, NULL, NULL));
    OK(mpitev_reg_free(r2, NULL, NULL));
}

int main(void) {
    mpitev_allocator al = { lifo_pool_alloc, lifo_pool_free, NULL };
    if (mpitev_set_allocator(&al) != MPITEV_SUCCESS) return 1;
    sem_init(&at_point, 0, 0);
    sem_init(&go_on, 0, 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reuse_same_type, setup, core_teardown),
        cmocka_unit_test_setup_teardown(test_reuse_other_type, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
