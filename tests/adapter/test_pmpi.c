/* Profiling interface: a tool defines its own MPI_T_event_get_num, calls the library's
 * through PMPI_T_event_get_num, and its wrapper is the one the program runs (the
 * library's MPI_T_ names are weak aliases of strong PMPI_T_ definitions). Linked once
 * against the fake MPI as an object file and once as a shared library. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "mpi.h"
#include "fakempi_test.h"

static int wrapper_calls;

int MPI_T_event_get_num(int *num_events) {
    wrapper_calls++;
    return PMPI_T_event_get_num(num_events);
}

static void test_wrapper_is_used(void **state) {
    (void)state;
    int provided, n = -1, idx = -1;
    assert_int_equal(MPI_T_init_thread(0, &provided), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_get_num(&n), MPI_SUCCESS);
    assert_int_equal(wrapper_calls, 1);
    assert_int_equal(n, FAKE_NUM_EVENTS);
    n = -1;
    assert_int_equal(PMPI_T_event_get_num(&n), MPI_SUCCESS); /* the library's, not the wrapper */
    assert_int_equal(wrapper_calls, 1);
    assert_int_equal(n, FAKE_NUM_EVENTS);
    /* A name the tool does not wrap still reaches the library through its weak alias. */
    assert_int_equal(MPI_T_event_get_index("fake_mark", &idx), MPI_SUCCESS);
    assert_int_equal(idx, FAKE_EV_MARK);
    assert_int_equal(PMPI_T_event_get_index("fake_mark", &idx), MPI_SUCCESS);
    assert_int_equal(MPI_T_finalize(), MPI_SUCCESS);
    assert_int_equal(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    assert_int_equal(wrapper_calls, 2);
}

int main(void) {
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_wrapper_is_used) };
    return cmocka_run_group_tests_name("adapter_pmpi", tests, NULL, NULL);
}
