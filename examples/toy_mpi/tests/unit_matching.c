/* unit_matching: cmocka unit tests of the matching engine (matching.c):
 * matching rule, FIFO order of both queues, wildcards, removal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "matching.h"

static toympi_request_t mkrecv(uint32_t ctx, int src, int tag)
{
    toympi_request_t r;
    memset(&r, 0, sizeof r);
    r.kind = TOYMPI_REQ_RECV;
    r.context_id = ctx;
    r.src = src;
    r.tag = tag;
    return r;
}

static toympi_unexpected_t mkux(uint32_t ctx, int src, int tag)
{
    toympi_unexpected_t u;
    memset(&u, 0, sizeof u);
    u.kind = TOYMPI_UX_EAGER;
    u.context_id = ctx;
    u.src = src;
    u.tag = tag;
    return u;
}

static void test_match_rule(void **state)
{
    (void)state;
    assert_true(toympi_match(4, 1, 7, 4, 1, 7));
    assert_false(toympi_match(4, 1, 7, 6, 1, 7)); /* other communicator */
    assert_false(toympi_match(4, 1, 7, 5, 1, 7)); /* collective context */
    assert_false(toympi_match(4, 1, 7, 4, 2, 7));
    assert_false(toympi_match(4, 1, 7, 4, 1, 8));
    assert_true(toympi_match(4, MPI_ANY_SOURCE, 7, 4, 3, 7));
    assert_true(toympi_match(4, 1, MPI_ANY_TAG, 4, 1, 12345));
    assert_true(toympi_match(4, MPI_ANY_SOURCE, MPI_ANY_TAG, 4, 0, 0));
    assert_false(toympi_match(4, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0, 0));
}

static void test_posted_fifo(void **state)
{
    (void)state;
    toympi_posted_queue_t q = {0};
    toympi_request_t a = mkrecv(0, MPI_ANY_SOURCE, 5), b = mkrecv(0, 1, 5),
                     c = mkrecv(0, 1, MPI_ANY_TAG), d = mkrecv(2, 1, 5);
    toympi_posted_append(&q, &a);
    toympi_posted_append(&q, &b);
    toympi_posted_append(&q, &c);
    toympi_posted_append(&q, &d);
    assert_int_equal(q.length, 4);
    /* the earliest posted matching receive wins */
    assert_ptr_equal(toympi_posted_match(&q, 0, 1, 5), &a);
    assert_ptr_equal(toympi_posted_match(&q, 0, 1, 5), &b);
    assert_ptr_equal(toympi_posted_match(&q, 0, 1, 5), &c);
    assert_null(toympi_posted_match(&q, 0, 1, 5)); /* d is on another context */
    assert_ptr_equal(toympi_posted_match(&q, 2, 1, 5), &d);
    assert_int_equal(q.length, 0);
    assert_null(q.head);
    assert_null(q.tail);
}

static void test_posted_remove(void **state)
{
    (void)state;
    toympi_posted_queue_t q = {0};
    toympi_request_t a = mkrecv(0, 0, 1), b = mkrecv(0, 0, 2), c = mkrecv(0, 0, 3),
                     x = mkrecv(0, 0, 4);
    toympi_posted_append(&q, &a);
    toympi_posted_append(&q, &b);
    toympi_posted_append(&q, &c);
    assert_false(toympi_posted_remove(&q, &x));
    assert_true(toympi_posted_remove(&q, &c)); /* tail */
    assert_ptr_equal(q.tail, &b);
    toympi_posted_append(&q, &x); /* append after tail removal stays linked */
    assert_true(toympi_posted_remove(&q, &a)); /* head */
    assert_ptr_equal(q.head, &b);
    assert_false(toympi_posted_remove(&q, &a));
    assert_ptr_equal(toympi_posted_match(&q, 0, 0, 4), &x);
    assert_ptr_equal(toympi_posted_match(&q, 0, 0, 2), &b);
    assert_int_equal(q.length, 0);
}

static void test_unexpected_order(void **state)
{
    (void)state;
    toympi_unexpected_queue_t q = {0};
    toympi_unexpected_t m1 = mkux(0, 1, 5), m2 = mkux(0, 2, 5), m3 = mkux(0, 1, 6),
                        m4 = mkux(0, 1, 5), m5 = mkux(8, 1, 5);
    toympi_unexpected_append(&q, &m1);
    toympi_unexpected_append(&q, &m2);
    toympi_unexpected_append(&q, &m3);
    toympi_unexpected_append(&q, &m4);
    toympi_unexpected_append(&q, &m5);
    /* probe does not remove */
    assert_ptr_equal(toympi_unexpected_match(&q, 0, 1, MPI_ANY_TAG, 0), &m1);
    assert_int_equal(q.length, 5);
    /* specific source: arrival order among that source's messages */
    assert_ptr_equal(toympi_unexpected_match(&q, 0, 1, 5, 1), &m1);
    assert_ptr_equal(toympi_unexpected_match(&q, 0, 1, 5, 1), &m4);
    assert_null(toympi_unexpected_match(&q, 0, 1, 5, 1));
    /* wildcards take the oldest */
    assert_ptr_equal(toympi_unexpected_match(&q, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, 1), &m2);
    assert_ptr_equal(toympi_unexpected_match(&q, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, 1), &m3);
    assert_null(toympi_unexpected_match(&q, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, 1));
    assert_ptr_equal(toympi_unexpected_match(&q, 8, MPI_ANY_SOURCE, 5, 1), &m5);
    assert_int_equal(q.length, 0);
    assert_null(q.head);
    assert_null(q.tail);
    toympi_unexpected_append(&q, &m1);
    assert_ptr_equal(q.head, &m1);
    assert_ptr_equal(q.tail, &m1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_rule),
        cmocka_unit_test(test_posted_fifo),
        cmocka_unit_test(test_posted_remove),
        cmocka_unit_test(test_unexpected_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
