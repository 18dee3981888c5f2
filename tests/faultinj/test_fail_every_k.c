/* Allocation-failure injection over a full scenario: declarations (sources, types with
 * enums and categories), registrations with hints, callbacks at several levels,
 * dropped handlers, immediate and buffered raises (with full-ring drops), drains,
 * frees with free callbacks, callback removal, finalize and a second session. For every
 * k, the k-th allocation of the scenario fails (once), then for every k from k on every
 * allocation fails. Each time: every call succeeds or returns MPITEV_ERR_NO_MEM (a free
 * always succeeds), the accounts of the registrations are exact, nothing is leaked (the
 * failing allocator counts every block; run under ASan/LSan too), and a clean run of
 * the scenario afterwards works exactly. Prints the number of failure points. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "../core/core_test.h"
#include "failalloc.h"

static mpitev_source src_o, src_u;
static mpitev_type t_pair, t_comm, t_mark;
static const mpitev_enum_item items[] = { { "a", 0 }, { "b", 1 } };
static const mpitev_enum en = { "fk_pair_elements", 2, items };

typedef struct acct {
    int listening, has_dropped, exact, freed_with_cb, free_runs;
    int cb[4]; /* the levels with a callback (as the calls' codes say) */
    long raised, delivered, dropped;
} acct;

static void on_ev(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s;
    ((acct *)u)->delivered++;
}
static acct ac[4];
static mpitev_reg rg[4];
/* A registration with no callback left gets its drops with NULL user data: found by
 * its handle. */
static void on_drop(mpitev_count_t n, mpitev_reg r, int si, int s, void *u) {
    (void)si; (void)s;
    for (int i = 0; !u && i < 4; i++)
        if (rg[i].bits == r.bits) u = &ac[i];
    if (u) ((acct *)u)->dropped += n;
}
static void on_free(mpitev_reg r, int s, void *u) {
    (void)r; (void)s;
    ((acct *)u)->free_runs++;
}

static long nomem, bad;
/* A call with valid arguments: SUCCESS or NO_MEM, anything else is counted as bad. */
static int call(int rc) {
    if (rc == MPITEV_ERR_NO_MEM) nomem++;
    else if (rc != MPITEV_SUCCESS) bad++;
    return rc;
}

static void declare(void) {
    mpitev_source_desc so = src_desc("fk_ordered", MPITEV_SOURCE_ORDERED, NULL);
    so.buffer_capacity = 4; /* a full ring within the scenario */
    mpitev_source_desc su = src_desc("fk_unordered", MPITEV_SOURCE_UNORDERED, NULL);
    su.buffered_by_default = 1;
    (void)call(mpitev_source_declare(&src_o, &so));
    (void)call(mpitev_source_declare(&src_u, &su));
    mpitev_type_desc tp = pair_desc("fk_pair", MPITEV_BIND_NO_OBJECT);
    tp.category = "fk_cat";
    tp.enumtype = &en;
    mpitev_type_desc tc = pair_desc("fk_comm", MPITEV_BIND_MPI_COMM);
    tc.category = "fk_cat";
    mpitev_type_desc tm = { .name = "fk_mark", .category = "fk_other" };
    (void)call(mpitev_type_declare(&t_pair, &tp));
    (void)call(mpitev_type_declare(&t_comm, &tc));
    (void)call(mpitev_type_declare(&t_mark, &tm));
}

enum { NR = 4 };
static int have[NR];
static int comm_obj;

/* Raise one instance of t on s; the model counts it for the listening registrations. */
static void raise1(mpitev_type *t, mpitev_source *s, int level) {
    int idx;
    if (mpitev_type_index_of(t, &idx)) return; /* not declared (its declaration failed) */
    if (mpitev_source_index_of(s, &idx)) return;
    for (int i = 0; i < NR; i++) {
        if (!have[i] || !ac[i].listening) continue;
        int ti = -1;
        (void)mpitev_reg_get_type(rg[i], &ti);
        if (ti != tindex(t)) continue;
        ac[i].raised++;
        if (!ac[i].has_dropped) ac[i].exact = 0;
    }
    struct pair p = { 1, 2 };
    if (t == &t_mark) MPITEV_RAISE(t, s, NULL, level, NULL);
    else MPITEV_RAISE(t, s, t == &t_comm ? (const void *)&comm_obj : NULL, level, &p);
}

static void reg(int i, mpitev_type *t, const char *mode) {
    mpitev_kv kv[] = { { MPITEV_HINT_BUFFERED, mode }, { "fk_hint", "x" } };
    int idx;
    have[i] = 0;
    memset(&ac[i], 0, sizeof ac[i]);
    ac[i].exact = 1;
    if (mpitev_type_index_of(t, &idx)) return;
    if (call(mpitev_reg_alloc(idx, &comm_obj, kv, 2, &rg[i])) == MPITEV_SUCCESS) have[i] = 1;
}
static void set_cb(int i, int level, int on) {
    if (!have[i]) return;
    mpitev_kv kv = { "fk_cb_hint", "y" };
    if (call(mpitev_reg_set_callback(rg[i], level, on ? on_ev : NULL, &ac[i], &kv, on ? 1 : 0)) != MPITEV_SUCCESS)
        return; /* NO_MEM: nothing changed */
    ac[i].cb[level] = on;
    ac[i].listening = ac[i].cb[0] | ac[i].cb[1] | ac[i].cb[2] | ac[i].cb[3];
}
static void set_drop(int i, int on) {
    if (!have[i]) return;
    if (call(mpitev_reg_set_dropped_handler(rg[i], on ? on_drop : NULL)) != MPITEV_SUCCESS) return;
    if (!on && ac[i].raised > ac[i].delivered + ac[i].dropped) ac[i].exact = 0;
    ac[i].has_dropped = on;
}
static void free_reg(int i, int with_cb) {
    if (!have[i]) return;
    if (mpitev_reg_free(rg[i], &ac[i], with_cb ? on_free : NULL) != MPITEV_SUCCESS) bad++;
    have[i] = 0;
    ac[i].listening = 0;
    ac[i].freed_with_cb = with_cb;
}

/* The scenario; returns the number of accounting or callback-rule violations. */
static long scenario(void) {
    long viol = 0;
    OK(mpitev_init());
    declare();
    reg(0, &t_pair, "true");      /* buffered */
    set_drop(0, 1);
    set_cb(0, MPITEV_CB_REQUIRE_NONE, 1);
    set_cb(0, MPITEV_CB_REQUIRE_THREAD_SAFE, 1);
    reg(1, &t_pair, "false");     /* immediate */
    set_drop(1, 1);
    set_cb(1, MPITEV_CB_REQUIRE_MPI_RESTRICTED, 1);
    reg(2, &t_comm, "default");   /* bound; follows the source */
    set_drop(2, 1);
    set_cb(2, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 1);
    reg(3, &t_mark, "true");
    set_drop(3, 1);
    set_cb(3, MPITEV_CB_REQUIRE_NONE, 1);
    if (have[0]) {
        mpitev_kv more[] = { { "m1", "1" }, { "m2", "2" }, { "m3", "3" } };
        (void)call(mpitev_reg_set_info(rg[0], more, 3));
        (void)call(mpitev_reg_callback_set_info(rg[0], MPITEV_CB_REQUIRE_NONE, more, 3));
    }
    for (int i = 0; i < 6; i++) raise1(&t_pair, &src_o, i % 4); /* 4 fit the ring: drops */
    raise1(&t_comm, &src_u, MPITEV_CB_REQUIRE_NONE);
    raise1(&t_mark, &src_o, MPITEV_CB_REQUIRE_NONE);
    (void)mpitev_source_drain(&src_o, 2, MPITEV_CB_REQUIRE_NONE, NULL);
    set_cb(0, MPITEV_CB_REQUIRE_THREAD_SAFE, 0);
    raise1(&t_pair, &src_o, MPITEV_CB_REQUIRE_THREAD_SAFE);     /* 0: no safe callback now */
    free_reg(1, 1);
    set_drop(3, 0);
    set_drop(3, 1);
    raise1(&t_pair, &src_u, MPITEV_CB_REQUIRE_NONE);
    (void)mpitev_source_drain(&src_o, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL);
    (void)mpitev_source_drain(&src_u, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL);
    raise1(&t_pair, &src_o, MPITEV_CB_REQUIRE_NONE);
    free_reg(0, 1);
    set_cb(3, MPITEV_CB_REQUIRE_NONE, 0);
    raise1(&t_mark, &src_o, MPITEV_CB_REQUIRE_NONE);
    (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    OK(mpitev_finalize()); /* frees 2 and 3, completes 0 and 1 */
    for (int i = 0; i < NR; i++) {
        acct *a = &ac[i];
        if (a->delivered + a->dropped > a->raised) viol++;
        if (a->exact && a->delivered + a->dropped != a->raised) viol++;
        if (a->free_runs != (a->freed_with_cb ? 1 : 0)) viol++;
        if (getenv("FK_TRACE"))
            fprintf(stderr, "reg %d: raised %ld delivered %ld dropped %ld exact %d free %d/%d\n", i, a->raised,
                    a->delivered, a->dropped, a->exact, a->free_runs, a->freed_with_cb);
    }
    /* A second session: declarations are there (or declared now), everything works. */
    OK(mpitev_init());
    declare();
    reg(0, &t_pair, "true");
    set_drop(0, 1);
    set_cb(0, MPITEV_CB_REQUIRE_NONE, 1);
    raise1(&t_pair, &src_o, MPITEV_CB_REQUIRE_NONE);
    (void)mpitev_source_drain(&src_o, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL);
    OK(mpitev_finalize());
    if (ac[0].exact && ac[0].delivered + ac[0].dropped != ac[0].raised) viol++;
    return viol;
}

/* Blocks kept by declarations (for the process): counted once everything is declared. */
static long decl_live(void) {
    long before = fa.live;
    OK(mpitev_init());
    fa_ok();
    declare();
    OK(mpitev_finalize());
    return fa.live - before; /* what the declarations took now (0 when already there) */
}

static void fail_every_k(void **state) {
    (void)state;
    /* A clean run first: the number of allocation points of the scenario. */
    long a0 = fa.attempts, v = scenario();
    assert_int_equal(v, 0);
    assert_int_equal(bad, 0);
    assert_int_equal(nomem, 0);
    long points = fa.attempts - a0;
    long live_base = fa.live; /* everything declared, nothing else alive */
    for (int mode = 0; mode < 2; mode++) {
        for (long k = 0; k <= points; k++) {
            nomem = bad = 0;
            long viol;
            if (mode == 0) {
                fa_fail_nth(k);
            } else {
                fa_fail_from_attempt = fa.attempts + k; /* the k-th and every later one */
            }
            viol = scenario();
            fa_fail_from_attempt = -1;
            fa_ok();
            if (viol || bad) fail_msg("mode %d, allocation %ld failing: %ld accounting violations, %ld bad codes", mode, k, viol, bad);
            (void)decl_live(); /* declarations a failure left undone are made now */
            live_base = fa.live;
            nomem = 0;
            long again = scenario(); /* usable afterwards: clean, exact */
            if (again || bad || nomem) fail_msg("after allocation %ld failed: not usable (%ld, %ld, %ld)", k, again, bad, nomem);
            if (fa.live != live_base) fail_msg("leak of %ld blocks when allocation %ld fails", fa.live - live_base, k);
        }
    }
    assert_int_equal(fa.errors, 0);
    printf("fail_every_k: %ld allocation points, each failed once and from there on (%ld runs)\n", points, 2 * (points + 1));
}

int main(void) {
    if (fa_install() != MPITEV_SUCCESS) return 1;
    const struct CMUnitTest tests[] = { cmocka_unit_test(fail_every_k) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
