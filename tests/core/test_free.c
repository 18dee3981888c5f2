/* mpitev_reg_free: free callbacks, frees and registry calls from inside callbacks. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

#include <pthread.h>

static mpitev_type ev, ev2;
static mpitev_source src;
static struct pair cur;

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc d = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc d2 = pair_desc("ev2", MPITEV_BIND_NO_OBJECT);
    mpitev_source_desc s = src_desc("src", MPITEV_SOURCE_ORDERED, NULL);
    return (mpitev_source_declare(&src, &s) || mpitev_type_declare(&ev, &d) || mpitev_type_declare(&ev2, &d2)) ? -1 : 0;
}

typedef struct free_rec {
    int calls;
    uint64_t reg;
    int cb_safety;
    void *ud;
} free_rec;
static free_rec fr;
static void on_free(mpitev_reg reg, int cb_safety, void *ud) {
    fr.calls++;
    fr.reg = reg.bits;
    fr.cb_safety = cb_safety;
    fr.ud = ud;
}

static void raise_ev(void) { MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &cur); }

static void free_callback_once(void **state) {
    (void)state;
    memset(&fr, 0, sizeof fr);
    int token;
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    OK(mpitev_reg_free(r, &token, on_free));
    /* No raise in flight: completes at once. */
    assert_int_equal(fr.calls, 1);
    assert_ptr_equal(fr.ud, &token);
    assert_true(fr.reg == r.bits);
    assert_int_equal(fr.cb_safety, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(progress_n(MPITEV_CB_REQUIRE_NONE), 0);
    OK(mpitev_finalize());
    OK(mpitev_init());
    assert_int_equal(fr.calls, 1); /* never again */
}

static void free_with_callbacks_stops_delivery(void **state) {
    (void)state;
    memset(&fr, 0, sizeof fr);
    recorder rec = { 0 };
    rec_ud u = { 1, &rec };
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, rec_cb, &u, NULL, 0));
    raise_ev();
    OK(mpitev_reg_free(r, &u, on_free));
    raise_ev();
    assert_int_equal(rec.n, 1);
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(fr.calls, 1);
    assert_ptr_equal(fr.ud, &u);
    assert_true(fr.reg == r.bits);
}

/* ---- A callback that frees its own registration. ---- */
static int self_free_calls;
static int self_free_rc;
static void self_freeing_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst; (void)cb_safety; self_free_calls++;
    self_free_rc = mpitev_reg_free(reg, ud, on_free);
    assert_int_equal(fr.calls, 0); /* deferred: our own raise is in flight */
    assert_int_equal(mpitev_reg_free(reg, ud, on_free), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_check(reg), MPITEV_ERR_INVALID_HANDLE);
}

static void callback_frees_itself(void **state) {
    (void)state;
    memset(&fr, 0, sizeof fr);
    self_free_calls = 0;
    recorder rec = { 0 };
    rec_ud u = { 2, &rec };
    int token;
    mpitev_reg r, other;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &other));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, self_freeing_cb, &token, NULL, 0));
    OK(mpitev_reg_set_callback(other, MPITEV_CB_REQUIRE_NONE, rec_cb, &u, NULL, 0));
    raise_ev();
    OK(self_free_rc);
    assert_int_equal(self_free_calls, 1);
    assert_int_equal(rec.n, 1); /* the other registration still got the instance */
    assert_int_equal(fr.calls, 0); /* not yet: waits for progress */
    raise_ev();
    assert_int_equal(self_free_calls, 1); /* no further delivery */
    assert_int_equal(rec.n, 2);
    assert_int_equal(progress_n(MPITEV_CB_REQUIRE_MPI_RESTRICTED), 1);
    assert_int_equal(fr.calls, 1);
    assert_ptr_equal(fr.ud, &token);
    assert_true(fr.reg == r.bits);
    assert_int_equal(fr.cb_safety, MPITEV_CB_REQUIRE_MPI_RESTRICTED); /* progress's level */
    assert_int_equal(progress_n(MPITEV_CB_REQUIRE_NONE), 0);
    assert_int_equal(fr.calls, 1);
}

/* A free callback may still be pending at finalize: it runs then, once. */
static void finalize_runs_pending_free(void **state) {
    (void)state;
    memset(&fr, 0, sizeof fr);
    self_free_calls = 0;
    int token;
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, self_freeing_cb, &token, NULL, 0));
    raise_ev();
    assert_int_equal(fr.calls, 0);
    OK(mpitev_finalize());
    assert_int_equal(fr.calls, 1);
    assert_ptr_equal(fr.ud, &token);
    OK(mpitev_init());
    assert_int_equal(fr.calls, 1);
}

/* ---- A callback that allocates, frees and replaces registrations. ---- */
static mpitev_reg victim, created, me;
static recorder crec;
static rec_ud cu_victim = { 'v', &crec }, cu_created = { 'c', &crec }, cu_new = { 'n', &crec };
static int busy_calls;
static void busy_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst; (void)cb_safety; (void)ud; busy_calls++;
    if (busy_calls > 1) return;
    OK(mpitev_reg_free(victim, NULL, on_free));
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &created));
    OK(mpitev_reg_set_callback(created, MPITEV_CB_REQUIRE_NONE, rec_cb, &cu_created, NULL, 0));
    /* Replace our own callback: the next instance goes to the new one. */
    OK(mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_NONE, rec_cb, &cu_new, NULL, 0));
    OK(mpitev_reg_set_info(reg, &(mpitev_kv){ "k", "v" }, 1));
    mpitev_reg tmp;
    OK(mpitev_reg_alloc(tindex(&ev2), NULL, NULL, 0, &tmp));
    OK(mpitev_reg_free(tmp, NULL, NULL));
}

static void callback_changes_registry(void **state) {
    (void)state;
    memset(&fr, 0, sizeof fr);
    memset(&crec, 0, sizeof crec);
    busy_calls = 0;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &me));
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &victim));
    OK(mpitev_reg_set_callback(me, MPITEV_CB_REQUIRE_NONE, busy_cb, NULL, NULL, 0));
    OK(mpitev_reg_set_callback(victim, MPITEV_CB_REQUIRE_NONE, rec_cb, &cu_victim, NULL, 0));
    raise_ev();
    assert_int_equal(busy_calls, 1);
    /* The victim, listed after us, was freed before its turn: not delivered. */
    assert_int_equal(crec.n, 0);
    assert_int_equal(fr.calls, 0);
    raise_ev();
    assert_int_equal(busy_calls, 1); /* replaced */
    assert_int_equal(crec.n, 2);
    int seen_new = 0, seen_created = 0;
    for (int i = 0; i < crec.n; i++) {
        assert_int_not_equal(crec.calls[i].tag, 'v');
        seen_new += crec.calls[i].tag == 'n';
        seen_created += crec.calls[i].tag == 'c';
        if (crec.calls[i].tag == 'n') assert_true(crec.calls[i].reg == me.bits);
        if (crec.calls[i].tag == 'c') assert_true(crec.calls[i].reg == created.bits);
    }
    assert_int_equal(seen_new, 1);
    assert_int_equal(seen_created, 1);
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(fr.calls, 1);
    assert_true(fr.reg == victim.bits);
}

/* A free callback that uses the registry (allocates and frees): no deadlock, and the
 * inner free's callback runs exactly once too. */
static int inner_free_calls;
static void inner_free(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud; inner_free_calls++;
}
static void reentrant_free(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud; fr.calls++;
    mpitev_reg r2;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r2));
    OK(mpitev_reg_free(r2, NULL, inner_free));
    int n;
    OK(mpitev_type_get_num(&n));
}
static void free_callback_uses_registry(void **state) {
    (void)state;
    memset(&fr, 0, sizeof fr);
    inner_free_calls = 0;
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    OK(mpitev_reg_free(r, NULL, reentrant_free));
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(fr.calls, 1);
    assert_int_equal(inner_free_calls, 1);
}

/* A raise nested in a callback, on the same ordered source, runs inside the outer
 * raise's grace section and must not end it: a free from the inner callback waits for
 * the outer raise too, however often another thread polls meanwhile (this thread does
 * not poll inside a delivery). */
static int nest_inner_calls, nest_frees_during_outer;
static void *nest_poller(void *arg) {
    (void)arg;
    for (int i = 0; i < 4; i++) mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    nest_frees_during_outer = fr.calls;
    return NULL;
}
static void nest_inner_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst; (void)cb_safety; (void)ud; nest_inner_calls++;
    OK(mpitev_reg_free(reg, NULL, on_free));
}
static void nest_outer_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst; (void)reg; (void)cb_safety; (void)ud; MPITEV_RAISE(&ev2, &src, NULL, MPITEV_CB_REQUIRE_NONE, &cur); /* nested, same source */
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, nest_poller, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
}
static void nested_raise_keeps_outer_grace(void **state) {
    (void)state;
    memset(&fr, 0, sizeof fr);
    nest_inner_calls = 0;
    nest_frees_during_outer = -1;
    mpitev_reg r1, r2;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r1));
    OK(mpitev_reg_set_callback(r1, MPITEV_CB_REQUIRE_NONE, nest_outer_cb, NULL, NULL, 0));
    OK(mpitev_reg_alloc(tindex(&ev2), NULL, NULL, 0, &r2));
    OK(mpitev_reg_set_callback(r2, MPITEV_CB_REQUIRE_NONE, nest_inner_cb, NULL, NULL, 0));
    raise_ev();
    assert_int_equal(nest_inner_calls, 1);
    assert_int_equal(nest_frees_during_outer, 0); /* the outer raise was still in flight */
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(fr.calls, 1);
    assert_true(fr.reg == r2.bits);
    OK(mpitev_reg_free(r1, NULL, NULL));
}

/* Live registrations at finalize go away without their (never given) free callback and
 * without any further delivery. */
static void finalize_drops_live_registrations(void **state) {
    (void)state;
    recorder rec = { 0 };
    rec_ud u = { 1, &rec };
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, rec_cb, &u, NULL, 0));
    OK(mpitev_finalize());
    assert_false(MPITEV_ENABLED(&ev));
    raise_ev();
    assert_int_equal(rec.n, 0);
    OK(mpitev_init());
    assert_int_equal(mpitev_reg_check(r), MPITEV_ERR_INVALID_HANDLE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(free_callback_once, setup, core_teardown),
        cmocka_unit_test_setup_teardown(free_with_callbacks_stops_delivery, setup, core_teardown),
        cmocka_unit_test_setup_teardown(callback_frees_itself, setup, core_teardown),
        cmocka_unit_test_setup_teardown(finalize_runs_pending_free, setup, core_teardown),
        cmocka_unit_test_setup_teardown(callback_changes_registry, setup, core_teardown),
        cmocka_unit_test_setup_teardown(free_callback_uses_registry, setup, core_teardown),
        cmocka_unit_test_setup_teardown(nested_raise_keeps_outer_grace, setup, core_teardown),
        cmocka_unit_test_setup_teardown(finalize_drops_live_registrations, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
