/* unit_info: cmocka unit tests of MPI_Info (usable without MPI_Init). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <mpi.h>

static void test_set_get(void **state)
{
    (void)state;
    MPI_Info info;
    assert_int_equal(MPI_Info_create(&info), MPI_SUCCESS);
    assert_int_not_equal(info, MPI_INFO_NULL);
    assert_int_equal(MPI_Info_set(info, "alpha", "1"), MPI_SUCCESS);
    assert_int_equal(MPI_Info_set(info, "beta", "two"), MPI_SUCCESS);
    assert_int_equal(MPI_Info_set(info, "alpha", "one"), MPI_SUCCESS); /* replace */
    int n;
    assert_int_equal(MPI_Info_get_nkeys(info, &n), MPI_SUCCESS);
    assert_int_equal(n, 2);
    char key[MPI_MAX_INFO_KEY + 1];
    assert_int_equal(MPI_Info_get_nthkey(info, 0, key), MPI_SUCCESS);
    assert_string_equal(key, "alpha");
    assert_int_equal(MPI_Info_get_nthkey(info, 1, key), MPI_SUCCESS);
    assert_string_equal(key, "beta");
    assert_int_equal(MPI_Info_get_nthkey(info, 2, key), MPI_ERR_ARG);

    char val[16];
    int len = sizeof val, flag = -1;
    assert_int_equal(MPI_Info_get_string(info, "alpha", &len, val, &flag), MPI_SUCCESS);
    assert_true(flag);
    assert_string_equal(val, "one");
    assert_int_equal(len, 4); /* includes the terminator */
    /* too small buffer: truncated, full length reported */
    len = 2;
    assert_int_equal(MPI_Info_get_string(info, "beta", &len, val, &flag), MPI_SUCCESS);
    assert_string_equal(val, "t");
    assert_int_equal(len, 4);
    /* length query only */
    len = 0;
    assert_int_equal(MPI_Info_get_string(info, "beta", &len, NULL, &flag), MPI_SUCCESS);
    assert_int_equal(len, 4);
    len = 7;
    assert_int_equal(MPI_Info_get_string(info, "gamma", &len, val, &flag), MPI_SUCCESS);
    assert_false(flag);
    assert_int_equal(len, 7);
    assert_int_equal(MPI_Info_get(info, "beta", 2, val, &flag), MPI_SUCCESS);
    assert_string_equal(val, "tw");
    assert_int_equal(MPI_Info_get_valuelen(info, "beta", &len, &flag), MPI_SUCCESS);
    assert_int_equal(len, 3);

    assert_int_equal(MPI_Info_delete(info, "alpha"), MPI_SUCCESS);
    assert_int_equal(MPI_Info_delete(info, "alpha"), MPI_ERR_INFO_NOKEY);
    assert_int_equal(MPI_Info_get_nkeys(info, &n), MPI_SUCCESS);
    assert_int_equal(n, 1);
    assert_int_equal(MPI_Info_free(&info), MPI_SUCCESS);
    assert_int_equal(info, MPI_INFO_NULL);
}

static void test_dup(void **state)
{
    (void)state;
    MPI_Info a, b;
    assert_int_equal(MPI_Info_create(&a), MPI_SUCCESS);
    for (int i = 0; i < 40; i++) {
        char k[16], v[16];
        snprintf(k, sizeof k, "k%d", i);
        snprintf(v, sizeof v, "v%d", i * i);
        assert_int_equal(MPI_Info_set(a, k, v), MPI_SUCCESS);
    }
    assert_int_equal(MPI_Info_dup(a, &b), MPI_SUCCESS);
    assert_int_not_equal(a, b);
    assert_int_equal(MPI_Info_set(a, "k0", "changed"), MPI_SUCCESS);
    int n, flag, len = 16;
    char v[16];
    assert_int_equal(MPI_Info_get_nkeys(b, &n), MPI_SUCCESS);
    assert_int_equal(n, 40);
    assert_int_equal(MPI_Info_get_string(b, "k0", &len, v, &flag), MPI_SUCCESS);
    assert_string_equal(v, "v0");
    len = 16;
    assert_int_equal(MPI_Info_get_string(b, "k39", &len, v, &flag), MPI_SUCCESS);
    assert_string_equal(v, "v1521");
    assert_int_equal(MPI_Info_free(&a), MPI_SUCCESS);
    assert_int_equal(MPI_Info_free(&b), MPI_SUCCESS);
}

static void test_errors(void **state)
{
    (void)state;
    MPI_Info info = MPI_INFO_NULL, stale;
    int n;
    assert_int_equal(MPI_Info_get_nkeys(MPI_INFO_NULL, &n), MPI_ERR_INFO);
    assert_int_equal(MPI_Info_get_nkeys((MPI_Info)42, &n), MPI_ERR_INFO);
    assert_int_equal(MPI_Info_free(&info), MPI_ERR_INFO);
    assert_int_equal(MPI_Info_create(NULL), MPI_ERR_ARG);
    assert_int_equal(MPI_Info_create(&info), MPI_SUCCESS);
    stale = info;
    assert_int_equal(MPI_Info_free(&info), MPI_SUCCESS);
    assert_int_equal(MPI_Info_set(stale, "a", "b"), MPI_ERR_INFO); /* freed */
    assert_int_equal(MPI_Info_create(&info), MPI_SUCCESS);
    assert_int_equal(MPI_Info_set(info, NULL, "b"), MPI_ERR_INFO_KEY);
    char big[MPI_MAX_INFO_VAL + 2];
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_int_equal(MPI_Info_set(info, "a", big), MPI_ERR_INFO_VALUE);
    big[MPI_MAX_INFO_VAL] = 0; /* exactly the maximum length is fine */
    assert_int_equal(MPI_Info_set(info, "a", big), MPI_SUCCESS);
    assert_int_equal(MPI_Info_free(&info), MPI_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_get),
        cmocka_unit_test(test_dup),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
