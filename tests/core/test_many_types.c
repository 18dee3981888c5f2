/* The default MPITEV_MAX_TYPES: at least 100000 types can be declared, in time linear in
 * their number (the name index of impl_catalog.inc: a quadratic uniqueness check would
 * take minutes here), each found again by name; names stay unique. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

#define NTYPES 100000
_Static_assert(MPITEV_MAX_TYPES >= NTYPES, "the default type limit allows 100000 types");

static mpitev_type types[NTYPES];
static char names[NTYPES][16];

static void hundred_thousand_types(void **state) {
    (void)state;
    for (int i = 0; i < NTYPES; i++) {
        snprintf(names[i], sizeof names[i], "many.%d", i);
        mpitev_type_desc d = pair_desc(names[i], MPITEV_BIND_NO_OBJECT);
        OK(mpitev_type_declare(&types[i], &d));
    }
    int n = 0;
    OK(mpitev_type_get_num(&n));
    assert_int_equal(n, NTYPES);
    for (int i = 0; i < NTYPES; i += 997) {
        int idx = -1;
        OK(mpitev_type_get_index(names[i], &idx));
        assert_int_equal(idx, i);
        assert_int_equal(tindex(&types[i]), i);
    }
    int idx = -1;
    assert_int_equal(mpitev_type_get_index("many.100000", &idx), MPITEV_ERR_INVALID_NAME);
    assert_int_equal(mpitev_type_get_index("", &idx), MPITEV_ERR_INVALID_NAME);
    /* a taken name, on another object: refused */
    static mpitev_type dup;
    mpitev_type_desc d = pair_desc("many.54321", MPITEV_BIND_NO_OBJECT);
    assert_int_equal(mpitev_type_declare(&dup, &d), MPITEV_ERR_INVALID_NAME);
    /* the same object again: the usual no-op */
    d = pair_desc(names[NTYPES - 1], MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&types[NTYPES - 1], &d));
    /* a raise on the last type is still the one load: nobody listens */
    assert_false(MPITEV_ENABLED(&types[NTYPES - 1]));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hundred_thousand_types, core_setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
