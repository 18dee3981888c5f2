/* MPITEV_RAISE_EVENT's arguments are checked against the event's list by the raise
 * helper's prototype: each BAD case must fail to compile (expected-failure tests). */
#include <mpitev/mpitev.h>

#define EV_FIELDS(X) X(int32_t, a, MPITEV_DTYPE_INT32) X(int64_t, b, MPITEV_DTYPE_INT64) /* API v0.1 */
MPITEV_EVENT_TYPE(ev, EV_FIELDS)

void event_macro_badcall(mpitev_source *s);
void event_macro_badcall(mpitev_source *s) {
#if BAD == 1
    MPITEV_RAISE_EVENT(ev, s, NULL, 0, 1, "not an integer"); /* a pointer for int64_t */
#elif BAD == 2
    MPITEV_RAISE_EVENT(ev, s, NULL, 0, 1, 2, 3);             /* one argument too many */
#else
    MPITEV_RAISE_EVENT(ev, s, NULL, 0, 1);                   /* one argument too few */
#endif
}
