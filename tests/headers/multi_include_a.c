/* Declarations first, the implementation later in the same TU, included three times. */
#include <mpitev/mpitev.h>
#include <mpitev/mpitev.h>
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

int multi_include_raise_from_b(mpitev_type *t, mpitev_source *s, int v);

static mpitev_type ev;
static mpitev_source src;
static int seen;

static void cb(const mpitev_instance *i, mpitev_reg r, int s, void *ud) {
    (void)r; (void)s; (void)ud; int32_t v = 0;
    assert_int_equal(mpitev_instance_read(i, 0, &v), MPITEV_SUCCESS);
    seen += v;
}

static void test_two_tus_one_registry(void **state) {
    (void)state;
    static const mpitev_element el[] = { { "v", MPITEV_DTYPE_INT32, 1, MPITEV_ANY_OFFSET } };
    assert_int_equal(mpitev_init(), MPITEV_SUCCESS);
    /* Ordered, stated: only this thread raises (through TU b), so the single-producer
     * source and its inline path in the second TU are what is checked. */
    assert_int_equal(mpitev_source_declare(&src, &(mpitev_source_desc){ .name = "s", .ordering = MPITEV_SOURCE_ORDERED }),
                     MPITEV_SUCCESS);
    assert_int_equal(mpitev_type_declare(&ev, &(mpitev_type_desc){ .name = "t", .elements = el, .num_elements = 1 }),
                     MPITEV_SUCCESS);
    mpitev_reg r;
    assert_int_equal(mpitev_reg_alloc(0, NULL, NULL, 0, &r), MPITEV_SUCCESS);
    assert_int_equal(mpitev_reg_set_callback(r, 0, cb, NULL, NULL, 0), MPITEV_SUCCESS);
    assert_int_equal(multi_include_raise_from_b(&ev, &src, 42), 0);
    assert_int_equal(seen, 42);
    assert_int_equal(mpitev_finalize(), MPITEV_SUCCESS);
}

int main(void) {
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_two_tus_one_registry) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
