/* Tools written for other MPIs, through the standard API on the fake test MPI (issue 14):
 *  - item 2: MPI_T_event_get_info asked for the count with NULL arrays and an unset,
 *    negative num_elements (was MPI_T_ERR_INVALID), and the other INOUT arguments of
 *    the 18 functions: string lengths with NULL buffers;
 *  - item 4: a tool that sizes every buffer from the reported datatypes and
 *    displacements never has a byte written past them by MPI_T_event_read or
 *    MPI_T_event_copy (a char array was one MPI_CHAR element and read wrote all of it);
 *  - item 3: the last MPI_T_finalize delivers what is buffered, runs pending free
 *    callbacks and ends every registration while MPI_T is initialised; nothing is
 *    called into the finalized interface (was: delivered later by the MPI's drains,
 *    each MPI_T call in them failing with MPI_T_ERR_NOT_INITIALIZED);
 *  - a callback that calls the last MPI_T_finalize itself. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mpi.h"
#include "fakempi_test.h"
#include <mpitev/adapter.h>

static int t_init(void) {
    int provided;
    return MPI_T_init_thread(0, &provided);
}

/* ---- Item 2. ---- */
static void get_info_count_with_null_arrays(void **state) {
    (void)state;
    assert_int_equal(t_init(), MPI_SUCCESS);
    static const int unset[] = { -1, -12345, INT_MIN, 0, 1, INT_MAX };
    for (size_t k = 0; k < sizeof unset / sizeof unset[0]; k++) {
        int num = unset[k];
        assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, NULL, NULL, NULL, NULL, &num, NULL, NULL, NULL,
                                              NULL, NULL),
                         MPI_SUCCESS);
        assert_int_equal(num, 3);
    }
    /* A negative count with an array to fill is still a bad argument. */
    MPI_Datatype dt[3];
    MPI_Aint disp[3];
    int num = -1;
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, NULL, NULL, dt, NULL, &num, NULL, NULL, NULL, NULL,
                                          NULL),
                     MPI_T_ERR_INVALID);
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, NULL, NULL, NULL, disp, &num, NULL, NULL, NULL, NULL,
                                          NULL),
                     MPI_T_ERR_INVALID);
    /* String lengths: with a NULL buffer the input value is ignored too. */
    int name_len = -7, desc_len = INT_MIN;
    assert_int_equal(MPI_T_event_get_info(FAKE_EV_MSG, NULL, &name_len, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                          &desc_len, NULL),
                     MPI_SUCCESS);
    assert_int_equal(name_len, (int)strlen("fake_msg") + 1);
    assert_int_equal(desc_len, (int)strlen("a message") + 1);
    name_len = -7;
    desc_len = -1;
    assert_int_equal(MPI_T_source_get_info(FAKE_SRC_MAIN, NULL, &name_len, NULL, &desc_len, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(name_len, (int)strlen("fake_main") + 1);
    assert_int_equal(MPI_T_finalize(), MPI_SUCCESS);
}

/* ---- Item 4: a tool that sizes everything from MPI_T_event_get_info. ---- */
static size_t type_size(MPI_Datatype dt) { /* the fake MPI's MPI_Type_size, for what it uses */
    if (dt == MPI_CHAR) return 1;
    if (dt == MPI_INT16_T) return 2;
    if (dt == MPI_INT32_T) return 4;
    if (dt == MPI_INT64_T) return 8;
    fail_msg("unexpected datatype %d", (int)dt);
    return 0;
}
#define GUARD 16
typedef struct sizing {
    int n;
    MPI_Datatype dt[32];
    MPI_Aint disp[32];
    int seen;
    char text[7];
    int32_t id;
    int16_t tail;
} sizing;
static void check_guard(const unsigned char *p, size_t from) {
    for (size_t i = from; i < from + GUARD; i++) assert_int_equal(p[i], 0xEE);
}
static void sized_reader(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety s, void *ud) {
    (void)reg; (void)s;
    sizing *z = ud;
    z->seen++;
    size_t extent = 0;
    for (int i = 0; i < z->n; i++) {
        size_t size = type_size(z->dt[i]);
        unsigned char *buf = malloc(size + GUARD);
        assert_non_null(buf);
        memset(buf, 0xEE, size + GUARD);
        assert_int_equal(MPI_T_event_read(inst, i, buf), MPI_SUCCESS);
        check_guard(buf, size); /* nothing past MPI_Type_size */
        if (i == 0) memcpy(&z->id, buf, 4);
        else if (z->dt[i] == MPI_CHAR && i - 1 < 6) z->text[i - 1] = (char)buf[0];
        else if (z->dt[i] == MPI_INT16_T) memcpy(&z->tail, buf, 2);
        free(buf);
        if ((size_t)z->disp[i] + size > extent) extent = (size_t)z->disp[i] + size;
    }
    unsigned char *copy = malloc(extent + GUARD);
    assert_non_null(copy);
    memset(copy, 0xEE, extent + GUARD);
    assert_int_equal(MPI_T_event_copy(inst, copy), MPI_SUCCESS);
    check_guard(copy, extent); /* nothing past the extent the tool computed */
    assert_memory_equal(copy + z->disp[1], "hello", 5);
    assert_int_equal(MPI_T_event_read(inst, z->n, copy), MPI_T_ERR_INVALID_INDEX); /* past the last */
    free(copy);
}
static void sizing_tool_never_overflows(void **state) {
    (void)state;
    assert_int_equal(t_init(), MPI_SUCCESS);
    int idx = fakempi_declare_text();
    assert_true(idx >= 0);
    sizing z;
    memset(&z, 0, sizeof z);
    z.n = 0;
    assert_int_equal(MPI_T_event_get_info(idx, NULL, NULL, NULL, NULL, NULL, &z.n, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    assert_int_equal(z.n, 1 + 6 + 1); /* id, one MPI_CHAR per byte of text[6], tail */
    int n = z.n;
    assert_int_equal(MPI_T_event_get_info(idx, NULL, NULL, NULL, z.dt, z.disp, &n, NULL, NULL, NULL, NULL, NULL),
                     MPI_SUCCESS);
    for (int i = 1; i <= 6; i++) {
        assert_int_equal(z.dt[i], MPI_CHAR);
        assert_int_equal(z.disp[i], (MPI_Aint)(offsetof(struct fake_text, text) + (size_t)(i - 1)));
    }
    assert_int_equal(z.dt[7], MPI_INT16_T);
    assert_int_equal(z.disp[7], (MPI_Aint)offsetof(struct fake_text, tail));
    MPI_T_event_registration r;
    assert_int_equal(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &r), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &z, sized_reader),
                     MPI_SUCCESS);
    fakempi_raise_text(42, "hello", -3);
    assert_int_equal(z.seen, 1);
    assert_int_equal(z.id, 42);
    assert_string_equal(z.text, "hello");
    assert_int_equal(z.tail, -3);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
    assert_int_equal(MPI_T_finalize(), MPI_SUCCESS);
}

/* ---- Item 3: the last MPI_T_finalize. ---- */
typedef struct tool {
    int delivered, dropped, freed;
    int calls_failed; /* MPI_T calls made from callbacks that failed */
} tool;
static tool g_tool;
static void use_mpi_t(void) {
    int n;
    if (MPI_T_event_get_num(&n) != MPI_SUCCESS) g_tool.calls_failed++;
}
static void on_event(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety s, void *ud) {
    (void)reg; (void)s; (void)ud;
    int32_t peer;
    if (MPI_T_event_read(inst, 0, &peer) != MPI_SUCCESS) g_tool.calls_failed++;
    use_mpi_t();
    g_tool.delivered++;
}
static void on_dropped(MPI_Count c, MPI_T_event_registration reg, int src, MPI_T_cb_safety s, void *ud) {
    (void)reg; (void)src; (void)s; (void)ud;
    use_mpi_t();
    g_tool.dropped += (int)c;
}
static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety s, void *ud) {
    (void)reg; (void)s; (void)ud;
    use_mpi_t();
    g_tool.freed++;
}
static MPI_T_event_registration buffered_reg(MPI_T_event_cb_function *cb) {
    MPI_Info info;
    assert_int_equal(MPI_Info_create(&info), MPI_SUCCESS);
    assert_int_equal(MPI_Info_set(info, "mpitev_buffered", "true"), MPI_SUCCESS);
    MPI_T_event_registration r;
    assert_int_equal(MPI_T_event_handle_alloc(FAKE_EV_MSG, NULL, info, &r), MPI_SUCCESS);
    assert_int_equal(MPI_Info_free(&info), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, cb), MPI_SUCCESS);
    return r;
}
static void last_t_finalize_delivers_then_ends(void **state) {
    (void)state;
    memset(&g_tool, 0, sizeof g_tool);
    assert_int_equal(t_init(), MPI_SUCCESS);
    MPI_T_event_registration a = buffered_reg(on_event);
    assert_int_equal(MPI_T_event_set_dropped_handler(a, on_dropped), MPI_SUCCESS);
    MPI_T_event_registration b = buffered_reg(on_event);
    for (int k = 0; k < 5; k++) fakempi_raise_msg(FAKE_SRC_MAIN, k, 0, 8, MPITEV_CB_REQUIRE_NONE);
    /* b's free waits for the drain of its five records: its callback is pending. */
    assert_int_equal(MPI_T_event_handle_free(b, NULL, on_free), MPI_SUCCESS);
    assert_int_equal(g_tool.delivered, 0); /* nothing drained yet */
    assert_int_equal(MPI_T_finalize(), MPI_SUCCESS); /* the last */
    assert_int_equal(g_tool.delivered, 5); /* a's five, while MPI_T was initialised */
    assert_int_equal(g_tool.freed, 1);     /* b's free callback too */
    /* The MPI goes on raising and draining (its MPI_Finalize): nothing reaches the tool. */
    for (int k = 0; k < 5; k++) fakempi_raise_msg(FAKE_SRC_MAIN, k, 0, 8, MPITEV_CB_REQUIRE_NONE);
    fakempi_drain();
    fakempi_progress();
    assert_int_equal(g_tool.delivered, 5);
    assert_int_equal(g_tool.dropped, 0);
    assert_int_equal(g_tool.calls_failed, 0);
    /* A new session: the old handles are gone. */
    assert_int_equal(t_init(), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_handle_free(a, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    assert_int_equal(MPI_T_finalize(), MPI_SUCCESS);
}

/* ---- A callback ends the session itself. ---- */
static int t_finalize_rc = -1;
static void finalize_from_callback(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety s,
                                   void *ud) {
    (void)inst; (void)reg; (void)s; (void)ud;
    g_tool.delivered++;
    if (g_tool.delivered == 1) t_finalize_rc = MPI_T_finalize();
    else use_mpi_t(); /* never: the tool left */
}
/* Five records raised and drained, a callback of the first drain calls the last
 * MPI_T_finalize: then `delivered` callbacks in all, none failed, MPI_T finalized; the
 * MPI's later drains and progress deliver nothing. */
static void five_records_finalized_by_callback(int delivered) {
    for (int k = 0; k < 5; k++) fakempi_raise_msg(FAKE_SRC_MAIN, k, 0, 8, MPITEV_CB_REQUIRE_NONE);
    fakempi_drain();
    assert_int_equal(t_finalize_rc, MPI_SUCCESS);
    fakempi_drain();
    fakempi_progress();
    assert_int_equal(g_tool.delivered, delivered);
    assert_int_equal(g_tool.calls_failed, 0);
    int n;
    assert_int_equal(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
}
static void callback_calls_last_t_finalize(void **state) {
    (void)state;
    memset(&g_tool, 0, sizeof g_tool);
    assert_int_equal(t_init(), MPI_SUCCESS);
    (void)buffered_reg(finalize_from_callback);
    (void)buffered_reg(on_event);
    /* The first record reached the first registration only: the finalize freed the
     * second before its delivery (the drain's regver check between the two); nothing
     * after the finalize. */
    five_records_finalized_by_callback(1);
    assert_int_equal(t_init(), MPI_SUCCESS); /* usable again */
    MPI_T_event_registration r = buffered_reg(on_event);
    fakempi_raise_msg(FAKE_SRC_MAIN, 1, 0, 8, MPITEV_CB_REQUIRE_NONE);
    int before = g_tool.delivered;
    fakempi_drain();
    assert_int_equal(g_tool.delivered, before + 1);
    assert_int_equal(MPI_T_event_handle_free(r, NULL, NULL), MPI_SUCCESS);
    assert_int_equal(MPI_T_finalize(), MPI_SUCCESS);
}

/* The same with one registration and the drain's cache warm (a first record delivered
 * before), so that the five records go through the quick drain's slot: the event
 * trampoline does not test MPI_T's state (adapter_handle.inc), so what keeps records 2
 * to 5 from the tool is the core's (the finalize frees the registration: regver moved,
 * the quick drain stops serving from its cache, and the general drain finds the
 * registration freed and counts the rest dropped, reported to nobody). */
static void finalize_from_second_callback(MPI_T_event_instance inst, MPI_T_event_registration reg,
                                          MPI_T_cb_safety s, void *ud) {
    (void)inst; (void)reg; (void)s; (void)ud;
    g_tool.delivered++;
    if (g_tool.delivered == 2) t_finalize_rc = MPI_T_finalize();
    else if (g_tool.delivered > 2) use_mpi_t(); /* never: the tool left */
}
static void callback_calls_last_t_finalize_one_reg(void **state) {
    (void)state;
    memset(&g_tool, 0, sizeof g_tool);
    t_finalize_rc = -1;
    assert_int_equal(t_init(), MPI_SUCCESS);
    (void)buffered_reg(finalize_from_second_callback);
    fakempi_raise_msg(FAKE_SRC_MAIN, 0, 0, 8, MPITEV_CB_REQUIRE_NONE);
    fakempi_drain(); /* the cache filled */
    assert_int_equal(g_tool.delivered, 1);
    five_records_finalized_by_callback(2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(get_info_count_with_null_arrays),
        cmocka_unit_test(sizing_tool_never_overflows),
        cmocka_unit_test(last_t_finalize_delivers_then_ends),
        cmocka_unit_test(callback_calls_last_t_finalize),
        cmocka_unit_test(callback_calls_last_t_finalize_one_reg),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
