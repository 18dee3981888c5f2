/* The last mpitev_finalize called by tool code, and tool code that calls back while the
 * last finalize runs (issue 14, items 5-7), through the native API:
 *  - a free callback calls the last mpitev_finalize (it ran inside a completion pass
 *    whose `reclaiming` flag the finalize waited for: a hang);
 *  - an event callback calls it, inside an immediate delivery and inside a drain (the
 *    finalize waited for a grace period its own caller held: a hang);
 *  - a callback run by the last finalize's drain raises into the source it drained (the
 *    free of the registration waited for a drain that never came: a hang);
 *  - tool code run by the last finalize allocates registrations (the slot walk had
 *    passed them: leaked, hint strings included).
 * Every test arms an alarm: a hang kills the test. A counting allocator checks that
 * every session gives back everything but the catalog (declared types and sources). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#define OK(expr) assert_int_equal((expr), MPITEV_SUCCESS)

/* ---- Counting allocator: live blocks. ---- */
static long live_blocks;
static void *count_alloc(size_t size, size_t align, void *ctx) {
    (void)ctx;
    void *p = NULL;
    if (align < sizeof(void *)) align = sizeof(void *);
    if (posix_memalign(&p, align, size) != 0) return NULL;
    live_blocks++;
    return p;
}
static void count_free(void *p, size_t size, size_t align, void *ctx) {
    (void)size; (void)align; (void)ctx;
    live_blocks--;
    free(p);
}
static const mpitev_allocator counting = { count_alloc, count_free, NULL };

struct msg { int32_t a; int32_t b; };
static const mpitev_element msg_elems[] = {
    MPITEV_ELEMENT_OF(struct msg, a, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct msg, b, MPITEV_DTYPE_INT32),
};
static mpitev_type ev;
static mpitev_source src_buf, src_now, src_late; /* src_late: buffered, drained after src_buf */
static long catalog_blocks = -1; /* live blocks with only the catalog declared */

/* Every test: one session (init + declare, a no-op after the first) */
static void session_begin(void) {
    alarm(20);
    OK(mpitev_init());
    OK(mpitev_source_declare(&src_buf, &(mpitev_source_desc){ .name = "buffered",
                                                              .ordering = MPITEV_SOURCE_ORDERED,
                                                              .buffered_by_default = 1 }));
    OK(mpitev_source_declare(&src_now, &(mpitev_source_desc){ .name = "immediate",
                                                              .ordering = MPITEV_SOURCE_ORDERED }));
    OK(mpitev_source_declare(&src_late, &(mpitev_source_desc){ .name = "buffered_late",
                                                               .ordering = MPITEV_SOURCE_ORDERED,
                                                               .buffered_by_default = 1 }));
    OK(mpitev_type_declare(&ev, &(mpitev_type_desc){ .name = "msg", .num_elements = 2, .elements = msg_elems,
                                                     .payload_size = sizeof(struct msg) }));
    if (catalog_blocks < 0) catalog_blocks = live_blocks;
}
static int index_of_ev(void) {
    int i = -1;
    OK(mpitev_type_index_of(&ev, &i));
    return i;
}
static mpitev_reg reg_with(mpitev_event_cb cb, void *ud) {
    mpitev_reg r = { 0 }; /* set by mpitev_reg_alloc; initialised for gcc -O2 -g (maybe-uninitialized) */
    OK(mpitev_reg_alloc(index_of_ev(), NULL, &(mpitev_kv){ "some_hint", "kept as a string" }, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, cb, ud, NULL, 0));
    return r;
}
static void raise_on(mpitev_source *s, int32_t a) {
    MPITEV_RAISE(&ev, s, NULL, MPITEV_CB_REQUIRE_NONE, &(struct msg){ a, 0 });
}
/* After a session: not initialised, everything but the catalog given back, and a new
 * session works (the library is usable again, a pending teardown included). */
static void session_check_after(void) {
    int flag = 1;
    OK(mpitev_initialized(&flag));
    assert_int_equal(flag, 0);
    OK(mpitev_init()); /* finishes a finalize left pending, if any */
    assert_int_equal(mpitev_finalize(), MPITEV_SUCCESS);
    assert_int_equal(live_blocks, catalog_blocks);
    alarm(0);
}

/* ---- Item 5: a free callback ends the session. ---- */
static int free_cb_runs, finalize_rc_in_cb = -1;
static void free_then_finalize(mpitev_reg reg, int cb_safety, void *ud) {
    (void)reg; (void)cb_safety; (void)ud;
    free_cb_runs++;
    finalize_rc_in_cb = mpitev_finalize(); /* the last one */
}
static void nop_cb(const mpitev_instance *i, mpitev_reg r, int s, void *ud) { (void)i; (void)r; (void)s; (void)ud; }

static void free_callback_calls_last_finalize(void **state) {
    (void)state;
    session_begin();
    mpitev_reg keep = reg_with(nop_cb, NULL); /* still alive: the finalize frees it */
    mpitev_reg r = reg_with(nop_cb, NULL);
    (void)keep;
    free_cb_runs = 0;
    OK(mpitev_reg_free(r, NULL, free_then_finalize));
    if (!free_cb_runs) OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL)); /* in case the free waited */
    assert_int_equal(free_cb_runs, 1);
    assert_int_equal(finalize_rc_in_cb, MPITEV_SUCCESS);
    session_check_after();
}

/* ---- Item 5: an event callback ends the session, inside an immediate delivery and
 * inside a drain. ---- */
static int events_seen;
static void finalize_in_event(const mpitev_instance *i, mpitev_reg r, int s, void *ud) {
    (void)i; (void)r; (void)s; (void)ud;
    if (events_seen++ == 0) finalize_rc_in_cb = mpitev_finalize();
}
static void event_callback_calls_last_finalize_immediate(void **state) {
    (void)state;
    session_begin();
    events_seen = 0;
    finalize_rc_in_cb = -1;
    (void)reg_with(finalize_in_event, NULL);
    (void)reg_with(nop_cb, NULL); /* a second registration of the same set */
    raise_on(&src_now, 1);
    assert_int_equal(finalize_rc_in_cb, MPITEV_SUCCESS);
    raise_on(&src_now, 2); /* finalized: nobody listens */
    assert_int_equal(events_seen, 1);
    session_check_after();
}
static void event_callback_calls_last_finalize_in_drain(void **state) {
    (void)state;
    session_begin();
    events_seen = 0;
    finalize_rc_in_cb = -1;
    (void)reg_with(finalize_in_event, NULL);
    for (int k = 0; k < 5; k++) raise_on(&src_buf, k);
    OK(mpitev_source_drain(&src_buf, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL));
    assert_int_equal(finalize_rc_in_cb, MPITEV_SUCCESS);
    assert_int_equal(events_seen, 1); /* the registration ended with the session */
    assert_int_equal(mpitev_source_drain(&src_buf, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL),
                     MPITEV_ERR_NOT_INITIALIZED);
    session_check_after();
}

/* ---- Item 6: a callback run by the last finalize's drain raises into that source. ---- */
static int raised_again, delivered_in_finalize;
static void raise_again_cb(const mpitev_instance *i, mpitev_reg r, int s, void *ud) {
    (void)i; (void)r; (void)s; (void)ud;
    delivered_in_finalize++;
    if (raised_again < 3) {
        raised_again++;
        raise_on(&src_buf, 100 + raised_again); /* into a source drained before src_late */
    }
}
static void callback_in_final_drain_raises(void **state) {
    (void)state;
    session_begin();
    raised_again = delivered_in_finalize = 0;
    (void)reg_with(raise_again_cb, NULL);
    raise_on(&src_late, 1);
    OK(mpitev_finalize()); /* the last: its drain delivers, the callback raises again */
    assert_int_equal(raised_again, 3);
    assert_int_equal(delivered_in_finalize, 4); /* each raise is delivered before the end */
    session_check_after();
}

/* ---- Item 7: tool code run by the last finalize allocates registrations. ---- */
static int allocated_in_finalize;
static void alloc_in_drop(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)count; (void)reg; (void)source_index; (void)cb_safety; (void)ud;
    /* many: new slot chunks beyond every slot that existed when the finalize began */
    for (int k = 0; k < 200; k++) {
        mpitev_reg r;
        if (mpitev_reg_alloc(index_of_ev(), NULL, &(mpitev_kv){ "allocated", "in a dropped handler" }, 1, &r) ==
            MPITEV_SUCCESS)
            allocated_in_finalize++;
    }
}
static void tool_code_in_finalize_allocates(void **state) {
    (void)state;
    session_begin();
    allocated_in_finalize = 0;
    /* d's drop stays unreported until the finalize frees d: counted by a drain at a level
     * d has no callback for, and d then loses its only callback (unlisted, the count is
     * kept). The free's completion reports it: the dropped handler runs inside the
     * finalize, after its walk over the slots began, and allocates. */
    mpitev_reg d = reg_with(nop_cb, NULL);
    OK(mpitev_reg_set_dropped_handler(d, alloc_in_drop));
    raise_on(&src_buf, 1);
    OK(mpitev_source_drain(&src_buf, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, NULL));
    OK(mpitev_reg_set_callback(d, MPITEV_CB_REQUIRE_NONE, NULL, NULL, NULL, 0));
    assert_int_equal(allocated_in_finalize, 0);
    OK(mpitev_finalize());
    assert_int_equal(allocated_in_finalize, 200);
    session_check_after(); /* nothing of them is left: live_blocks == catalog */
}

/* ---- mpitev_reg_free_all: what an MPI's last MPI_T_finalize calls. ---- */
static int delivered_before_end, dropped_reported, freed_cb_runs;
static void count_cb(const mpitev_instance *i, mpitev_reg r, int s, void *ud) {
    (void)i; (void)r; (void)s; (void)ud;
    delivered_before_end++;
}
static void count_drop(mpitev_count_t count, mpitev_reg reg, int source_index, int cb_safety, void *ud) {
    (void)reg; (void)source_index; (void)cb_safety; (void)ud;
    dropped_reported += (int)count;
}
static void count_free_cb(mpitev_reg reg, int cb_safety, void *ud) { (void)reg; (void)cb_safety; (void)ud; freed_cb_runs++; }
static void free_all_delivers_then_ends(void **state) {
    (void)state;
    session_begin();
    delivered_before_end = dropped_reported = freed_cb_runs = 0;
    mpitev_reg a = reg_with(count_cb, NULL);
    OK(mpitev_reg_set_dropped_handler(a, count_drop));
    mpitev_reg b = reg_with(count_cb, NULL);
    for (int k = 0; k < 10; k++) raise_on(&src_buf, k);
    OK(mpitev_reg_free(b, NULL, count_free_cb)); /* waits for the drain */
    int n = -1;
    assert_int_equal(mpitev_reg_free_all(-1, &n), MPITEV_ERR_INVALID_ARG);
    OK(mpitev_reg_free_all(MPITEV_CB_REQUIRE_NONE, &n));
    assert_int_equal(n, 1);                     /* a; b was freed already */
    assert_int_equal(delivered_before_end, 10); /* a's ten, before the end; b's discarded */
    assert_int_equal(freed_cb_runs, 1);         /* b's free callback ran before the return */
    assert_int_equal(mpitev_reg_check(a), MPITEV_ERR_INVALID_HANDLE);
    raise_on(&src_buf, 99);
    OK(mpitev_source_drain(&src_buf, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL));
    assert_int_equal(delivered_before_end, 10); /* nobody listens any more */
    assert_int_equal(dropped_reported, 0);
    OK(mpitev_finalize());
    session_check_after();
    assert_int_equal(mpitev_reg_free_all(MPITEV_CB_REQUIRE_NONE, NULL), MPITEV_ERR_NOT_INITIALIZED);
}

int main(void) {
    OK(mpitev_set_allocator(&counting));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(free_callback_calls_last_finalize),
        cmocka_unit_test(event_callback_calls_last_finalize_immediate),
        cmocka_unit_test(event_callback_calls_last_finalize_in_drain),
        cmocka_unit_test(callback_in_final_drain_raises),
        cmocka_unit_test(tool_code_in_finalize_allocates),
        cmocka_unit_test(free_all_delivers_then_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
