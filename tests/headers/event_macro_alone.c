/* The event declaration macros compile on their own, strict (compile_header.cmake
 * MODE=source, gcc and clang, -O0 and -O2): event lists expanded in the main file (where
 * clang warns about unused static functions), some events fully used, some declared
 * only, a one-element list, multi-word C types; with WITH_IMPLEMENTATION also in the
 * implementation TU. Compiled only, never linked. */
#ifdef WITH_IMPLEMENTATION
#define MPITEV_IMPLEMENTATION
#endif
#include <mpitev/mpitev.h>

/* API v0.1 datatype names (v0.2: MPITEV_DTYPE_*). */
#define USED_FIELDS(X)                         \
    X(int32_t, context_id, MPITEV_DTYPE_INT32)       \
    X(unsigned long long, total, MPITEV_DTYPE_UNSIGNED_LONG_LONG) \
    X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT)
#define UNUSED_FIELDS(X) X(double, seconds, MPITEV_DTYPE_DOUBLE) X(signed char, c, MPITEV_DTYPE_SIGNED_CHAR)
#define ONE_FIELD(X) X(uint16_t, only, MPITEV_DTYPE_UINT16)

MPITEV_EVENT_TYPE(ev_used, USED_FIELDS)
MPITEV_EVENT_TYPE(ev_unused, UNUSED_FIELDS)
MPITEV_EVENT_TYPE(ev_one, ONE_FIELD)
MPITEV_EVENT_TYPE_EMPTY(ev_used_empty)
MPITEV_EVENT_TYPE_EMPTY(ev_unused_empty)

MPITEV_EVENT_DEFINE(ev_used)
MPITEV_EVENT_DEFINE(ev_one)
MPITEV_EVENT_DEFINE(ev_unused_empty)

int event_macro_use(mpitev_source *s, int32_t ctx);
int event_macro_use(mpitev_source *s, int32_t ctx) {
    int rc = ev_used_declare((mpitev_type_desc){ .desc = "used", .bind = MPITEV_BIND_MPI_COMM });
    if (rc == MPITEV_SUCCESS) rc = ev_one_declare((mpitev_type_desc){ .name = "one" });
    MPITEV_RAISE_EVENT(ev_used, s, &rc, MPITEV_CB_REQUIRE_NONE, ctx, 2ull, (mpitev_count_t)ctx * 3);
    MPITEV_RAISE_EVENT(ev_one, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 7);
    MPITEV_RAISE_EVENT_EMPTY(ev_used_empty, s, NULL, MPITEV_CB_REQUIRE_THREAD_SAFE);
    if (MPITEV_ENABLED(&ev_one_type)) MPITEV_RAISE_EVENT(ev_one, s, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, 8);
    return rc;
}
