/* Buffered delivery: modes, drain order, wrap-around, full buffer, drop-before-next,
 * saturation, NULL dropped handler, drains at a level no callback supports, free while
 * buffered, finalize, unordered sources, many registrations in one record; the drain's
 * batch-boundary drop reports and its cached delivery (callbacks replaced or
 * registrations freed from inside a callback, sets and payload-less records mixed). */
#define MPITEV_IMPLEMENTATION
/* Every test declares sources of its own (see declare_src): more than the default 64. */
#define MPITEV_MAX_SOURCES 128
#include <mpitev/mpitev.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "../api_helpers.h"

#define OK(expr) assert_int_equal((expr), MPITEV_SUCCESS)

struct msg { int32_t a; int32_t b; int64_t seq; };
static const mpitev_element msg_elems[] = {
    MPITEV_ELEMENT_OF(struct msg, a, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg, b, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg, seq, MPITEV_DTYPE_INT64),
};

static mpitev_type ev, ev_forced, ev_bound;
/* Declarations live for the process, and a source keeps its ring positions and its
 * clamped clock's last timestamp, so each test declares fresh sources: `src` and `src2`
 * name the current test's (pool entries with names of their own, declare_src). Until
 * the test declares them they are objects never declared. */
#define POOL_SOURCES 120
static mpitev_source pool[POOL_SOURCES], never_declared[2];
static char pool_names[POOL_SOURCES][48];
static int npool;
static mpitev_source *cur_src[2];
#define src (*cur_src[0])
#define src2 (*cur_src[1])

/* A controllable clock. */
static int64_t clock_value;
static int64_t test_now(void *ctx) { (void)ctx; return clock_value; }
static const mpitev_clock test_clock = { test_now, NULL, 1000, INT64_MAX, NULL };

/* Log of everything tool code saw, in order: 'E' event (seq), 'D' dropped (count),
 * 'F' free. */
typedef struct entry {
    char kind;
    int tag;
    int64_t value;     /* seq, count */
    int64_t ts;
    int source;
    int cb_safety;
} entry;
#define LOG_MAX 256
static entry logv[LOG_MAX];
static int nlog;
static void log_add(char k, int tag, int64_t v, int64_t ts, int s, int safety) {
    assert_true(nlog < LOG_MAX);
    logv[nlog++] = (entry){ k, tag, v, ts, s, safety };
}

static void ev_cb(const mpitev_instance *i, mpitev_reg r, int safety, void *ud) {
    (void)r; struct msg m;
    int64_t ts = 0;
    int s = -1, t = -1;
    OK(mpitev_instance_copy(i, &m));
    OK(mpitev_instance_timestamp(i, &ts));
    OK(mpitev_instance_source(i, &s));
    OK(mpitev_instance_type(i, &t));
    int32_t a;
    OK(mpitev_instance_read(i, 0, &a));
    assert_int_equal(a, m.a);
    log_add('E', (int)(intptr_t)ud, m.seq, ts, s, safety);
}
static void drop_cb(mpitev_count_t c, mpitev_reg r, int si, int safety, void *ud) {
    (void)r; log_add('D', (int)(intptr_t)ud, c, 0, si, safety);
}
static void free_cb(mpitev_reg r, int safety, void *ud) {
    (void)r; log_add('F', (int)(intptr_t)ud, 0, 0, -1, safety);
}

/* 1: sources get the default clock, not the test's settable one (whose timestamps
 * the core clamps to never decrease). */
static int default_clock;

static int setup(void **state) {
    (void)state;
    nlog = 0;
    clock_value = 0;
    cur_src[0] = &never_declared[0];
    cur_src[1] = &never_declared[1];
    /* The types are the same every time: declaring them again is a no-op. */
    if (mpitev_init()) return -1;
    mpitev_type_desc td = { .name = "ev", .elements = msg_elems, .num_elements = 3, .payload_size = sizeof(struct msg) };
    if (mpitev_type_declare(&ev, &td)) return -1;
    td.name = "ev_forced";
    td.flags = MPITEV_TYPE_ALWAYS_BUFFERED;
    if (mpitev_type_declare(&ev_forced, &td)) return -1;
    td.name = "ev_bound";
    td.flags = 0;
    td.bind = MPITEV_BIND_MPI_COMM;
    if (mpitev_type_declare(&ev_bound, &td)) return -1;
    return 0;
}
static int teardown(void **state) {
    (void)state;
    while (is_initialized()) mpitev_finalize();
    default_clock = 0;
    return 0;
}
static int setup_default_clock(void **state) {
    default_clock = 1;
    return setup(state);
}

/* Declare d as a fresh source and make it the test's `src` (s == &src) or `src2`
 * (s == &src2); returns it. The name gets the pool index appended. */
static mpitev_source *declare_fresh(mpitev_source *s, const mpitev_source_desc *d) {
    int k = s == cur_src[1] ? 1 : 0;
    assert_true(npool < POOL_SOURCES);
    mpitev_source_desc nd = *d;
    snprintf(pool_names[npool], sizeof pool_names[npool], "%s#%d", d->name, npool);
    nd.name = pool_names[npool];
    OK(mpitev_source_declare(&pool[npool], &nd));
    cur_src[k] = &pool[npool];
    return &pool[npool++];
}
static mpitev_source *declare_src(mpitev_source *s, const char *name, int ordering, uint32_t cap, int by_default) {
    mpitev_source_desc d = { .name = name, .ordering = ordering, .clock = default_clock ? NULL : &test_clock,
                             .buffer_capacity = cap, .buffered_by_default = by_default };
    return declare_fresh(s, &d);
}

/* A registration of type t with a callback at level `level` tagged `tag`. */
static mpitev_reg reg_new(mpitev_type *t, const void *obj, const char *buffered, int level, int tag, int with_drop) {
    mpitev_reg r;
    mpitev_kv kv = { "mpitev_buffered", buffered };
    OK(mpitev_reg_alloc(tindex(t), obj, &kv, buffered ? 1 : 0, &r));
    if (with_drop) OK(mpitev_reg_set_dropped_handler(r, drop_cb));
    OK(mpitev_reg_set_callback(r, level, ev_cb, (void *)(intptr_t)tag, NULL, 0));
    return r;
}
/* The dropped handler gets the user_data of the callback that would run: tag. */

static void raise_seq(mpitev_type *t, mpitev_source *s, int64_t seq) {
    clock_value = seq * 10;
    MPITEV_RAISE(t, s, NULL, MPITEV_CB_REQUIRE_NONE, &(struct msg){ (int32_t)seq, 7, seq });
}

static const char *info_value;
static int grab_buffered(const char *k, const char *v, void *ctx) {
    (void)ctx;
    if (strcmp(k, "mpitev_buffered") == 0) info_value = v;
    return 0;
}
static const char *buffered_info(mpitev_reg r) {
    info_value = NULL;
    OK(mpitev_reg_get_info(r, grab_buffered, NULL));
    return info_value;
}

/* ---- tests ---- */

static void ordered_basic(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 8, 0);
    mpitev_reg r = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 1, 1);
    for (int i = 1; i <= 3; i++) raise_seq(&ev, &src, i);
    assert_int_equal(nlog, 0); /* nothing delivered at the raise */
    assert_int_equal(drain_n(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_THREAD_SAFE), 3);
    assert_int_equal(nlog, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(logv[i].kind, 'E');
        assert_int_equal(logv[i].value, i + 1);
        assert_int_equal(logv[i].ts, (i + 1) * 10);
        assert_int_equal(logv[i].source, sindex(&src));
        assert_int_equal(logv[i].cb_safety, MPITEV_CB_REQUIRE_THREAD_SAFE);
    }
    assert_int_equal(drain_n(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE), 0);
    /* max limits the records taken */
    for (int i = 4; i <= 6; i++) raise_seq(&ev, &src, i);
    assert_int_equal(drain_n(&src, 2, MPITEV_CB_REQUIRE_NONE), 2);
    assert_int_equal(drain_n(&src, 0, MPITEV_CB_REQUIRE_NONE), 0);
    assert_int_equal(drain_n(&src, 5, MPITEV_CB_REQUIRE_NONE), 1);
    assert_int_equal(logv[5].value, 6);
    OK(mpitev_reg_free(r, NULL, NULL));
}

static void modes_and_info(void **state) {
    (void)state;
    declare_src(&src, "plain", MPITEV_SOURCE_ORDERED, 8, 0);
    declare_src(&src2, "bufdef", MPITEV_SOURCE_ORDERED, 8, 1);
    mpitev_reg rdef = reg_new(&ev, NULL, NULL, MPITEV_CB_REQUIRE_NONE, 1, 0);
    mpitev_reg roff = reg_new(&ev, NULL, "false", MPITEV_CB_REQUIRE_NONE, 2, 0);
    mpitev_reg ron = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 3, 0);
    mpitev_reg rforced = reg_new(&ev_forced, NULL, "false", MPITEV_CB_REQUIRE_NONE, 4, 0);
    assert_string_equal(buffered_info(rdef), "default");
    assert_string_equal(buffered_info(roff), "false");
    assert_string_equal(buffered_info(ron), "true");
    assert_string_equal(buffered_info(rforced), "true"); /* the type forces it */
    /* The mode is chosen at allocation: set_info cannot change it. */
    mpitev_kv kv = { "mpitev_buffered", "true" };
    OK(mpitev_reg_set_info(roff, &kv, 1));
    assert_string_equal(buffered_info(roff), "false");

    raise_seq(&ev, &src, 1);  /* plain source: default and off immediate, on buffered */
    assert_int_equal(nlog, 2);
    assert_int_equal(logv[0].tag + logv[1].tag, 1 + 2);
    raise_seq(&ev, &src2, 2); /* buffered-by-default source: only off is immediate */
    assert_int_equal(nlog, 3);
    assert_int_equal(logv[2].tag, 2);
    raise_seq(&ev_forced, &src, 3);
    assert_int_equal(nlog, 3);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 2); /* ron seq 1, forced seq 3 */
    assert_int_equal(logv[3].tag, 3);
    assert_int_equal(logv[3].value, 1);
    assert_int_equal(logv[4].tag, 4);
    assert_int_equal(drain_n(&src2, -1, MPITEV_CB_REQUIRE_NONE), 2); /* rdef, ron: seq 2 */
    assert_int_equal(logv[5].value, 2);
    assert_int_equal(logv[6].value, 2);
    assert_int_equal(logv[5].tag + logv[6].tag, 1 + 3);
}

/* One registration in mode "default" and nothing else: immediate on a plain source,
 * buffered on a buffered-by-default one, whichever way the raise site passes the payload
 * (the declared struct, or an untyped pointer). Bound too: a registration on one object. */
static void default_mode_alone_follows_the_source(void **state) {
    (void)state;
    static int obj;
    declare_src(&src, "plain", MPITEV_SOURCE_ORDERED, 8, 0);
    declare_src(&src2, "bufdef", MPITEV_SOURCE_ORDERED, 8, 1);
    reg_new(&ev, NULL, "default", MPITEV_CB_REQUIRE_NONE, 1, 0);
    reg_new(&ev_bound, &obj, "default", MPITEV_CB_REQUIRE_NONE, 2, 0);
    for (int k = 0; k < 2; k++) {
        raise_seq(&ev, &src, 1);
        MPITEV_RAISE(&ev_bound, &src, &obj, MPITEV_CB_REQUIRE_NONE, &(struct msg){ 2, 7, 2 });
        assert_int_equal(nlog, 2); /* plain: both at once */
        /* untyped payloads: the in-place write (which needs the declared struct) is
         * refused, so these reach the continuation */
        const struct msg m3 = { 3, 7, 3 }, m4 = { 4, 7, 4 };
        MPITEV_RAISE(&ev, &src2, NULL, MPITEV_CB_REQUIRE_NONE, (const void *)&m3);
        MPITEV_RAISE(&ev_bound, &src2, &obj, MPITEV_CB_REQUIRE_NONE, (const void *)&m4);
        assert_int_equal(nlog, 2); /* buffered by default: both wait for the drain */
        assert_int_equal(drain_n(&src2, -1, MPITEV_CB_REQUIRE_NONE), 2);
        assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 0);
        assert_int_equal(nlog, 4);
        assert_int_equal(logv[2].value, 3);
        assert_int_equal(logv[3].tag, 2);
        nlog = 0;
    }
}

static void wrap_around(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 4, 0);
    reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 1);
    int64_t seq = 0, expect = 1;
    for (int round = 0; round < 20; round++) {
        for (int k = 0; k < 3; k++) raise_seq(&ev, &src, ++seq);
        nlog = 0;
        assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 3);
        for (int k = 0; k < 3; k++) assert_int_equal(logv[k].value, expect++);
    }
    /* 60 records through a ring of 4: wrapped 15 times; a full ring still holds 4 */
    nlog = 0;
    for (int k = 0; k < 6; k++) raise_seq(&ev, &src, ++seq);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 4);
    assert_int_equal(nlog, 5); /* 4 records and the report of 2 drops */
    for (int k = 0; k < 4; k++) assert_int_equal(logv[k].value, expect++);
    assert_true(logv[4].kind == 'D' && logv[4].value == 2);
}

/* E1 E2 buffered, E3 E4 dropped (full), E1 drained, E5 buffered: the handler runs after
 * E2 (raised before the drops) and before E5 (16.3.8.5). */
static void full_drop_before_next(void **state) {
    (void)state;
    for (int ordering = 0; ordering < 2; ordering++) {
        mpitev_source *s = ordering ? &src2 : &src;
        s = declare_src(s, ordering ? "u" : "o", ordering ? MPITEV_SOURCE_UNORDERED : MPITEV_SOURCE_ORDERED, 2, 0);
        mpitev_reg r = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 1);
        nlog = 0;
        for (int i = 1; i <= 4; i++) raise_seq(&ev, s, i);
        assert_int_equal(drain_n(s, 1, MPITEV_CB_REQUIRE_NONE), 1);
        raise_seq(&ev, s, 5);
        assert_int_equal(drain_n(s, -1, MPITEV_CB_REQUIRE_NONE), 2);
        assert_int_equal(nlog, 4);
        assert_true(logv[0].kind == 'E' && logv[0].value == 1);
        assert_true(logv[1].kind == 'E' && logv[1].value == 2);
        assert_true(logv[2].kind == 'D' && logv[2].value == 2);
        assert_int_equal(logv[2].source, sindex(s));
        assert_int_equal(logv[2].tag, 1);
        assert_true(logv[3].kind == 'E' && logv[3].value == 5);
        OK(mpitev_reg_free(r, NULL, NULL));
    }
}

/* A drop count past what a report can say is reported as MPITEV_COUNT_MAX. The one
 * unit test of an internal module here: 2^63 drops cannot be raised in a test, so the
 * registration's drop counter (impl_drops.inc) is preloaded near the top of uint64_t.
 * The rest (reported means reset) is behaviour. */
static void saturation(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 2, 0);
    mpitev_reg r = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 1);
    mpitev__slot *slot = mpitev__slot_of(r);
    assert_non_null(slot);
    for (int i = 1; i <= 3; i++) raise_seq(&ev, &src, i); /* one drop */
    atomic_fetch_add(&slot->drops[sindex(&src)], UINT64_MAX - 10);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 2);
    assert_int_equal(nlog, 3);
    assert_true(logv[2].kind == 'D');
    assert_true(logv[2].value == MPITEV_COUNT_MAX);
    /* Reported means reset: the next drop counts from zero. */
    for (int i = 4; i <= 6; i++) raise_seq(&ev, &src, i);
    nlog = 0;
    (void)mpitev_source_drain(&src, -1, MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(nlog, 3);
    assert_true(logv[2].kind == 'D' && logv[2].value == 1);
}

static void null_handler_stops_recording(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 2, 0);
    mpitev_reg r = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 0); /* no handler */
    for (int i = 1; i <= 5; i++) raise_seq(&ev, &src, i); /* 3 dropped, not recorded */
    OK(mpitev_reg_set_dropped_handler(r, drop_cb));
    raise_seq(&ev, &src, 6); /* dropped, recorded */
    OK(mpitev_reg_set_dropped_handler(r, NULL));
    raise_seq(&ev, &src, 7); /* dropped, not recorded; and the earlier one forgotten */
    OK(mpitev_reg_set_dropped_handler(r, drop_cb));
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 2);
    raise_seq(&ev, &src, 8);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 1);
    for (int i = 0; i < nlog; i++) assert_int_equal(logv[i].kind, 'E');
    assert_int_equal(nlog, 3);
}

/* The drain states a level above every registered callback: counted dropped; reported
 * when a drain at a level some callback supports runs, before its first instance. */
static void drain_above_callback_level(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 8, 0);
    mpitev_reg r = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 1);
    raise_seq(&ev, &src, 1);
    raise_seq(&ev, &src, 2);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE), 0);
    assert_int_equal(nlog, 0); /* no handler can run at that level either (16.3.8.5) */
    raise_seq(&ev, &src, 3);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 1);
    assert_int_equal(nlog, 2);
    assert_true(logv[0].kind == 'D' && logv[0].value == 2);
    assert_true(logv[1].kind == 'E' && logv[1].value == 3);
    /* Callbacks at NONE and ASYNC: a THREAD_SAFE drain uses the ASYNC one. */
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, ev_cb, (void *)(intptr_t)9, NULL, 0));
    raise_seq(&ev, &src, 4);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_THREAD_SAFE), 1);
    assert_int_equal(logv[2].tag, 9);
    /* Dropped at the drain and never reportable before the free: reported at free,
     * before the free callback. */
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, NULL, NULL, NULL, 0));
    raise_seq(&ev, &src, 5);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_THREAD_SAFE), 0);
    nlog = 0;
    OK(mpitev_reg_free(r, (void *)(intptr_t)1, free_cb));
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(nlog, 2);
    assert_true(logv[0].kind == 'D' && logv[0].value == 1);
    assert_true(logv[1].kind == 'F');
}

/* Free with instances in the buffer: they are discarded by the drain, counted, and
 * reported before the free callback, which runs once and after them. */
static void free_while_buffered(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 8, 0);
    declare_src(&src2, "u", MPITEV_SOURCE_UNORDERED, 8, 0);
    mpitev_reg r = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 1);
    mpitev_reg keep = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 2, 0);
    for (int i = 1; i <= 3; i++) raise_seq(&ev, &src, i);
    raise_seq(&ev, &src2, 4);
    OK(mpitev_reg_free(r, (void *)(intptr_t)1, free_cb));
    assert_int_equal(mpitev_reg_check(r), MPITEV_ERR_INVALID_HANDLE);
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(nlog, 0); /* waits for the drains */
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 3); /* keep's */
    for (int i = 0; i < nlog; i++) assert_int_equal(logv[i].tag, 2);
    int before = nlog;
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(nlog, before); /* src2 not drained yet */
    assert_int_equal(drain_n(&src2, -1, MPITEV_CB_REQUIRE_NONE), 1);
    /* the drain ran the completion: drops (3 on src, 1 on src2), then free */
    assert_int_equal(nlog, before + 1 + 3);
    int64_t dropped = 0;
    for (int i = before; i < nlog - 1; i++) {
        assert_true(logv[i].kind == 'D' || (logv[i].kind == 'E' && logv[i].tag == 2));
        if (logv[i].kind == 'D') dropped += logv[i].value;
    }
    assert_int_equal(dropped, 4);
    assert_true(logv[nlog - 1].kind == 'F');
    /* The slot can be reused; old records would not reach the new registration. */
    mpitev_reg r2 = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 3, 1);
    raise_seq(&ev, &src, 9);
    nlog = 0;
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 2);
    OK(mpitev_reg_free(r2, NULL, NULL));
    OK(mpitev_reg_free(keep, NULL, NULL));
}

static void free_immediate_registration_not_delayed(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 8, 0);
    mpitev_reg b = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 0);
    mpitev_reg i = reg_new(&ev, NULL, "false", MPITEV_CB_REQUIRE_NONE, 2, 0);
    raise_seq(&ev, &src, 1); /* one record for b stays in the buffer */
    nlog = 0;
    OK(mpitev_reg_free(i, (void *)(intptr_t)2, free_cb));
    assert_int_equal(nlog, 1); /* no drain needed */
    assert_true(logv[0].kind == 'F');
    OK(mpitev_reg_free(b, (void *)(intptr_t)1, free_cb));
    assert_int_equal(nlog, 1);
    (void)mpitev_source_drain(&src, -1, MPITEV_CB_REQUIRE_NONE, NULL);
    assert_int_equal(nlog, 2);
    assert_true(logv[1].kind == 'F');
}

static void finalize_drains(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_UNORDERED, 8, 0);
    mpitev_reg r = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 1);
    for (int i = 1; i <= 10; i++) raise_seq(&ev, &src, i); /* 8 buffered, 2 dropped */
    OK(mpitev_reg_free(r, (void *)(intptr_t)1, free_cb));
    mpitev_reg r2 = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 2, 0);
    raise_seq(&ev, &src, 11); /* full: r2 drop not recorded (no handler) */
    OK(mpitev_finalize());
    /* r's 8 buffered records were discarded (it is freed): 10 drops in all, reported
     * before its free callback; r2 got nothing (buffer full at its raise). */
    int64_t d = 0;
    int sawf = 0;
    for (int i = 0; i < nlog; i++) {
        assert_true(logv[i].kind != 'E');
        if (logv[i].kind == 'D') { assert_false(sawf); d += logv[i].value; }
        if (logv[i].kind == 'F') sawf++;
    }
    assert_int_equal(d, 10);
    assert_int_equal(sawf, 1);
    (void)r2;
}

static void finalize_delivers_live(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 8, 0);
    reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 1);
    raise_seq(&ev, &src, 1);
    raise_seq(&ev, &src, 2);
    OK(mpitev_finalize());
    assert_int_equal(nlog, 2);
    assert_true(logv[0].kind == 'E' && logv[1].kind == 'E' && logv[1].value == 2);
}

static void many_registrations_split(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 16, 0);
    for (int t = 0; t < 10; t++) reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 100 + t, 1);
    raise_seq(&ev, &src, 1);
    raise_seq(&ev, &src, 2);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 20);
    int seen[2][10] = { { 0 } };
    for (int i = 0; i < nlog; i++) {
        assert_true(logv[i].kind == 'E');
        seen[logv[i].value - 1][logv[i].tag - 100]++;
        if (i >= 10) assert_int_equal(logv[i].value, 2); /* raise order kept */
    }
    for (int t = 0; t < 10; t++) assert_true(seen[0][t] == 1 && seen[1][t] == 1);
    /* One record per instance, whatever the number of registrations: capacity 16
     * holds 16 instances for all 10 registrations; each of the next 2 instances drops
     * for every registration (20 drops), reported after the 16 instances. */
    nlog = 0;
    for (int i = 0; i < 18; i++) raise_seq(&ev, &src, 10 + i);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 16 * 10);
    int64_t dropped = 0;
    for (int i = 0; i < nlog; i++) {
        if (logv[i].kind == 'D') {
            assert_true(i >= 16 * 10); /* after every record raised before the drops */
            dropped += logv[i].value;
        }
    }
    assert_int_equal(dropped, 20);
}

static void bound_objects(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 8, 0);
    int comm_a, comm_b;
    reg_new(&ev_bound, &comm_a, "true", MPITEV_CB_REQUIRE_NONE, 1, 0);
    MPITEV_RAISE(&ev_bound, &src, &comm_b, MPITEV_CB_REQUIRE_NONE, &(struct msg){ 1, 1, 1 });
    MPITEV_RAISE(&ev_bound, &src, &comm_a, MPITEV_CB_REQUIRE_NONE, &(struct msg){ 2, 2, 2 });
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 1);
    assert_int_equal(logv[0].value, 2);
}

static void payload_too_large(void **state) {
    (void)state;
    mpitev_source_desc d = { .name = "small", .ordering = MPITEV_SOURCE_ORDERED, .buffer_capacity = 4,
                             .buffer_record_size = 8 };
    declare_fresh(&src, &d);
    reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 1);
    raise_seq(&ev, &src, 1);
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, NULL); /* fine w/o payload too */
    /* Nothing to deliver, but the drain reports the losses at its end. */
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 0);
    assert_true(nlog == 1 && logv[0].kind == 'D' && logv[0].value == 2);
}

static int nested_rc = 99;
static void draining_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)u; nested_rc = drain_n(&src, -1, s);
    log_add('E', 0, 0, 0, 0, s);
}
static void nested_drain_loses_claim(void **state) {
    (void)state;
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 8, 0);
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, draining_cb, NULL, NULL, 0));
    raise_seq(&ev, &src, 1);
    raise_seq(&ev, &src, 2);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 2);
    assert_int_equal(nested_rc, 0);
}

static void bad_arguments(void **state) {
    (void)state;
    /* Errors are status codes (no negative returns); the count is written (0) where
     * asked for, NULL is allowed. */
    int n = -1;
    assert_int_equal(mpitev_source_drain(NULL, -1, 0, &n), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(n, 0);
    mpitev_source undeclared;
    memset(&undeclared, 0, sizeof undeclared);
    assert_int_equal(mpitev_source_drain(&undeclared, -1, 0, NULL), MPITEV_ERR_INVALID_ARG);
    declare_src(&src, "s", MPITEV_SOURCE_ORDERED, 8, 0);
    assert_int_equal(mpitev_source_drain(&src, -1, -1, NULL), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_source_drain(&src, -1, MPITEV_CB_LEVELS, &n), MPITEV_ERR_INVALID_ARG);
    OK(mpitev_source_drain(&src, -1, MPITEV_CB_REQUIRE_NONE, NULL));
    mpitev_source_desc d = { .name = "huge", .buffer_capacity = (1u << 24) + 1 };
    assert_int_equal(mpitev_source_declare(&src2, &d), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_source_index_of(&src2, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    OK(mpitev_finalize());
    n = -1;
    assert_int_equal(mpitev_source_drain(&src, -1, 0, &n), MPITEV_ERR_NOT_INITIALIZED);
    assert_int_equal(n, 0);
}

/* Drop reporting at batch boundaries (ordered: the drain checks for drops where it
 * reloads the producer position, and pauses at a pending drop mark). Three records are
 * drained first, so positions are off the ring's lap boundary (where the drain pauses
 * anyway). E1..E4 fill the ring (positions 3..6), E5 drops (mark at 7), two are
 * drained, then E6, E7 are raised after the drop (7, 8): the next drain must report
 * exactly between E4 and E6, although E3, E4, E6 (and E7) are published when it starts. */
static void drop_reported_exactly_at_mark(void **state) {
    (void)state;
    for (int ordering = 0; ordering < 2; ordering++) {
        mpitev_source *s = ordering ? &src2 : &src;
        s = declare_src(s, ordering ? "u" : "o", ordering ? MPITEV_SOURCE_UNORDERED : MPITEV_SOURCE_ORDERED, 4, 0);
        mpitev_reg r = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 1);
        for (int i = 1; i <= 3; i++) raise_seq(&ev, s, 100 + i);
        assert_int_equal(drain_n(s, -1, MPITEV_CB_REQUIRE_NONE), 3);
        nlog = 0;
        for (int i = 1; i <= 5; i++) raise_seq(&ev, s, i);
        assert_int_equal(drain_n(s, 2, MPITEV_CB_REQUIRE_NONE), 2);
        raise_seq(&ev, s, 6);
        raise_seq(&ev, s, 7);
        assert_int_equal(drain_n(s, -1, MPITEV_CB_REQUIRE_NONE), 4);
        assert_int_equal(nlog, 7);
        static const char kinds[] = "EEEEDEE";
        static const int64_t values[] = { 1, 2, 3, 4, 1, 6, 7 };
        for (int i = 0; i < 7; i++) {
            assert_int_equal(logv[i].kind, kinds[i]);
            assert_int_equal(logv[i].value, values[i]);
        }
        OK(mpitev_reg_free(r, NULL, NULL));
    }
}

/* A callback replacing its registration's callback: the next record (same set, so the
 * drain's cached delivery) already goes to the new one. */
static mpitev_reg self_reg;
static void switching_cb(const mpitev_instance *i, mpitev_reg r, int safety, void *ud) {
    ev_cb(i, r, safety, ud);
    OK(mpitev_reg_set_callback(self_reg, MPITEV_CB_REQUIRE_NONE, ev_cb, (void *)(intptr_t)2, NULL, 0));
}
static void callback_replaced_inside_callback(void **state) {
    (void)state;
    for (int ordering = 0; ordering < 2; ordering++) {
        mpitev_source *s = ordering ? &src2 : &src;
        s = declare_src(s, ordering ? "u" : "o", ordering ? MPITEV_SOURCE_UNORDERED : MPITEV_SOURCE_ORDERED, 8, 0);
        mpitev_reg r;
        OK(mpitev_reg_alloc(tindex(&ev), NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &r));
        OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, ev_cb, (void *)(intptr_t)1, NULL, 0));
        self_reg = r;
        nlog = 0;
        for (int i = 1; i <= 2; i++) raise_seq(&ev, s, i);
        assert_int_equal(drain_n(s, -1, MPITEV_CB_REQUIRE_NONE), 2); /* fills the cache */
        OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, switching_cb, (void *)(intptr_t)3, NULL, 0));
        for (int i = 3; i <= 5; i++) raise_seq(&ev, s, i);
        assert_int_equal(drain_n(s, -1, MPITEV_CB_REQUIRE_NONE), 3);
        assert_int_equal(nlog, 5);
        static const int tags[] = { 1, 1, 3, 2, 2 };
        for (int i = 0; i < 5; i++) {
            assert_int_equal(logv[i].kind, 'E');
            assert_int_equal(logv[i].value, i + 1);
            assert_int_equal(logv[i].tag, tags[i]);
        }
        OK(mpitev_reg_free(r, NULL, NULL));
    }
}

/* A callback freeing its own registration: the next records are not delivered; they
 * are counted and reported by the free completion, before the free callback. */
static int free_rc;
static void freeing_cb(const mpitev_instance *i, mpitev_reg r, int safety, void *ud) {
    ev_cb(i, r, safety, ud);
    /* No assertion here (a failure would leave the drain mid-record): checked after. */
    if (mpitev_reg_check(r) == MPITEV_SUCCESS) free_rc = mpitev_reg_free(r, (void *)(intptr_t)1, free_cb);
}
static void reg_freed_inside_callback(void **state) {
    (void)state;
    for (int ordering = 0; ordering < 2; ordering++) {
        mpitev_source *s = ordering ? &src2 : &src;
        s = declare_src(s, ordering ? "u" : "o", ordering ? MPITEV_SOURCE_UNORDERED : MPITEV_SOURCE_ORDERED, 8, 0);
        mpitev_reg r;
        OK(mpitev_reg_alloc(tindex(&ev), NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &r));
        OK(mpitev_reg_set_dropped_handler(r, drop_cb));
        OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, freeing_cb, (void *)(intptr_t)1, NULL, 0));
        nlog = 0;
        free_rc = -1;
        for (int i = 1; i <= 4; i++) raise_seq(&ev, s, i);
        assert_int_equal(drain_n(s, -1, MPITEV_CB_REQUIRE_NONE), 1);
        OK(free_rc);
        mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
        assert_int_equal(nlog, 3);
        assert_true(logv[0].kind == 'E' && logv[0].value == 1);
        assert_true(logv[1].kind == 'D' && logv[1].value == 3);
        assert_true(logv[2].kind == 'F');
    }
}

/* A drop counted by the drain itself is reported before the next record. X (set first)
 * has a callback at NONE only: a drain at ASYNC_SIGNAL_SAFE drops E1 for X; Y's
 * callback then gives X an ASYNC_SIGNAL_SAFE callback (tag 3), so the drop is
 * reportable, and must be reported before E2 reaches X or Y. */
static mpitev_reg reg_x;
static int y_calls;
static void y_cb(const mpitev_instance *i, mpitev_reg r, int safety, void *ud) {
    ev_cb(i, r, safety, ud);
    if (y_calls++ == 0)
        OK(mpitev_reg_set_callback(reg_x, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, ev_cb, (void *)(intptr_t)3, NULL, 0));
}
static void drain_drop_reported_before_next(void **state) {
    (void)state;
    declare_src(&src, "o", MPITEV_SOURCE_ORDERED, 8, 0);
    reg_x = reg_new(&ev, NULL, "true", MPITEV_CB_REQUIRE_NONE, 1, 1);
    mpitev_reg y;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &y));
    OK(mpitev_reg_set_callback(y, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, y_cb, (void *)(intptr_t)2, NULL, 0));
    y_calls = 0;
    nlog = 0;
    for (int i = 1; i <= 3; i++) raise_seq(&ev, &src, i);
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE), 5);
    static const char kinds[] = "EDEEEE";
    static const int tags[] = { 2, 3, 3, 2, 3, 2 };
    static const int64_t values[] = { 1, 1, 2, 2, 3, 3 };
    assert_int_equal(nlog, 6);
    for (int i = 0; i < 6; i++) {
        assert_int_equal(logv[i].kind, kinds[i]);
        assert_int_equal(logv[i].tag, tags[i]);
        assert_int_equal(logv[i].value, values[i]);
    }
}

/* Unordered (mpsc) source: a drop that happens while the drain runs (here: raised from
 * a drained callback, whose immediate registration x has no callback safe at the raise's
 * level) is reported before the next record raised after it (the producer tags that
 * record), not at the end of the drain. */
static mpitev_reg reg_imm;
static void raising_cb(const mpitev_instance *i, mpitev_reg r, int safety, void *ud) {
    ev_cb(i, r, safety, ud);
    struct msg m;
    OK(mpitev_instance_copy(i, &m));
    if (m.seq == 1) { /* raise 2 (x drops it) and 3 on the same source, from the callback */
        for (int64_t q = 2; q <= 3; q++)
            MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE, &(struct msg){ (int32_t)q, 7, q });
    }
}
static void mpsc_drop_tagged_before_next(void **state) {
    (void)state;
    declare_src(&src, "u", MPITEV_SOURCE_UNORDERED, 8, 0);
    reg_imm = reg_new(&ev, NULL, "false", MPITEV_CB_REQUIRE_NONE, 1, 1); /* immediate, NONE only */
    mpitev_reg y;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &y));
    OK(mpitev_reg_set_callback(y, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, raising_cb, (void *)(intptr_t)2, NULL, 0));
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct msg){ 1, 7, 1 }); /* x gets it now */
    nlog = 0;
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 3);
    /* y: 1, 2; then x's drops (2 and 3, both raised before the drain reaches 3; tag 1:
     * x's callback's user_data); then y: 3. */
    static const char kinds[] = "EEDE";
    static const int tags[] = { 2, 2, 1, 2 };
    static const int64_t values[] = { 1, 2, 2, 3 };
    assert_int_equal(nlog, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(logv[i].kind, kinds[i]);
        assert_int_equal(logv[i].tag, tags[i]);
        assert_int_equal(logv[i].value, values[i]);
    }
}

/* Records naming different sets, and records without payload, interleaved: the drain's
 * cache follows the record's set word. */
static int64_t seen_ts[16];
static int seen_payload[16], seen_tag[16], nseen;
static void probe_cb(const mpitev_instance *i, mpitev_reg r, int safety, void *ud) {
    (void)r; (void)safety; struct msg m;
    int64_t ts = -1;
    OK(mpitev_instance_timestamp(i, &ts));
    int rc = mpitev_instance_copy(i, &m);
    assert_true(nseen < 16);
    seen_ts[nseen] = ts;
    seen_payload[nseen] = rc == MPITEV_SUCCESS ? (int)m.seq : -1;
    seen_tag[nseen] = (int)(intptr_t)ud;
    nseen++;
}
static void cache_follows_sets(void **state) {
    (void)state;
    declare_src(&src, "o", MPITEV_SOURCE_ORDERED, 16, 0);
    mpitev_reg a, b, c;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &a));
    OK(mpitev_reg_set_callback(a, MPITEV_CB_REQUIRE_NONE, probe_cb, (void *)(intptr_t)1, NULL, 0));
    OK(mpitev_reg_alloc(tindex(&ev_forced), NULL, NULL, 0, &c));
    OK(mpitev_reg_set_callback(c, MPITEV_CB_REQUIRE_NONE, probe_cb, (void *)(intptr_t)3, NULL, 0));
    nseen = 0;
    raise_seq(&ev, &src, 1);                                            /* set {a} */
    clock_value = 20;
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, NULL);        /* {a}, no payload */
    raise_seq(&ev_forced, &src, 3);                                     /* {c} */
    raise_seq(&ev, &src, 4);                                            /* {a} */
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &b));
    OK(mpitev_reg_set_callback(b, MPITEV_CB_REQUIRE_NONE, probe_cb, (void *)(intptr_t)2, NULL, 0));
    raise_seq(&ev, &src, 5);                                            /* {a, b} */
    raise_seq(&ev_forced, &src, 6);                                     /* {c} */
    raise_seq(&ev, &src, 7);                                            /* {a, b} */
    assert_int_equal(drain_n(&src, -1, MPITEV_CB_REQUIRE_NONE), 9);
    assert_int_equal(nseen, 9);
    static const int payload[] = { 1, -1, 3, 4, 5, 5, 6, 7, 7 };
    static const int tag[] = { 1, 1, 3, 1, 1, 2, 3, 1, 2 };
    static const int64_t ts[] = { 10, 20, 30, 40, 50, 50, 60, 70, 70 };
    for (int i = 0; i < 9; i++) {
        assert_int_equal(seen_payload[i], payload[i]);
        assert_int_equal(seen_tag[i], tag[i]);
        assert_int_equal(seen_ts[i], ts[i]);
    }
}

/* The TSC clock's rate is measured lazily (mpitev_clock.rate): the clock carries no
 * rate of its own, the source's info gives the measured one, the same at every call, and
 * it converts ticks to time: ticks over a 50 ms sleep divided by the rate are within 5 %
 * of what CLOCK_MONOTONIC saw (a loose bound: a pair of reads may be preempted). */
static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
static void tsc_clock(void **state) {
    (void)state;
    const mpitev_clock *c = mpitev_clock_tsc();
    if (!c) { skip(); return; }
    assert_true(c == mpitev_clock_tsc());
    assert_non_null(c->now);
    assert_non_null(c->rate);
    assert_true(c->ticks_per_second == 0);
    mpitev_source_desc d = { .name = "tsc", .clock = c };
    declare_fresh(&src, &d);
    mpitev_source_info info, again;
    OK(mpitev_source_get_info(sindex(&src), &info));
    assert_true(info.ticks_per_second > 1000000);
    assert_true(info.ticks_per_second == c->rate(c->ctx));
    OK(mpitev_source_get_info(sindex(&src), &again));
    assert_true(again.ticks_per_second == info.ticks_per_second);
    int64_t a, b;
    int64_t m0 = mono_ns();
    OK(mpitev_source_get_timestamp(sindex(&src), &a));
    struct timespec nap = { 0, 50000000 };
    nanosleep(&nap, NULL);
    OK(mpitev_source_get_timestamp(sindex(&src), &b));
    int64_t m1 = mono_ns();
    assert_true(b >= a);
    double tsc_s = (double)(b - a) / (double)info.ticks_per_second, mono_s = (double)(m1 - m0) * 1e-9;
    assert_true(tsc_s > 0.95 * mono_s && tsc_s < 1.05 * mono_s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(ordered_basic, setup, teardown),
        cmocka_unit_test_setup_teardown(modes_and_info, setup, teardown),
        cmocka_unit_test_setup_teardown(wrap_around, setup, teardown),
        cmocka_unit_test_setup_teardown(full_drop_before_next, setup, teardown),
        cmocka_unit_test_setup_teardown(saturation, setup, teardown),
        cmocka_unit_test_setup_teardown(null_handler_stops_recording, setup, teardown),
        cmocka_unit_test_setup_teardown(drain_above_callback_level, setup, teardown),
        cmocka_unit_test_setup_teardown(free_while_buffered, setup, teardown),
        cmocka_unit_test_setup_teardown(free_immediate_registration_not_delayed, setup, teardown),
        cmocka_unit_test_setup_teardown(finalize_drains, setup, teardown),
        cmocka_unit_test_setup_teardown(finalize_delivers_live, setup, teardown),
        cmocka_unit_test_setup_teardown(many_registrations_split, setup, teardown),
        cmocka_unit_test_setup_teardown(bound_objects, setup, teardown),
        cmocka_unit_test_setup_teardown(payload_too_large, setup, teardown),
        cmocka_unit_test_setup_teardown(nested_drain_loses_claim, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(tsc_clock, setup, teardown),
        cmocka_unit_test_setup_teardown(drop_reported_exactly_at_mark, setup, teardown),
        cmocka_unit_test_setup_teardown(callback_replaced_inside_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(reg_freed_inside_callback, setup, teardown),
        cmocka_unit_test_setup_teardown(drain_drop_reported_before_next, setup, teardown),
        cmocka_unit_test_setup_teardown(cache_follows_sets, setup, teardown),
        cmocka_unit_test_setup_teardown(mpsc_drop_tagged_before_next, setup, teardown),
        cmocka_unit_test_setup_teardown(drop_reported_exactly_at_mark, setup_default_clock, teardown),
        cmocka_unit_test_setup_teardown(callback_replaced_inside_callback, setup_default_clock, teardown),
        /* again on sources with the default clock: the ordered raise's inline ring path */
        cmocka_unit_test_setup_teardown(modes_and_info, setup_default_clock, teardown),
        cmocka_unit_test_setup_teardown(default_mode_alone_follows_the_source, setup, teardown),
        cmocka_unit_test_setup_teardown(default_mode_alone_follows_the_source, setup_default_clock, teardown),
        cmocka_unit_test_setup_teardown(wrap_around, setup_default_clock, teardown),
        cmocka_unit_test_setup_teardown(full_drop_before_next, setup_default_clock, teardown),
        cmocka_unit_test_setup_teardown(saturation, setup_default_clock, teardown),
        cmocka_unit_test_setup_teardown(free_while_buffered, setup_default_clock, teardown),
        cmocka_unit_test_setup_teardown(many_registrations_split, setup_default_clock, teardown),
        cmocka_unit_test_setup_teardown(bound_objects, setup_default_clock, teardown),
        cmocka_unit_test_setup_teardown(payload_too_large, setup_default_clock, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
