/* Dropped events (MPI-4.1 16.3.8.5) and nesting depth (MPITEV_MAX_DEPTH, default 2). */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

static mpitev_type ev, ev2, ev3;
static mpitev_source s0, s1;
static struct pair cur;

static int setup(void **state) {
    if (core_setup(state)) return -1;
    mpitev_type_desc d = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc d2 = pair_desc("ev2", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc d3 = pair_desc("ev3", MPITEV_BIND_NO_OBJECT);
    mpitev_source_desc a = src_desc("s0", MPITEV_SOURCE_ORDERED, NULL);
    mpitev_source_desc b = src_desc("s1", MPITEV_SOURCE_UNORDERED, NULL);
    return (mpitev_source_declare(&s0, &a) || mpitev_source_declare(&s1, &b) || mpitev_type_declare(&ev, &d) ||
            mpitev_type_declare(&ev2, &d2) || mpitev_type_declare(&ev3, &d3))
               ? -1
               : 0;
}

/* One ordered log of everything the tool sees: events and drop reports. */
typedef struct logent {
    char kind; /* 'E' event, 'D' dropped */
    int tag;
    int cb_safety;
    int source;
    mpitev_count_t count;
    uint64_t reg;
} logent;
static logent lg[128];
static int nlg;

static void log_event(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    assert_true(nlg < 128);
    logent *e = &lg[nlg++];
    e->kind = 'E';
    e->tag = ud ? *(int *)ud : 0;
    e->cb_safety = cb_safety;
    OK(mpitev_instance_source(inst, &e->source));
    e->count = 0;
    e->reg = reg.bits;
}
static void log_dropped(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    assert_true(nlg < 128);
    logent *e = &lg[nlg++];
    e->kind = 'D';
    e->tag = ud ? *(int *)ud : 0;
    e->cb_safety = cb_safety;
    e->source = source_index;
    e->count = count;
    e->reg = reg.bits;
}
static int other_dropped_calls;
static void other_dropped(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)count; (void)reg; (void)source_index; (void)cb_safety; (void)ud; other_dropped_calls++;
}

static int tag_lo = 10, tag_hi = 30;

/* Registration with callbacks at MPI_RESTRICTED (tag 10) and THREAD_SAFE (tag 30). */
static mpitev_reg make_reg(mpitev_type *t, mpitev_dropped_cb dropped) {
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(t), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_THREAD_SAFE, log_event, &tag_hi, NULL, 0));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_MPI_RESTRICTED, log_event, &tag_lo, NULL, 0));
    if (dropped) OK(mpitev_reg_set_dropped_handler(r, dropped));
    return r;
}

static void handler_before_next_instance(void **state) {
    (void)state;
    nlg = 0;
    mpitev_reg r = make_reg(&ev, log_dropped);
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);                /* E1 delivered */
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur);   /* E2 dropped */
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur);   /* E3 dropped */
    assert_int_equal(nlg, 1);
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_MPI_RESTRICTED, &cur);      /* E4: report, then deliver */
    assert_int_equal(nlg, 3);
    assert_int_equal(lg[0].kind, 'E');
    assert_int_equal(lg[0].tag, tag_lo);
    assert_int_equal(lg[1].kind, 'D');
    assert_true(lg[1].count == 2);
    assert_int_equal(lg[1].source, sindex(&s0));
    assert_int_equal(lg[1].cb_safety, MPITEV_CB_REQUIRE_MPI_RESTRICTED);
    assert_int_equal(lg[1].tag, tag_lo); /* user_data of the callback chosen for that level */
    assert_true(lg[1].reg == r.bits);
    assert_int_equal(lg[2].kind, 'E');
    /* Reported once: nothing more. */
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(nlg, 4);
    assert_int_equal(lg[3].kind, 'E');
}

static void handler_gets_user_data_of_chosen_level(void **state) {
    (void)state;
    nlg = 0;
    make_reg(&ev, log_dropped);
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur); /* dropped */
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE, &cur);       /* served by tag 30 */
    assert_int_equal(nlg, 2);
    assert_int_equal(lg[0].kind, 'D');
    assert_int_equal(lg[0].tag, tag_hi);
    assert_int_equal(lg[0].cb_safety, MPITEV_CB_REQUIRE_THREAD_SAFE);
    assert_true(lg[0].count == 1);
    assert_int_equal(lg[1].kind, 'E');
    assert_int_equal(lg[1].tag, tag_hi);
}

static void drops_are_per_source(void **state) {
    (void)state;
    nlg = 0;
    make_reg(&ev, log_dropped);
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur); /* dropped on s0 */
    MPITEV_RAISE(&ev, &s1, NULL, MPITEV_CB_REQUIRE_NONE, &cur);              /* s1: no report */
    assert_int_equal(nlg, 1);
    assert_int_equal(lg[0].kind, 'E');
    assert_int_equal(lg[0].source, sindex(&s1));
    MPITEV_RAISE(&ev, &s1, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur); /* dropped on s1 */
    MPITEV_RAISE(&ev, &s1, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur); /* dropped on s1 */
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);              /* s0: report 1 */
    assert_int_equal(nlg, 3);
    assert_int_equal(lg[1].kind, 'D');
    assert_int_equal(lg[1].source, sindex(&s0));
    assert_true(lg[1].count == 1);
    assert_int_equal(lg[2].kind, 'E');
    MPITEV_RAISE(&ev, &s1, NULL, MPITEV_CB_REQUIRE_NONE, &cur);              /* s1: report 2 */
    assert_int_equal(nlg, 5);
    assert_int_equal(lg[3].kind, 'D');
    assert_int_equal(lg[3].source, sindex(&s1));
    assert_true(lg[3].count == 2);
}

/* The report comes before any instance of the source, of any type, is delivered. */
static void report_before_other_type_on_same_source(void **state) {
    (void)state;
    nlg = 0;
    mpitev_reg ra = make_reg(&ev, log_dropped);
    mpitev_reg rb = make_reg(&ev2, NULL);
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur); /* dropped for ra */
    MPITEV_RAISE(&ev2, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);             /* rb's event */
    assert_int_equal(nlg, 2);
    assert_int_equal(lg[0].kind, 'D');
    assert_true(lg[0].reg == ra.bits);
    assert_int_equal(lg[1].kind, 'E');
    assert_true(lg[1].reg == rb.bits);
}

/* With no callback at a level the handler can use, the report waits and accumulates. */
static void report_waits_for_usable_level(void **state) {
    (void)state;
    nlg = 0;
    mpitev_reg ra;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &ra));
    OK(mpitev_reg_set_callback(ra, MPITEV_CB_REQUIRE_MPI_RESTRICTED, log_event, &tag_lo, NULL, 0));
    OK(mpitev_reg_set_dropped_handler(ra, log_dropped));
    mpitev_reg rb;
    OK(mpitev_reg_alloc(tindex(&ev2), NULL, NULL, 0, &rb));
    OK(mpitev_reg_set_callback(rb, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, log_event, &tag_hi, NULL, 0));
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE, &cur);          /* ra drops */
    MPITEV_RAISE(&ev2, &s0, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur);   /* rb gets it; ra cannot report at 3 */
    assert_int_equal(nlg, 1);
    assert_int_equal(lg[0].kind, 'E');
    assert_true(lg[0].reg == rb.bits);
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE, &cur);          /* ra drops again */
    MPITEV_RAISE(&ev2, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);                /* ra can report now */
    assert_int_equal(nlg, 3);
    assert_int_equal(lg[1].kind, 'D');
    assert_true(lg[1].reg == ra.bits);
    assert_true(lg[1].count == 2);
    assert_int_equal(lg[1].tag, tag_lo);
    assert_int_equal(lg[2].kind, 'E');
}

static void null_handler_stops_recording(void **state) {
    (void)state;
    nlg = 0;
    mpitev_reg r = make_reg(&ev, log_dropped);
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur); /* recorded */
    OK(mpitev_reg_set_dropped_handler(r, NULL));                       /* forgotten */
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur); /* not recorded */
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(nlg, 1);
    assert_int_equal(lg[0].kind, 'E');
    OK(mpitev_reg_set_dropped_handler(r, log_dropped));
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(nlg, 2);
    assert_int_equal(lg[1].kind, 'E'); /* nothing from before the new handler */
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur);
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(nlg, 4);
    assert_int_equal(lg[2].kind, 'D');
    assert_true(lg[2].count == 1);
}

static void no_handler_no_recording(void **state) {
    (void)state;
    nlg = 0;
    mpitev_reg r = make_reg(&ev, NULL);
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur);
    OK(mpitev_reg_set_dropped_handler(r, log_dropped));
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(nlg, 1);
    assert_int_equal(lg[0].kind, 'E');
}

static void replaced_handler_is_used(void **state) {
    (void)state;
    nlg = 0;
    other_dropped_calls = 0;
    mpitev_reg r = make_reg(&ev, log_dropped);
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur);
    OK(mpitev_reg_set_dropped_handler(r, other_dropped));
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(other_dropped_calls, 1);
    assert_int_equal(nlg, 1);
    assert_int_equal(lg[0].kind, 'E');
}

/* Drops not yet reported are reported when the registration's free completes, before
 * the free callback. */
static int free_calls;
static void on_free_log(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud; free_calls++;
    assert_true(nlg < 128);
    lg[nlg++].kind = 'F';
}
static void drops_reported_at_free(void **state) {
    (void)state;
    nlg = 0;
    free_calls = 0;
    mpitev_reg r = make_reg(&ev, log_dropped);
    for (int i = 0; i < 5; i++) MPITEV_RAISE(&ev, &s1, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur);
    OK(mpitev_reg_free(r, NULL, on_free_log));
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(free_calls, 1);
    assert_int_equal(nlg, 2);
    assert_int_equal(lg[0].kind, 'D');
    assert_true(lg[0].count == 5);
    assert_int_equal(lg[0].source, sindex(&s1));
    assert_int_equal(lg[1].kind, 'F');
}

/* ---- Nesting: a callback that raises. ---- */
static int depth_calls[3];
static mpitev_reg depth_reg;
static void raising_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst; (void)reg; (void)cb_safety; int level = *(int *)ud; /* 0: ev, 1: ev2, 2: ev3 */
    depth_calls[level]++;
    if (level == 0) MPITEV_RAISE(&ev2, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    if (level == 1) MPITEV_RAISE(&ev3, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
}
static int lvl[3] = { 0, 1, 2 };

static void nested_raise_one_level(void **state) {
    (void)state;
    nlg = 0;
    memset(depth_calls, 0, sizeof depth_calls);
    mpitev_reg r0, r1;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r0));
    OK(mpitev_reg_alloc(tindex(&ev2), NULL, NULL, 0, &r1));
    OK(mpitev_reg_alloc(tindex(&ev3), NULL, NULL, 0, &depth_reg));
    OK(mpitev_reg_set_callback(r0, MPITEV_CB_REQUIRE_NONE, raising_cb, &lvl[0], NULL, 0));
    OK(mpitev_reg_set_callback(r1, MPITEV_CB_REQUIRE_NONE, raising_cb, &lvl[1], NULL, 0));
    OK(mpitev_reg_set_callback(depth_reg, MPITEV_CB_REQUIRE_NONE, raising_cb, &lvl[2], NULL, 0));
    OK(mpitev_reg_set_dropped_handler(depth_reg, log_dropped));
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(depth_calls[0], 1);
    assert_int_equal(depth_calls[1], 1); /* raised from a callback: delivered */
    assert_int_equal(depth_calls[2], 0); /* raised from a nested callback: dropped */
    assert_int_equal(nlg, 0);
    /* Counted: reported before the next instance of s0 reaches the tool. */
    MPITEV_RAISE(&ev3, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(depth_calls[2], 1);
    assert_int_equal(nlg, 1);
    assert_int_equal(lg[0].kind, 'D');
    assert_true(lg[0].count == 1);
    assert_true(lg[0].reg == depth_reg.bits);
}

static int self_calls;
static void self_raising_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst; (void)reg; (void)cb_safety; (void)ud; self_calls++;
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
}
static mpitev_count_t self_dropped;
static void count_dropped(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)source_index; (void)cb_safety; (void)ud; self_dropped += count;
}

static void recursive_raise_bounded(void **state) {
    (void)state;
    self_calls = 0;
    self_dropped = 0;
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, self_raising_cb, NULL, NULL, 0));
    OK(mpitev_reg_set_dropped_handler(r, count_dropped));
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(self_calls, MPITEV_MAX_DEPTH); /* top level and one nested */
    OK(mpitev_reg_free(r, NULL, NULL));
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    assert_true(self_dropped == 1);
}

/* A raise too deep to deliver must not report pending drops either: the dropped
 * handler is tool code, and would run one level deeper than MPITEV_MAX_DEPTH. */
static int tool_level, deep_handler_calls, deep_handler_max_level, deep_events;
static mpitev_count_t deep_dropped;
static void level_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)inst; (void)reg; (void)cb_safety; int level = *(int *)ud; /* 0: ev, 1: ev2, 2: ev3 */
    tool_level++;
    if (level == 0) MPITEV_RAISE(&ev2, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    if (level == 1) { /* depth MPITEV_MAX_DEPTH: both too deep, the second sees drops pending */
        MPITEV_RAISE(&ev3, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
        MPITEV_RAISE(&ev3, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    }
    if (level == 2) deep_events++;
    tool_level--;
}
static void level_dropped(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)source_index; (void)cb_safety; (void)ud; deep_handler_calls++;
    if (tool_level > deep_handler_max_level) deep_handler_max_level = tool_level;
    deep_dropped += count;
}

static void too_deep_raise_does_not_report_drops(void **state) {
    (void)state;
    tool_level = deep_handler_calls = deep_handler_max_level = deep_events = 0;
    deep_dropped = 0;
    mpitev_reg r0, r1, r2;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r0));
    OK(mpitev_reg_alloc(tindex(&ev2), NULL, NULL, 0, &r1));
    OK(mpitev_reg_alloc(tindex(&ev3), NULL, NULL, 0, &r2));
    OK(mpitev_reg_set_callback(r0, MPITEV_CB_REQUIRE_NONE, level_cb, &lvl[0], NULL, 0));
    OK(mpitev_reg_set_callback(r1, MPITEV_CB_REQUIRE_NONE, level_cb, &lvl[1], NULL, 0));
    OK(mpitev_reg_set_callback(r2, MPITEV_CB_REQUIRE_NONE, level_cb, &lvl[2], NULL, 0));
    OK(mpitev_reg_set_dropped_handler(r2, level_dropped));
    MPITEV_RAISE(&ev, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(deep_events, 0);       /* both nested ev3 instances dropped */
    assert_int_equal(deep_handler_calls, 0); /* and not reported from too deep */
    /* A top-level instance of s0: both drops reported first, at tool level 0. */
    MPITEV_RAISE(&ev3, &s0, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    assert_int_equal(deep_handler_calls, 1);
    assert_true(deep_dropped == 2);
    assert_int_equal(deep_handler_max_level, 0);
    assert_int_equal(deep_events, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(handler_before_next_instance, setup, core_teardown),
        cmocka_unit_test_setup_teardown(handler_gets_user_data_of_chosen_level, setup, core_teardown),
        cmocka_unit_test_setup_teardown(drops_are_per_source, setup, core_teardown),
        cmocka_unit_test_setup_teardown(report_before_other_type_on_same_source, setup, core_teardown),
        cmocka_unit_test_setup_teardown(report_waits_for_usable_level, setup, core_teardown),
        cmocka_unit_test_setup_teardown(null_handler_stops_recording, setup, core_teardown),
        cmocka_unit_test_setup_teardown(no_handler_no_recording, setup, core_teardown),
        cmocka_unit_test_setup_teardown(replaced_handler_is_used, setup, core_teardown),
        cmocka_unit_test_setup_teardown(drops_reported_at_free, setup, core_teardown),
        cmocka_unit_test_setup_teardown(nested_raise_one_level, setup, core_teardown),
        cmocka_unit_test_setup_teardown(too_deep_raise_does_not_report_drops, setup, core_teardown),
        cmocka_unit_test_setup_teardown(recursive_raise_bounded, setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
