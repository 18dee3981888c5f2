/* The library of core_test_dlopen_room: a small MPI-like library built with mpitev's
 * implementation, loaded with dlopen by the test after the test's threads exist. Raises
 * an event whose callback raises again (nest more times), on one ordered source, with
 * one immediate registration: how many instances reached the callback, and how many
 * were counted dropped (reported to the dropped handler), tell at what depth the
 * calling thread's deliveries started. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include <string.h>

#include "dlopen_room_lib.h"

static mpitev_type ev;
static mpitev_source src;
static mpitev_reg reg;
static _Thread_local int delivered, dropped, nest;

static void raise_one(void) { MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, NULL); }
static void on_event(const mpitev_instance *inst, mpitev_reg r, int cb_safety, void *ud) {
    (void)inst, (void)r, (void)cb_safety, (void)ud;
    delivered++;
    if (nest-- > 0) raise_one();
}
static void on_dropped(mpitev_count_t n, mpitev_reg r, int source_index, int cb_safety, void *ud) {
    (void)r, (void)source_index, (void)cb_safety, (void)ud;
    dropped += (int)n;
}

int dlroom_setup(void) {
    mpitev_source_desc s;
    memset(&s, 0, sizeof s);
    s.name = "dlroom";
    s.ordering = MPITEV_SOURCE_ORDERED;
    mpitev_type_desc t;
    memset(&t, 0, sizeof t);
    t.name = "dlroom_event";
    t.verbosity = MPITEV_VERBOSITY_USER_BASIC;
    t.bind = MPITEV_BIND_NO_OBJECT;
    mpitev_kv immediate = { "mpitev_buffered", "false" };
    int ti = -1;
    if (mpitev_init() != MPITEV_SUCCESS || mpitev_source_declare(&src, &s) != MPITEV_SUCCESS ||
        mpitev_type_declare(&ev, &t) != MPITEV_SUCCESS || mpitev_type_index_of(&ev, &ti) != MPITEV_SUCCESS ||
        mpitev_reg_alloc(ti, NULL, &immediate, 1, &reg) != MPITEV_SUCCESS ||
        mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_NONE, on_event, NULL, NULL, 0) != MPITEV_SUCCESS ||
        mpitev_reg_set_dropped_handler(reg, on_dropped) != MPITEV_SUCCESS)
        return -1;
    return 0;
}

void dlroom_raise(int nested, int *n_delivered, int *n_dropped) {
    delivered = dropped = 0;
    nest = nested;
    raise_one();
    nest = 0;
    raise_one(); /* reports what the first one dropped, then is delivered itself */
    *n_delivered = delivered - 1;
    *n_dropped = dropped;
}

int dlroom_teardown(void) {
    if (mpitev_reg_free(reg, NULL, NULL) != MPITEV_SUCCESS) return -1;
    while (mpitev_finalize() == MPITEV_SUCCESS) {
    }
    return 0;
}
