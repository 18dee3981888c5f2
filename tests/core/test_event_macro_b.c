/* The second TU of test_event_macro: the same events header, no MPITEV_IMPLEMENTATION.
 * It defines one of the events (any TU may) and raises all of them. */
#include "test_event_macro.h"

MPITEV_EVENT_DEFINE(tev_mixed)

void b_raise_msg(mpitev_source *s, const void *object, int32_t context_id, int32_t source, mpitev_count_t bytes) {
    MPITEV_RAISE_EVENT(tev_msg, s, object, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, context_id, source, bytes);
}

void b_raise_mixed(mpitev_source *s, const struct tev_mixed_payload *p) {
    MPITEV_RAISE_EVENT(tev_mixed, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, p->flag, p->ratio, p->small, p->addr,
                       p->last);
}

void b_raise_empty(mpitev_source *s) {
    MPITEV_RAISE_EVENT_EMPTY(tev_empty, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
}
