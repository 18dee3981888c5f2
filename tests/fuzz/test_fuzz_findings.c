/* What the fuzzer (fuzz_api.c) found, as plain regression tests. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "../core/core_test.h"

static int ncb;
static void cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)r; (void)s; (void)u;
    int64_t ts = -1;
    assert_int_equal(mpitev_instance_timestamp(i, &ts), MPITEV_SUCCESS);
    assert_int_equal(ts, 0); /* no clock: every timestamp is 0 */
    ncb++;
}

/* An ordered source without a clock, a type with a declared payload struct and a
 * buffered registration: the inline raise's common case. It called the NULL clock
 * (SIGSEGV at address 0): a clockless source was classed as "monotonic by contract". */
static void ordered_source_without_clock(void **state) {
    (void)state;
    static mpitev_source src;
    static mpitev_type ev;
    static const mpitev_clock none = { NULL, NULL, 1000, 1000000, NULL };
    mpitev_source_desc sd = src_desc("findings_noclock", MPITEV_SOURCE_ORDERED, &none);
    OK(mpitev_source_declare(&src, &sd));
    mpitev_type_desc td = pair_desc("findings_ev", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
    mpitev_kv hint = { MPITEV_HINT_BUFFERED, "true" };
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &hint, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, cb, NULL, NULL, 0));
    for (int i = 0; i < 3; i++) MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ i, i });
    assert_int_equal(drain_n(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE), 3);
    assert_int_equal(ncb, 3);
    int64_t ts;
    assert_int_equal(mpitev_source_get_timestamp(sindex(&src), &ts), MPITEV_ERR_NOT_SUPPORTED);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(ordered_source_without_clock, core_setup, core_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
