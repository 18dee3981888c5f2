/* MPITEV_MAX_TYPES (an implementation-TU option): a small limit is honoured, and the
 * type after the last one is MPITEV_ERR_LIMIT (not out of memory), in every session. */
#define MPITEV_IMPLEMENTATION
#define MPITEV_MAX_TYPES 8
#include <mpitev/mpitev.h>
#include "core_test.h"

static void ninth_type_is_limit(void **state) {
    (void)state;
    static mpitev_type types[MPITEV_MAX_TYPES + 1];
    static char names[MPITEV_MAX_TYPES + 1][16];
    for (int i = 0; i <= MPITEV_MAX_TYPES; i++) snprintf(names[i], sizeof names[i], "lim%d", i);
    for (int i = 0; i < MPITEV_MAX_TYPES; i++) {
        mpitev_type_desc d = pair_desc(names[i], MPITEV_BIND_NO_OBJECT);
        OK(mpitev_type_declare(&types[i], &d));
        assert_int_equal(tindex(&types[i]), i);
    }
    mpitev_type_desc d = pair_desc(names[MPITEV_MAX_TYPES], MPITEV_BIND_NO_OBJECT);
    assert_int_equal(mpitev_type_declare(&types[MPITEV_MAX_TYPES], &d), MPITEV_ERR_LIMIT);
    assert_int_equal(mpitev_type_index_of(&types[MPITEV_MAX_TYPES], &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    int n = -1;
    OK(mpitev_type_get_num(&n));
    assert_int_equal(n, MPITEV_MAX_TYPES);
    /* Declaring one of the eight again is still a no-op at the limit. */
    mpitev_type_desc d0 = pair_desc(names[0], MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&types[0], &d0));
    /* The next session: still full. */
    OK(mpitev_finalize());
    OK(mpitev_init());
    assert_int_equal(mpitev_type_declare(&types[MPITEV_MAX_TYPES], &d), MPITEV_ERR_LIMIT);
    OK(mpitev_type_get_num(&n));
    assert_int_equal(n, MPITEV_MAX_TYPES);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(ninth_type_is_limit, core_setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
