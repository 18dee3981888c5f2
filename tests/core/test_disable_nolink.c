/* MPITEV_DISABLE: a TU with raise sites, enabled checks and drain calls but without any
 * MPITEV_IMPLEMENTATION TU in the program. It links (at any optimisation level) only if
 * the disabled macros reference no symbol of mpitev: the event types' objects, the
 * sources and the out-of-line functions are all left undefined on purpose. It exits 0 if
 * no argument was evaluated. */
#ifndef MPITEV_DISABLE
#error "test_disable_nolink.c is built with -DMPITEV_DISABLE"
#endif
#include <mpitev/mpitev.h>

#define NL_FIELDS(X) X(int32_t, a, MPITEV_DTYPE_INT32)
MPITEV_EVENT_TYPE(nl_ev, NL_FIELDS)
MPITEV_EVENT_TYPE_EMPTY(nl_empty)
extern mpitev_type nl_plain;   /* declared, never defined */
extern mpitev_source nl_src;   /* declared, never defined */

static int n_eval;
static int count(int v) { n_eval++; return v; }

int main(void) {
    for (int i = 0; i < 10; i++) {
        MPITEV_RAISE(&nl_plain, &nl_src, NULL, count(MPITEV_CB_REQUIRE_NONE), &(int32_t){ count(i) });
        MPITEV_RAISE_EVENT(nl_ev, &nl_src, NULL, count(MPITEV_CB_REQUIRE_NONE), count(i));
        MPITEV_RAISE_EVENT_EMPTY(nl_empty, &nl_src, NULL, count(MPITEV_CB_REQUIRE_NONE));
        if (MPITEV_ENABLED(&nl_plain) || MPITEV_ENABLED(&nl_ev_type)) count(0);
        MPITEV_DRAIN(&nl_src, count(MPITEV_DRAIN_ALL), count(MPITEV_CB_REQUIRE_NONE));
        if (MPITEV_ANY_ENABLED()) count(0);
        if (MPITEV_DRAIN_DUE(&nl_src)) count(0);
        if (MPITEV_ANY_DRAIN_DUE()) count(0);
    }
    return n_eval == 0 ? 0 : 1;
}
