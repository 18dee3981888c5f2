/* A second TU: declarations and the inline raise only (no MPITEV_IMPLEMENTATION). */
#include <mpitev/mpitev.h>
#include <mpitev/mpitev.h>

int multi_include_raise_from_b(mpitev_type *t, mpitev_source *s, int v);
int multi_include_raise_from_b(mpitev_type *t, mpitev_source *s, int v) {
    int32_t payload = v;
    MPITEV_RAISE(t, s, NULL, MPITEV_CB_REQUIRE_NONE, &payload);
    return 0;
}
