/* Stress: raises on many threads against registration churn (immediate delivery).
 *
 * Raiser threads each own an ordered source and share one unordered source; half of
 * their raises require MPITEV_CB_REQUIRE_NONE (delivered to our NONE callbacks), half
 * MPITEV_CB_REQUIRE_THREAD_SAFE (no safe callback: counted as dropped). A churn thread
 * allocates registrations, attaches callbacks and a dropped handler, sometimes swaps
 * callbacks, and frees them, calling mpitev_progress to run deferred free callbacks.
 *
 * For every registration it checks:
 *  - no callback and no dropped report after its free callback; free callback once;
 *  - per ordered source, delivered sequence numbers strictly increase;
 *  - delivered + reported dropped = raised while it was active. In the "exact" phase
 *    raisers and churn take turns (barriers), so "while active" is exact and equality is
 *    asserted. In the "racing" phase they overlap; every raiser keeps started/finished
 *    counters, and the count must lie between the raises that certainly saw the
 *    registration (started after activation returned, finished before the free began)
 *    and the raises that possibly did (finished after activation began, started before
 *    the free returned). */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include "../api_helpers.h"

#define NRAISERS 3
#define EXACT_ROUNDS 40
#define EXACT_RAISES 200
#define RACING_REGS 300

struct ev_payload {
    int32_t thread;
    int32_t pad;
    int64_t seq;
};
static const mpitev_element ev_elements[] = {
    MPITEV_ELEMENT_OF(struct ev_payload, thread, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct ev_payload, pad, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct ev_payload, seq, MPITEV_DTYPE_INT64),
};

static mpitev_type ev;
static mpitev_source src_thread[NRAISERS];
static mpitev_source src_shared;

struct regctx {
    _Atomic long delivered;
    _Atomic long dropped;
    _Atomic int freed;           /* free callback ran (count) */
    _Atomic int violations;      /* delivery or drop report after free, order broken */
    int64_t last_seq[NRAISERS];  /* per ordered source; written by that raiser only */
    long lo, hi;                 /* racing bounds */
};

static _Atomic long started[NRAISERS], finished[NRAISERS];
static _Atomic int stop_raisers;
static _Atomic int raise_budget[NRAISERS]; /* exact phase: raises still to do */
static _Atomic int exact_mode;

static void on_event(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; struct regctx *c = ud;
    if (atomic_load(&c->freed) || cb_safety != MPITEV_CB_REQUIRE_NONE) atomic_fetch_add(&c->violations, 1);
    struct ev_payload p;
    int si = -1;
    if (mpitev_instance_copy(inst, &p) != MPITEV_SUCCESS || mpitev_instance_source(inst, &si) != MPITEV_SUCCESS)
        atomic_fetch_add(&c->violations, 1);
    if (si == sindex(&src_thread[p.thread])) {
        if (p.seq <= c->last_seq[p.thread]) atomic_fetch_add(&c->violations, 1);
        c->last_seq[p.thread] = p.seq;
    }
    atomic_fetch_add(&c->delivered, 1);
}

static void on_dropped(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)source_index; (void)cb_safety; struct regctx *c = ud;
    if (atomic_load(&c->freed)) atomic_fetch_add(&c->violations, 1);
    atomic_fetch_add(&c->dropped, (long)count);
}

static void on_free(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; struct regctx *c = ud;
    atomic_fetch_add(&c->freed, 1);
}

static void *raiser(void *arg) {
    int t = (int)(intptr_t)arg;
    int64_t seq = 0;
    while (!atomic_load(&stop_raisers)) {
        if (atomic_load(&exact_mode)) {
            if (atomic_load(&raise_budget[t]) == 0) continue;
            atomic_fetch_sub(&raise_budget[t], 1);
        }
        seq++;
        mpitev_source *s = (seq % 3 == 0) ? &src_shared : &src_thread[t];
        int safety = (seq % 2) ? MPITEV_CB_REQUIRE_NONE : MPITEV_CB_REQUIRE_THREAD_SAFE;
        atomic_fetch_add(&started[t], 1);
        MPITEV_RAISE(&ev, s, NULL, safety, &(struct ev_payload){ t, 0, seq });
        atomic_fetch_add(&finished[t], 1);
    }
    return NULL;
}

static long sum(_Atomic long *a) {
    long s = 0;
    for (int i = 0; i < NRAISERS; i++) s += atomic_load(&a[i]);
    return s;
}

static struct regctx *new_ctx(void) {
    struct regctx *c = calloc(1, sizeof *c);
    assert_non_null(c);
    for (int i = 0; i < NRAISERS; i++) c->last_seq[i] = -1;
    return c;
}

static mpitev_reg activate(struct regctx *c) {
    mpitev_reg r;
    assert_int_equal(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r), MPITEV_SUCCESS);
    assert_int_equal(mpitev_reg_set_dropped_handler(r, on_dropped), MPITEV_SUCCESS);
    assert_int_equal(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, on_event, c, NULL, 0), MPITEV_SUCCESS);
    return r;
}

static void wait_freed(struct regctx **ctx, int n) {
    for (int spins = 0; spins < 2000000; spins++) {
        int all = 1;
        for (int i = 0; i < n; i++) all &= atomic_load(&ctx[i]->freed) == 1;
        if (all) return;
        mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    }
    fail_msg("free callbacks did not all run");
}

/* Sources keep the name pointer: the names must outlive the registry. */
static char source_names[NRAISERS][32];

static void declare_all(void) {
    assert_int_equal(mpitev_init(), MPITEV_SUCCESS);
    for (int i = 0; i < NRAISERS; i++) {
        snprintf(source_names[i], sizeof source_names[i], "thread%d", i);
        assert_int_equal(mpitev_source_declare(&src_thread[i], &(mpitev_source_desc){ .name = source_names[i], .ordering = MPITEV_SOURCE_ORDERED }), MPITEV_SUCCESS);
    }
    assert_int_equal(mpitev_source_declare(&src_shared, &(mpitev_source_desc){ .name = "shared", .ordering = MPITEV_SOURCE_UNORDERED }), MPITEV_SUCCESS);
    assert_int_equal(mpitev_type_declare(&ev, &(mpitev_type_desc){ .name = "stress_ev", .elements = ev_elements, .num_elements = 3, .payload_size = sizeof(struct ev_payload) }), MPITEV_SUCCESS);
}

static void test_exact_rounds(void **state) {
    (void)state;
    declare_all();

    atomic_store(&exact_mode, 1);
    atomic_store(&stop_raisers, 0);
    pthread_t th[NRAISERS];
    for (int i = 0; i < NRAISERS; i++) assert_int_equal(pthread_create(&th[i], NULL, raiser, (void *)(intptr_t)i), 0);
    struct regctx *ctx[EXACT_ROUNDS][2];
    for (int round = 0; round < EXACT_ROUNDS; round++) {
        /* Raisers are idle (budget 0): activate two registrations, then let them raise. */
        mpitev_reg r[2];
        for (int k = 0; k < 2; k++) { ctx[round][k] = new_ctx(); r[k] = activate(ctx[round][k]); }
        long before = sum(finished);
        for (int i = 0; i < NRAISERS; i++) atomic_store(&raise_budget[i], EXACT_RAISES);
        while (sum(finished) - before < (long)NRAISERS * EXACT_RAISES) mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
        for (int k = 0; k < 2; k++) assert_int_equal(mpitev_reg_free(r[k], ctx[round][k], on_free), MPITEV_SUCCESS);
        wait_freed(ctx[round], 2);
        for (int k = 0; k < 2; k++) {
            struct regctx *c = ctx[round][k];
            assert_int_equal(atomic_load(&c->violations), 0);
            assert_int_equal(atomic_load(&c->delivered) + atomic_load(&c->dropped), (long)NRAISERS * EXACT_RAISES);
            /* half the raises require THREAD_SAFE and our only callback is NONE */
            assert_int_equal(atomic_load(&c->dropped), (long)NRAISERS * EXACT_RAISES / 2);
        }
    }
    atomic_store(&stop_raisers, 1);
    for (int i = 0; i < NRAISERS; i++) pthread_join(th[i], NULL);
    for (int round = 0; round < EXACT_ROUNDS; round++) {
        for (int k = 0; k < 2; k++) {
            assert_int_equal(atomic_load(&ctx[round][k]->freed), 1);
            free(ctx[round][k]);
        }
    }
    assert_int_equal(mpitev_finalize(), MPITEV_SUCCESS);
}

static void test_racing_churn(void **state) {
    (void)state;
    declare_all();

    atomic_store(&exact_mode, 0);
    atomic_store(&stop_raisers, 0);
    pthread_t th[NRAISERS];
    for (int i = 0; i < NRAISERS; i++) assert_int_equal(pthread_create(&th[i], NULL, raiser, (void *)(intptr_t)i), 0);

    struct regctx **ctx = calloc(RACING_REGS, sizeof *ctx);
    assert_non_null(ctx);
    mpitev_reg live[4];
    int nlive = 0;
    long act_call[RACING_REGS], act_ret[RACING_REGS];
    int idx_of_live[4];
    for (int n = 0; n < RACING_REGS; n++) {
        ctx[n] = new_ctx();
        act_call[n] = sum(finished);
        mpitev_reg r = activate(ctx[n]);
        act_ret[n] = sum(started);
        live[nlive] = r;
        idx_of_live[nlive++] = n;
        /* Swap the callback for the same one now and then: a copy-on-write under load. */
        if (n % 5 == 0)
            assert_int_equal(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, on_event, ctx[n], NULL, 0), MPITEV_SUCCESS);
        /* Let some raises happen, then free the oldest when 4 are alive. */
        long until = sum(finished) + 50;
        while (sum(finished) < until) mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
        if (nlive == 4 || n == RACING_REGS - 1) {
            for (int k = 0; k < nlive; k++) {
                int m = idx_of_live[k];
                long free_call = sum(finished);
                assert_int_equal(mpitev_reg_free(live[k], ctx[m], on_free), MPITEV_SUCCESS);
                long free_ret = sum(started);
                ctx[m]->lo = free_call - act_ret[m];
                ctx[m]->hi = free_ret - act_call[m];
            }
            nlive = 0;
        }
    }
    atomic_store(&stop_raisers, 1);
    for (int i = 0; i < NRAISERS; i++) pthread_join(th[i], NULL);
    wait_freed(ctx, RACING_REGS);
    long total = 0;
    for (int n = 0; n < RACING_REGS; n++) {
        struct regctx *c = ctx[n];
        long got = atomic_load(&c->delivered) + atomic_load(&c->dropped);
        assert_int_equal(atomic_load(&c->freed), 1);
        assert_int_equal(atomic_load(&c->violations), 0);
        if (got < c->lo || got > c->hi)
            fail_msg("registration %d: delivered %ld + dropped %ld outside [%ld, %ld]", n, atomic_load(&c->delivered),
                     atomic_load(&c->dropped), c->lo, c->hi);
        total += got;
        free(c);
    }
    free(ctx);
    assert_true(total > 0);
    assert_int_equal(mpitev_finalize(), MPITEV_SUCCESS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_rounds),
        cmocka_unit_test(test_racing_churn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
