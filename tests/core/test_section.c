/* Raise sections (section.inc): MPITEV_SECTION_BEGIN / END around several raises on one
 * ordered source, and the _IN_SECTION raises. Checked: when a section is entered (an
 * ordered source with the default clock, idle) and when not (nested, unordered, a custom
 * clock, NULL); that in-section raises write their records in place (white-box: the
 * set's continuation is watched) and what the tool then sees (order, payloads, types,
 * timestamps, levels); that arguments are not evaluated when nobody listens; the cases
 * that leave the in-place path inside a section (immediate delivery, with a callback that
 * raises again; a full ring) and that the section is held again after them; registry
 * changes made inside a section; and that the source is idle after END.
 * Built twice: as is, and with every raise out of line (MPITEV_RAISE_INLINE 0), where no
 * section is ever entered and the _IN_SECTION forms are the ordinary raises. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

#define SEC_FIELDS(X)                      \
    X(int32_t, a, MPITEV_DTYPE_INT32)      \
    X(int64_t, b, MPITEV_DTYPE_INT64)
MPITEV_EVENT_TYPE(sec_ev, SEC_FIELDS)
MPITEV_EVENT_DEFINE(sec_ev)
MPITEV_EVENT_TYPE_EMPTY(sec_empty)
MPITEV_EVENT_DEFINE(sec_empty)

static mpitev_type sec_raw; /* the same payload, raised with MPITEV_RAISE_IN_SECTION */
static mpitev_source s_ord, s_clk, s_unord, s_small;
static test_clock clk = { 1000, 0 };

/* A section is entered only with the inline raise. */
#define SECTIONS (MPITEV_RAISE_INLINE ? 1 : 0)

static int setup(void **state) {
    if (core_setup(state)) return -1;
    static mpitev_clock c;
    c = *mpitev_clock_monotonic();
    c.now = test_clock_now;
    c.ctx = &clk;
    mpitev_source_desc o = src_desc("sec_ord", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc k = src_desc("sec_clk", MPITEV_SOURCE_ORDERED, &c);
    mpitev_source_desc u = src_desc("sec_unord", MPITEV_SOURCE_UNORDERED, NULL);
    mpitev_source_desc sm = src_desc("sec_small", MPITEV_SOURCE_ORDERED, NULL);
    sm.buffer_capacity = 8;
    mpitev_type_desc raw = pair_desc("sec_raw", MPITEV_BIND_NO_OBJECT);
    return (mpitev_source_declare(&s_ord, &o) || mpitev_source_declare(&s_clk, &k) ||
            mpitev_source_declare(&s_unord, &u) || mpitev_source_declare(&s_small, &sm) ||
            sec_ev_declare((mpitev_type_desc){ .verbosity = MPITEV_VERBOSITY_USER_BASIC }) ||
            sec_empty_declare((mpitev_type_desc){ .verbosity = MPITEV_VERBOSITY_USER_BASIC }) ||
            mpitev_type_declare(&sec_raw, &raw))
               ? -1
               : 0;
}
/* A test that failed inside a section leaves the section entered, and finalize would
 * wait for it forever: leave it here, so that the failure is reported. */
static int teardown(void **state) {
    mpitev_source *const all[4] = { &s_ord, &s_clk, &s_unord, &s_small };
    for (int i = 0; i < 4; i++) atomic_store(&all[i]->mpitev__active, MPITEV__IDLE(all[i]->mpitev__kind));
    return core_teardown(state);
}

/* What the tool sees, in order. */
typedef struct seen {
    int tag, type, source, cb_safety;
    int32_t a;
    int64_t b, ts;
} seen;
static seen lg[64];
static int nlg;
static int tags[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
static void log_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg;
    assert_true(nlg < 64);
    seen *e = &lg[nlg++];
    memset(e, 0, sizeof *e);
    e->tag = *(int *)ud;
    e->cb_safety = cb_safety;
    OK(mpitev_instance_type(inst, &e->type));
    OK(mpitev_instance_source(inst, &e->source));
    OK(mpitev_instance_timestamp(inst, &e->ts));
    if (e->type != tindex(&sec_empty_type)) {
        struct pair p;
        OK(mpitev_instance_copy(inst, &p));
        e->a = p.a;
        e->b = p.b;
    }
}
static mpitev_count_t ndropped;
static void drop_cb(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg, (void)source_index, (void)cb_safety, (void)ud;
    ndropped += count;
}
static mpitev_reg listen(mpitev_type *t, const char *buffered, int level, int tag) {
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", buffered };
    OK(mpitev_reg_alloc(tindex(t), NULL, &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, level, log_cb, &tags[tag], NULL, 0));
    OK(mpitev_reg_set_dropped_handler(r, drop_cb));
    return r;
}
static int drain(mpitev_source *s) {
    int n = -1;
    OK(mpitev_source_drain(s, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n));
    return n;
}
static int idle(const mpitev_source *s) {
    return atomic_load(&s->mpitev__active) == MPITEV__IDLE(s->mpitev__kind);
}
static int in_section(const mpitev_source *s) { return atomic_load(&s->mpitev__active) >= 2; }

/* The set's continuation (regset_raise.entered), watched: it runs exactly when a raise
 * does not write its record in place. The set is the type's current one (a test only
 * changes it between raises, from this thread). */
#if MPITEV_RAISE_INLINE
static mpitev__raise_entered_fn orig_entered;
static int n_entered;
static void count_entered(const struct mpitev__regset_raise *set, mpitev_source *s, const void *object,
                          uint64_t cb_safety, const void *payload, int64_t ts) {
    n_entered++;
    orig_entered(set, s, object, cb_safety, payload, ts);
}
static void watch_continuation(mpitev_type *t) {
    struct mpitev__regset_raise *set = (struct mpitev__regset_raise *)(void *)atomic_load(&t->mpitev__regs);
    assert_non_null(set);
    orig_entered = set->entered;
    set->entered = count_entered;
    n_entered = 0;
}
#define ENTERED() n_entered
#else
static void watch_continuation(mpitev_type *t) { (void)t; }
#define ENTERED() 0
#endif

static void raise_raw(mpitev_source *s, int a) {
    struct pair p = { a, 10 * a };
    MPITEV_RAISE_IN_SECTION(&sec_raw, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &p);
}

/* Typed, empty and raw raises in one section: records in place (no continuation), the
 * section held until END, then the source idle; the drain delivers them in order with
 * their payloads, types, this source and nondecreasing timestamps. */
static void records_in_place(void **state) {
    (void)state;
    nlg = 0;
    ndropped = 0;
    listen(&sec_ev_type, "true", MPITEV_CB_REQUIRE_NONE, 1);
    listen(&sec_empty_type, "true", MPITEV_CB_REQUIRE_NONE, 2);
    listen(&sec_raw, "true", MPITEV_CB_REQUIRE_NONE, 3);
    watch_continuation(&sec_ev_type);
    assert_true(idle(&s_ord));
    assert_int_equal(MPITEV_SECTION_BEGIN(&s_ord), SECTIONS);
    assert_int_equal(in_section(&s_ord), SECTIONS);
    for (int i = 1; i <= 3; i++)
        MPITEV_RAISE_EVENT_IN_SECTION(sec_ev, &s_ord, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, i, 10 * i);
    MPITEV_RAISE_EVENT_EMPTY_IN_SECTION(sec_empty, &s_ord, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    raise_raw(&s_ord, 4);
    assert_int_equal(in_section(&s_ord), SECTIONS);
    assert_int_equal(nlg, 0); /* buffered: nothing delivered yet */
    if (SECTIONS) MPITEV_SECTION_END(&s_ord);
    assert_true(idle(&s_ord));
    assert_int_equal(ENTERED(), 0);
    assert_int_equal(drain(&s_ord), 5);
    assert_int_equal(nlg, 5);
    int sidx;
    OK(mpitev_source_index_of(&s_ord, &sidx));
    for (int i = 0; i < 5; i++) {
        assert_int_equal(lg[i].source, sidx);
        assert_int_equal(lg[i].cb_safety, MPITEV_CB_REQUIRE_NONE);
        if (i > 0) assert_true(lg[i].ts >= lg[i - 1].ts);
    }
    for (int i = 0; i < 3; i++) {
        assert_int_equal(lg[i].tag, 1);
        assert_int_equal(lg[i].type, tindex(&sec_ev_type));
        assert_int_equal(lg[i].a, i + 1);
        assert_int_equal(lg[i].b, 10 * (i + 1));
    }
    assert_int_equal(lg[3].tag, 2);
    assert_int_equal(lg[3].type, tindex(&sec_empty_type));
    assert_int_equal(lg[4].tag, 3);
    assert_int_equal(lg[4].type, tindex(&sec_raw));
    assert_int_equal(lg[4].a, 4);
    assert_int_equal(lg[4].b, 40);
    assert_int_equal(ndropped, 0);
}

/* Nobody listens: an in-section raise evaluates none of its arguments. */
static int evals;
static int32_t counted(int32_t v) {
    evals++;
    return v;
}
static void nobody_listens(void **state) {
    (void)state;
    evals = 0;
    assert_int_equal(MPITEV_SECTION_BEGIN(&s_ord), SECTIONS);
    MPITEV_RAISE_EVENT_IN_SECTION(sec_ev, &s_ord, (counted(0), NULL), counted(MPITEV_CB_REQUIRE_NONE), counted(1),
                                  counted(2));
    MPITEV_RAISE_EVENT_EMPTY_IN_SECTION(sec_empty, &s_ord, (counted(0), NULL), counted(MPITEV_CB_REQUIRE_NONE));
    MPITEV_RAISE_IN_SECTION(&sec_raw, &s_ord, (counted(0), NULL), counted(MPITEV_CB_REQUIRE_NONE),
                            (counted(0), (const struct pair *)NULL));
    if (SECTIONS) MPITEV_SECTION_END(&s_ord);
    assert_int_equal(evals, 0);
    assert_true(idle(&s_ord));
    assert_int_equal(drain(&s_ord), 0);
}

/* Inside a section no other can be entered on the source (0, the word untouched); an
 * ordinary raise there takes the nested path and is delivered in raise order between
 * the in-section ones. */
static void nested_begin_refused(void **state) {
    (void)state;
    nlg = 0;
    listen(&sec_ev_type, "true", MPITEV_CB_REQUIRE_NONE, 1);
    assert_int_equal(MPITEV_SECTION_BEGIN(&s_ord), SECTIONS);
    uint64_t word = atomic_load(&s_ord.mpitev__active);
    MPITEV_RAISE_EVENT_IN_SECTION(sec_ev, &s_ord, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 1, 1);
    if (SECTIONS) {
        assert_int_equal(MPITEV_SECTION_BEGIN(&s_ord), 0);
        assert_int_equal(atomic_load(&s_ord.mpitev__active), word);
    }
    MPITEV_RAISE_EVENT(sec_ev, &s_ord, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 2, 2);
    MPITEV_RAISE_EVENT_IN_SECTION(sec_ev, &s_ord, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 3, 3);
    assert_int_equal(atomic_load(&s_ord.mpitev__active), word);
    if (SECTIONS) MPITEV_SECTION_END(&s_ord);
    assert_true(idle(&s_ord));
    assert_int_equal(drain(&s_ord), 3);
    for (int i = 0; i < 3; i++) assert_int_equal(lg[i].a, i + 1);
}

/* No section on an unordered source, on an ordered one with a custom clock (its
 * timestamps are clamped out of line), or on NULL: 0, the word untouched, and the
 * ordinary raises deliver. */
static void refused_where_no_inline_raise(void **state) {
    (void)state;
    nlg = 0;
    listen(&sec_ev_type, "true", MPITEV_CB_REQUIRE_NONE, 1);
    mpitev_source *const srcs[2] = { &s_unord, &s_clk };
    for (int i = 0; i < 2; i++) {
        uint64_t word = atomic_load(&srcs[i]->mpitev__active);
        assert_int_equal(MPITEV_SECTION_BEGIN(srcs[i]), 0);
        assert_int_equal(atomic_load(&srcs[i]->mpitev__active), word);
        MPITEV_RAISE_EVENT(sec_ev, srcs[i], NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, i, i);
        assert_int_equal(drain(srcs[i]), 1);
    }
    assert_int_equal(MPITEV_SECTION_BEGIN((mpitev_source *)NULL), 0);
    assert_int_equal(nlg, 2);
}

/* Immediate delivery from inside a section: the continuation delivers during the raise,
 * and the section is held again after it (the next raise is in place again, and the
 * word is an epoch until END). A callback that raises on the same source (ordinary
 * raise) is the nested raise, delivered inside it. */
static int raise_again;
static void raising_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    log_cb(inst, reg, cb_safety, ud);
    if (raise_again) {
        raise_again = 0;
        MPITEV_RAISE_EVENT(sec_ev, &s_ord, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 99, 99);
    }
}
static void immediate_inside(void **state) {
    (void)state;
    nlg = 0;
    ndropped = 0;
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", "false" };
    OK(mpitev_reg_alloc(tindex(&sec_ev_type), NULL, &kv, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, raising_cb, &tags[5], NULL, 0));
    listen(&sec_raw, "true", MPITEV_CB_REQUIRE_NONE, 3);
    watch_continuation(&sec_ev_type);
    raise_again = 1;
    assert_int_equal(MPITEV_SECTION_BEGIN(&s_ord), SECTIONS);
    MPITEV_RAISE_EVENT_IN_SECTION(sec_ev, &s_ord, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 1, 1);
    assert_int_equal(nlg, 2); /* delivered now, and the callback's own raise inside it */
    assert_int_equal(lg[0].a, 1);
    assert_int_equal(lg[0].cb_safety, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    assert_int_equal(lg[1].a, 99);
    assert_int_equal(ENTERED(), SECTIONS);
    assert_int_equal(in_section(&s_ord), SECTIONS); /* entered again after the continuation */
    raise_raw(&s_ord, 7);                               /* in place again */
    MPITEV_RAISE_EVENT_IN_SECTION(sec_ev, &s_ord, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 2, 2);
    assert_int_equal(nlg, 3);
    assert_int_equal(ENTERED(), 2 * SECTIONS);
    if (SECTIONS) MPITEV_SECTION_END(&s_ord);
    assert_true(idle(&s_ord));
    assert_int_equal(drain(&s_ord), 1);
    assert_int_equal(nlg, 4);
    assert_int_equal(lg[3].a, 7);
    assert_int_equal(ndropped, 0);
}

/* A full ring inside a section: the raises that find no room are dropped and counted
 * (the continuation's full-ring path), the section held throughout; the next drain
 * reports them before delivering; delivered + dropped = raised. */
static void full_ring_counts_drops(void **state) {
    (void)state;
    nlg = 0;
    ndropped = 0;
    listen(&sec_ev_type, "true", MPITEV_CB_REQUIRE_NONE, 1);
    const int n = 40;
    assert_int_equal(MPITEV_SECTION_BEGIN(&s_small), SECTIONS);
    for (int i = 0; i < n; i++) {
        MPITEV_RAISE_EVENT_IN_SECTION(sec_ev, &s_small, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, i, i);
        assert_int_equal(in_section(&s_small), SECTIONS);
    }
    if (SECTIONS) MPITEV_SECTION_END(&s_small);
    assert_true(idle(&s_small));
    int got = drain(&s_small);
    assert_int_equal(got, nlg);
    assert_true(got >= 8 && got < n);
    assert_int_equal((mpitev_count_t)got + ndropped, n);
    for (int i = 0; i < got; i++) assert_int_equal(lg[i].a, i); /* the first ones, in order */
}

/* Registry changes from inside a section (the MPI's own code, not a callback): a free
 * does not wait for the section, and completes once the section is over (a progress
 * call inside it completes nothing: the set may still be held); the record raised while
 * the freed registration listened is discarded at the drain, counted and reported
 * before its free callback, as for any freed registration (docs/buffers.md); a
 * registration made inside the section gets what is raised after it. */
static int freed;
static void free_cb(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg, (void)cb_safety, (void)ud;
    freed++;
}
static void registry_changes_inside(void **state) {
    (void)state;
    nlg = 0;
    freed = 0;
    ndropped = 0;
    mpitev_reg r1 = listen(&sec_ev_type, "true", MPITEV_CB_REQUIRE_NONE, 1);
    assert_int_equal(MPITEV_SECTION_BEGIN(&s_ord), SECTIONS);
    MPITEV_RAISE_EVENT_IN_SECTION(sec_ev, &s_ord, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 1, 1);
    OK(mpitev_reg_free(r1, NULL, free_cb));
    MPITEV_RAISE_EVENT_IN_SECTION(sec_ev, &s_ord, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 2, 2); /* nobody */
    listen(&sec_ev_type, "true", MPITEV_CB_REQUIRE_NONE, 2);
    MPITEV_RAISE_EVENT_IN_SECTION(sec_ev, &s_ord, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 3, 3);
    OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    if (SECTIONS) {
        assert_int_equal(freed, 0); /* the set it was in may still be held by the section */
        MPITEV_SECTION_END(&s_ord);
    }
    assert_true(idle(&s_ord));
    assert_int_equal(drain(&s_ord), 1);
    for (int i = 0; i < 4 && !freed; i++) OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    assert_int_equal(freed, 1);
    assert_int_equal(nlg, 1);
    assert_int_equal(lg[0].tag, 2);
    assert_int_equal(lg[0].a, 3);
    assert_int_equal(ndropped, 1); /* r1's record, discarded at the drain: counted, reported */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(records_in_place, setup, teardown),
        cmocka_unit_test_setup_teardown(nobody_listens, setup, teardown),
        cmocka_unit_test_setup_teardown(nested_begin_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(refused_where_no_inline_raise, setup, teardown),
        cmocka_unit_test_setup_teardown(immediate_inside, setup, teardown),
        cmocka_unit_test_setup_teardown(full_ring_counts_drops, setup, teardown),
        cmocka_unit_test_setup_teardown(registry_changes_inside, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
