/* Immediate delivery (public API only): registrations delivered at the raise, on every
 * kind of source (ordered with the default clock, ordered with a custom clock, unordered),
 * for every set shape (one unbound registration, several, one bound on the raised object
 * or on another, several objects with one or two registrations on the raised one).
 * Checked: who is called, in which order, with what instance and level; drops (no safe
 * callback, too deep) counted and reported before the next instance; registrations freed
 * or silenced by an earlier callback of the same raise skipped; callbacks that raise again
 * on the same source or on others (nesting bounded by MPITEV_MAX_DEPTH, the room whole
 * again after); and that every raise is over when it returns (a free asked for after it
 * completes). */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

static mpitev_type evu, evb;
static mpitev_source s_mono, s_clk, s_unord, s_mono2;
static test_clock clk = { 1000, 0 };
static char objs[4];

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc du = pair_desc("flat_u", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc db = pair_desc("flat_b", MPITEV_BIND_MPI_COMM);
    static mpitev_clock c;
    c = *mpitev_clock_monotonic();
    c.now = test_clock_now;
    c.ctx = &clk;
    mpitev_source_desc a = src_desc("flat_mono", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc b = src_desc("flat_clk", MPITEV_SOURCE_ORDERED, &c);
    mpitev_source_desc u = src_desc("flat_unord", MPITEV_SOURCE_UNORDERED, NULL);
    mpitev_source_desc a2 = src_desc("flat_mono2", MPITEV_SOURCE_ORDERED, NULL);
    return (mpitev_source_declare(&s_mono, &a) || mpitev_source_declare(&s_clk, &b) ||
            mpitev_source_declare(&s_unord, &u) || mpitev_source_declare(&s_mono2, &a2) || mpitev_type_declare(&evu, &du) || mpitev_type_declare(&evb, &db))
               ? -1
               : 0;
}
static mpitev_source *const sources[3] = { &s_mono, &s_clk, &s_unord };

/* One ordered log of what the tool sees: events ('E') and drop reports ('D'). */
typedef struct logent {
    char kind;
    int tag, cb_safety, source, type;
    int32_t a;
    mpitev_count_t count;
} logent;
static logent lg[256];
static int nlg;
static int tags[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

static void log_event(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg;
    assert_true(nlg < 256);
    logent *e = &lg[nlg++];
    memset(e, 0, sizeof *e);
    e->kind = 'E';
    e->tag = *(int *)ud;
    e->cb_safety = cb_safety;
    OK(mpitev_instance_source(inst, &e->source));
    OK(mpitev_instance_type(inst, &e->type));
    struct pair p;
    OK(mpitev_instance_copy(inst, &p));
    e->a = p.a;
}
static void log_dropped(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety;
    assert_true(nlg < 256);
    logent *e = &lg[nlg++];
    memset(e, 0, sizeof *e);
    e->kind = 'D';
    e->tag = *(int *)ud;
    e->source = source_index;
    e->count = count;
}

/* A registration delivered immediately (hint "false"), callback cb at level, with a
 * dropped handler. */
static mpitev_reg reg_cb(mpitev_type *t, const void *obj, int tag, int level, mpitev_event_cb cb) {
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", "false" };
    OK(mpitev_reg_alloc(tindex(t), obj, &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, level, cb, &tags[tag], NULL, 0));
    OK(mpitev_reg_set_dropped_handler(r, log_dropped));
    return r;
}
static mpitev_reg reg_at(mpitev_type *t, const void *obj, int tag, int level) {
    return reg_cb(t, obj, tag, level, log_event);
}
static mpitev_reg reg_on(mpitev_type *t, const void *obj, int tag) {
    return reg_at(t, obj, tag, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
}

static void raise_at(mpitev_type *t, mpitev_source *s, const void *obj, int cb_safety, int32_t a) {
    struct pair p = { a, 7 };
    MPITEV_RAISE(t, s, obj, cb_safety, &p);
}
static void raise1(mpitev_type *t, mpitev_source *s, const void *obj, int32_t a) {
    raise_at(t, s, obj, MPITEV_CB_REQUIRE_NONE, a);
}

/* Every raise on s is over: a free asked for now completes (its free callback runs)
 * within a few progress calls; a raise still in flight would hold it back. */
static int idle_freed;
static void idle_free_cb(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud;
    idle_freed++;
}
static void assert_idle(const mpitev_source *s) {
    (void)s;
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&evu), NULL, NULL, 0, &r));
    idle_freed = 0;
    OK(mpitev_reg_free(r, NULL, idle_free_cb));
    for (int i = 0; i < 4 && !idle_freed; i++) (void)progress_n(MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(idle_freed, 1);
}

/* The tags of the events logged from index `from`, as a string ("012"). */
static const char *event_tags(int from) {
    static char buf[64];
    int k = 0;
    for (int i = from; i < nlg && k < 63; i++)
        if (lg[i].kind == 'E') buf[k++] = (char)('0' + lg[i].tag);
    buf[k] = '\0';
    return buf;
}

static void free_all(mpitev_reg *r, int n) {
    for (int i = 0; i < n; i++) OK(mpitev_reg_free(r[i], NULL, NULL));
}

/* One unbound registration: the instance it gets, the level, an invalid level. */
static void one_unbound(void **state) {
    (void)state;
    mpitev_reg r = reg_on(&evu, NULL, 1);
    for (int k = 0; k < 3; k++) {
        mpitev_source *s = sources[k];
        nlg = 0;
        clk.value = 5000 + k;
        raise_at(&evu, s, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE, 41);
        raise_at(&evu, s, (const void *)&objs[1], MPITEV_CB_REQUIRE_NONE, 42); /* unbound: object ignored */
        raise_at(&evu, s, NULL, 77, 43); /* invalid level: as the strictest */
        assert_int_equal(nlg, 3);
        for (int i = 0; i < 3; i++) {
            assert_int_equal(lg[i].kind, 'E');
            assert_int_equal(lg[i].tag, 1);
            assert_int_equal(lg[i].source, sindex(s));
            assert_int_equal(lg[i].type, tindex(&evu));
            assert_int_equal(lg[i].a, 41 + i);
        }
        assert_int_equal(lg[0].cb_safety, MPITEV_CB_REQUIRE_THREAD_SAFE);
        assert_int_equal(lg[1].cb_safety, MPITEV_CB_REQUIRE_NONE);
        assert_int_equal(lg[2].cb_safety, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
        assert_idle(s);
    }
    free_all(&r, 1);
}

/* Several unbound registrations: each once, in registration order. */
static void several_unbound_in_order(void **state) {
    (void)state;
    mpitev_reg r[3] = { reg_on(&evu, NULL, 0), reg_on(&evu, NULL, 1), reg_on(&evu, NULL, 2) };
    for (int k = 0; k < 3; k++) {
        nlg = 0;
        raise1(&evu, sources[k], NULL, 5);
        raise1(&evu, sources[k], NULL, 6);
        assert_string_equal(event_tags(0), "012012");
        assert_int_equal(lg[0].a, 5);
        assert_int_equal(lg[5].a, 6);
        assert_idle(sources[k]);
    }
    free_all(r, 3);
}

/* Bound: one registration (on the raised object or not), then registrations on other
 * objects, then two on the raised one. */
static void bound_follows_the_object(void **state) {
    (void)state;
    mpitev_reg r[4];
    r[0] = reg_on(&evb, &objs[0], 0);
    for (int k = 0; k < 3; k++) {
        nlg = 0;
        raise1(&evb, sources[k], &objs[0], 1);
        raise1(&evb, sources[k], &objs[1], 2);
        assert_string_equal(event_tags(0), "0");
        assert_int_equal(lg[0].a, 1);
        assert_idle(sources[k]);
    }
    r[1] = reg_on(&evb, &objs[1], 1);
    r[2] = reg_on(&evb, &objs[2], 2);
    for (int k = 0; k < 3; k++) {
        nlg = 0;
        raise1(&evb, sources[k], &objs[1], 1);
        raise1(&evb, sources[k], &objs[3], 3); /* nobody */
        raise1(&evb, sources[k], &objs[0], 0);
        raise1(&evb, sources[k], &objs[2], 2);
        assert_string_equal(event_tags(0), "102");
        for (int i = 0; i < 3; i++) assert_int_equal(lg[i].a, lg[i].tag);
        assert_idle(sources[k]);
    }
    r[3] = reg_on(&evb, &objs[0], 3);
    for (int k = 0; k < 3; k++) {
        nlg = 0;
        raise1(&evb, sources[k], &objs[0], 0);
        raise1(&evb, sources[k], &objs[2], 2);
        assert_string_equal(event_tags(0), "032");
        assert_idle(sources[k]);
    }
    free_all(r, 4);
}

/* No callback safe at the raise's level: the instance is dropped for that registration
 * (counted), and the drop is reported before the next instance of the source, on every
 * set shape. Tag 0 listens at MPITEV_CB_REQUIRE_NONE only. */
static void check_drop_then_report(mpitev_type *t, const void *obj, const char *want_events) {
    for (int k = 0; k < 3; k++) {
        mpitev_source *s = sources[k];
        nlg = 0;
        raise_at(t, s, obj, MPITEV_CB_REQUIRE_THREAD_SAFE, 1); /* dropped for tag 0 */
        raise_at(t, s, obj, MPITEV_CB_REQUIRE_THREAD_SAFE, 2); /* again */
        int first = nlg;
        raise1(t, s, obj, 3); /* report (count 2), then every callback */
        assert_true(first < nlg);
        assert_int_equal(lg[first].kind, 'D');
        assert_int_equal(lg[first].tag, 0);
        assert_int_equal(lg[first].count, 2);
        assert_int_equal(lg[first].source, sindex(s));
        assert_string_equal(event_tags(first), want_events);
        assert_idle(s);
    }
}
static void no_safe_level_drops_and_reports(void **state) {
    (void)state;
    mpitev_reg a = reg_at(&evu, NULL, 0, MPITEV_CB_REQUIRE_NONE);
    check_drop_then_report(&evu, NULL, "0");
    mpitev_reg b = reg_on(&evu, NULL, 1);
    check_drop_then_report(&evu, NULL, "01");
    free_all(&a, 1);
    free_all(&b, 1);
    a = reg_at(&evb, &objs[0], 0, MPITEV_CB_REQUIRE_NONE);
    check_drop_then_report(&evb, &objs[0], "0");
    b = reg_on(&evb, &objs[1], 1);
    check_drop_then_report(&evb, &objs[0], "0");
    mpitev_reg c = reg_on(&evb, &objs[0], 2);
    check_drop_then_report(&evb, &objs[0], "02");
    free_all(&a, 1);
    free_all(&b, 1);
    free_all(&c, 1);
}

/* A drop pending on the source is reported at the next raise even when that raise
 * reaches nobody (the object matches no registration), as the general path does: with
 * one registration (a compare with its object) and with several (the lookup in the
 * object index finds nothing). */
static void check_report_for_another_object(void) {
    for (int k = 0; k < 3; k++) {
        nlg = 0;
        raise_at(&evb, sources[k], &objs[0], MPITEV_CB_REQUIRE_THREAD_SAFE, 1); /* dropped */
        assert_int_equal(nlg, 0);
        raise1(&evb, sources[k], &objs[2], 2); /* nobody listens to objs[2] */
        assert_int_equal(nlg, 1);
        assert_int_equal(lg[0].kind, 'D');
        assert_int_equal(lg[0].count, 1);
        assert_idle(sources[k]);
    }
}
static void pending_drop_reported_by_a_raise_for_another_object(void **state) {
    (void)state;
    mpitev_reg a = reg_at(&evb, &objs[0], 0, MPITEV_CB_REQUIRE_NONE);
    check_report_for_another_object();
    mpitev_reg b = reg_at(&evb, &objs[1], 1, MPITEV_CB_REQUIRE_NONE);
    check_report_for_another_object();
    free_all(&a, 1);
    free_all(&b, 1);
}

/* Callbacks that raise again on the same source: delivered down to MPITEV_MAX_DEPTH,
 * dropped (counted for every registration) below; the outer raise's end leaves the
 * source idle. */
static mpitev_type *nest_type;
static mpitev_source *nest_src;
static const void *nest_obj;
static int nest_calls, nest_on;
static void nest_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    log_event(inst, reg, cb_safety, ud);
    if (!nest_on || *(int *)ud != 0) return; /* tag 0 raises, the others only log */
    logent mine = lg[nlg - 1];
    int64_t ts0, ts1;
    OK(mpitev_instance_timestamp(inst, &ts0));
    nest_calls++;
    raise1(nest_type, nest_src, nest_obj, 100 + nest_calls);
    /* the nested raise's instance is its own: this one still reads as before */
    log_event(inst, reg, cb_safety, ud);
    nlg--;
    assert_int_equal(lg[nlg].a, mine.a);
    assert_int_equal(lg[nlg].source, mine.source);
    assert_int_equal(lg[nlg].type, mine.type);
    OK(mpitev_instance_timestamp(inst, &ts1));
    assert_true(ts1 == ts0);
}
static mpitev_reg reg_nest(mpitev_type *t, const void *obj, int tag) {
    return reg_cb(t, obj, tag, MPITEV_CB_REQUIRE_NONE, nest_cb);
}
static void check_nesting(mpitev_type *t, const void *obj, int nregs) {
    for (int k = 0; k < 3; k++) {
        nest_type = t, nest_src = sources[k], nest_obj = obj;
        nest_calls = 0;
        nest_on = 1;
        nlg = 0;
        raise1(t, sources[k], obj, 1);
        /* depth 1 and 2 delivered to every registration; depth 3 dropped for each */
        assert_int_equal(nest_calls, MPITEV_MAX_DEPTH);
        assert_int_equal(nlg, MPITEV_MAX_DEPTH * nregs);
        assert_idle(sources[k]);
        int first = nlg;
        nest_on = 0; /* this one does not nest */
        raise1(t, sources[k], obj, 2);
        for (int i = 0; i < nregs; i++) {
            assert_int_equal(lg[first + i].kind, 'D');
            assert_int_equal(lg[first + i].count, 1);
        }
        assert_int_equal(nlg - first, 2 * nregs); /* the reports, then the instance */
        assert_idle(sources[k]);
    }
}
static void nesting_depth(void **state) {
    (void)state;
    mpitev_reg r[3];
    r[0] = reg_nest(&evu, NULL, 0);
    check_nesting(&evu, NULL, 1);
    r[1] = reg_nest(&evu, NULL, 1);
    check_nesting(&evu, NULL, 2);
    free_all(r, 2);
    r[0] = reg_nest(&evb, &objs[0], 0);
    check_nesting(&evb, &objs[0], 1);
    r[1] = reg_nest(&evb, &objs[1], 1);
    check_nesting(&evb, &objs[0], 1);
    r[2] = reg_nest(&evb, &objs[0], 2);
    check_nesting(&evb, &objs[0], 2);
    free_all(r, 3);
}

/* Callbacks that raise on another source, each idle until then: the first
 * MPITEV_MAX_DEPTH hops are delivered, the next one is too deep there and counted as a
 * drop, and the thread's room is whole again afterwards: the drop is reported at the
 * next raise on that source, and the same chain again delivers as many hops (a level
 * lost on the way would deliver one fewer). */
static mpitev_source *chain[3];
static void hop_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    log_event(inst, reg, cb_safety, ud);
    int from = lg[nlg - 1].source;
    for (int i = 0; chain[0] && i < 2; i++)
        if (from == sindex(chain[i])) raise1(&evu, chain[i + 1], NULL, 10 + i + 1);
}
static void check_chain(mpitev_source *a, mpitev_source *b, mpitev_source *c) {
    chain[0] = a, chain[1] = b, chain[2] = c;
    for (int round = 0; round < 2; round++) {
        nlg = 0;
        raise1(&evu, a, NULL, 10);
        assert_int_equal(nlg, MPITEV_MAX_DEPTH); /* hops 0 .. MAX_DEPTH - 1 */
        for (int i = 0; i < nlg; i++) {
            assert_int_equal(lg[i].kind, 'E');
            assert_int_equal(lg[i].source, sindex(chain[i]));
            assert_int_equal(lg[i].a, 10 + i);
        }
        for (int k = 0; k < 3; k++) assert_idle(chain[k]);
        chain[0] = NULL; /* the next raise does not hop */
        nlg = 0;
        raise1(&evu, c, NULL, 20);
        assert_int_equal(nlg, 2);
        assert_int_equal(lg[0].kind, 'D');
        assert_int_equal(lg[0].count, 1);
        assert_int_equal(lg[0].source, sindex(c));
        assert_int_equal(lg[1].kind, 'E');
        assert_int_equal(lg[1].a, 20);
        chain[0] = a;
    }
}
static void nesting_across_sources(void **state) {
    (void)state;
    assert_int_equal(MPITEV_MAX_DEPTH, 2); /* (three sources make the chain) */
    mpitev_reg r = reg_cb(&evu, NULL, 0, MPITEV_CB_REQUIRE_NONE, hop_cb);
    check_chain(&s_mono, &s_clk, &s_mono2); /* the last hop on the default clock */
    check_chain(&s_mono, &s_mono2, &s_clk); /* on the custom clock */
    check_chain(&s_unord, &s_mono, &s_clk); /* from an unordered source */
    free_all(&r, 1);
}

/* A callback frees, or removes the only callback of, a registration that comes later in
 * the same raise: the raise holds the set published before, and the liveness check
 * (generation, callback set loaded at delivery) skips it, with no drop counted. */
static mpitev_reg victim;
static int victim_action; /* 1: free it, 2: remove its callback */
static void killer_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    log_event(inst, reg, cb_safety, ud);
    if (victim_action == 1) OK(mpitev_reg_free(victim, NULL, NULL));
    if (victim_action == 2) OK(mpitev_reg_set_callback(victim, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, NULL, NULL, NULL, 0));
    victim_action = 0;
}
static void check_later_entry_skipped(mpitev_type *t, const void *killer_obj, const void *victim_obj) {
    for (int action = 1; action <= 2; action++) {
        for (int k = 0; k < 3; k++) {
            mpitev_reg killer;
            mpitev_kv kv = { "mpitev_buffered", "false" };
            OK(mpitev_reg_alloc(tindex(t), killer_obj, &kv, 1, &killer));
            OK(mpitev_reg_set_callback(killer, MPITEV_CB_REQUIRE_NONE, killer_cb, &tags[0], NULL, 0));
            victim = reg_on(t, victim_obj, 1); /* after the killer in set order */
            victim_action = action;
            nlg = 0;
            raise1(t, sources[k], killer_obj, 1);
            assert_string_equal(event_tags(0), "0");
            assert_int_equal(nlg, 1);
            assert_idle(sources[k]);
            raise1(t, sources[k], killer_obj, 2);
            assert_string_equal(event_tags(0), "00");
            assert_int_equal(nlg, 2); /* no drop report either */
            OK(mpitev_reg_free(killer, NULL, NULL));
            if (action == 2) OK(mpitev_reg_free(victim, NULL, NULL));
            for (int i = 0; i < 4; i++) (void)progress_n(MPITEV_CB_REQUIRE_NONE);
            assert_int_equal(nlg, 2); /* nothing reported at the frees */
        }
    }
}
static void later_entry_freed_or_silenced(void **state) {
    (void)state;
    check_later_entry_skipped(&evu, NULL, NULL);
    check_later_entry_skipped(&evb, &objs[2], &objs[2]);
    mpitev_reg other = reg_on(&evb, &objs[1], 3); /* the object index in use */
    check_later_entry_skipped(&evb, &objs[2], &objs[2]);
    free_all(&other, 1);
}

/* Frees asked for after raises on every source complete (their free callbacks run). */
static int freed;
static void on_free(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud;
    freed++;
}
static void frees_complete_after_raises(void **state) {
    (void)state;
    mpitev_reg r[3] = { reg_on(&evu, NULL, 0), reg_on(&evb, &objs[0], 1), reg_on(&evb, &objs[1], 2) };
    for (int k = 0; k < 3; k++) {
        raise1(&evu, sources[k], NULL, 1);
        raise1(&evb, sources[k], &objs[0], 1);
        raise1(&evb, sources[k], &objs[3], 1);
    }
    freed = 0;
    for (int i = 0; i < 3; i++) OK(mpitev_reg_free(r[i], NULL, on_free));
    for (int i = 0; i < 8 && freed < 3; i++) (void)progress_n(MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(freed, 3);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(one_unbound, setup, core_teardown),
        cmocka_unit_test_setup_teardown(several_unbound_in_order, setup, core_teardown),
        cmocka_unit_test_setup_teardown(bound_follows_the_object, setup, core_teardown),
        cmocka_unit_test_setup_teardown(no_safe_level_drops_and_reports, setup, core_teardown),
        cmocka_unit_test_setup_teardown(pending_drop_reported_by_a_raise_for_another_object, setup, core_teardown),
        cmocka_unit_test_setup_teardown(nesting_depth, setup, core_teardown),
        cmocka_unit_test_setup_teardown(nesting_across_sources, setup, core_teardown),
        cmocka_unit_test_setup_teardown(later_entry_freed_or_silenced, setup, core_teardown),
        cmocka_unit_test_setup_teardown(frees_complete_after_raises, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
