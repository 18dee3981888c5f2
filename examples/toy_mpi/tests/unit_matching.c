/* unit_matching: cmocka unit tests of the matching engine (matching.c) through its API:
 * the matching rule, the decisions of an arriving envelope (earliest posted receive, or
 * a new unexpected entry) and of a posted receive (earliest arrived message, or the
 * posted queue), FIFO order of both queues, wildcards, contexts, cancel, probe, arrival
 * numbers, finalize.
 *
 * matching.c raises its MPI_T events through events.h; here nothing is declared or
 * registered, so every raise is the untaken branch and the stubs below only satisfy the
 * linker. The events themselves are checked end to end by test_events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* the core's implementation lives in one TU of the library (mpit.c); here, this one */
#define MPITEV_IMPLEMENTATION
#include "events.h"
#include "matching.h"

/* ------------------------------------------------ what matching.c links against */
mpitev_source toympi_events_src_engine;
#define DEFINE_TYPE(name, ...) MPITEV_EVENT_DEFINE(name)
TOYMPI_EVENTS(DEFINE_TYPE)
const void *toympi_events_ctx_keys[TOYMPI_MAX_CONTEXTS / 2]; /* no communicator: all NULL */
void *toympi_calloc(size_t n, size_t m)
{
    void *p = calloc(n, m);
    assert_non_null(p);
    return p;
}

/* ------------------------------------------------------------------- helpers */
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

/* post r, expecting no arrived message to match: it joins the posted queue */
static void post_unmatched(toympi_request_t *r)
{
    size_t n = toympi_match_posted_length();
    assert_null(toympi_match_post(r));
    assert_int_equal(toympi_match_posted_length(), n + 1);
}

/* an eager envelope with its payload already in, expecting no posted receive to match */
static toympi_unexpected_t *arrive_unmatched(uint32_t ctx, int src, int tag)
{
    toympi_unexpected_t *u = (void *)1;
    size_t n = toympi_match_unexpected_length();
    assert_null(toympi_match_arrival(ctx, src, tag, 8, TOYMPI_UX_EAGER, 3, 0, &u));
    assert_non_null(u);
    assert_int_equal(toympi_match_unexpected_length(), n + 1);
    u->payload_ready = 1; /* as the protocol does for a payload that has arrived */
    return u;
}

/* an envelope expected to match posted receive want */
static void arrive_matched(uint32_t ctx, int src, int tag, const toympi_request_t *want)
{
    toympi_unexpected_t *u = (void *)1;
    assert_ptr_equal(toympi_match_arrival(ctx, src, tag, 8, TOYMPI_UX_EAGER, 3, 0, &u), want);
    assert_null(u);
}

/* post r, expecting arrived message want to match; frees it */
static void post_matched(toympi_request_t *r, const toympi_unexpected_t *want)
{
    toympi_unexpected_t *u = toympi_match_post(r);
    assert_ptr_equal(u, want);
    toympi_unexpected_free(u);
}

static int empty_queues(void **state)
{
    (void)state;
    toympi_match_finalize();
    assert_int_equal(toympi_match_posted_length(), 0);
    assert_int_equal(toympi_match_unexpected_length(), 0);
    return 0;
}

/* --------------------------------------------------------------------- tests */
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
    /* wildcards are receive-side only: a message's source/tag is never a wildcard */
    assert_false(toympi_match(4, 1, 7, 4, MPI_ANY_SOURCE, 7));
    assert_false(toympi_match(4, 1, 7, 4, 1, MPI_ANY_TAG));
}

static void test_arrival_takes_earliest_posted(void **state)
{
    (void)state;
    toympi_request_t a = mkrecv(0, MPI_ANY_SOURCE, 5), b = mkrecv(0, 1, 5),
                     c = mkrecv(0, 1, MPI_ANY_TAG), d = mkrecv(2, 1, 5);
    post_unmatched(&a);
    post_unmatched(&b);
    post_unmatched(&c);
    post_unmatched(&d);
    /* the earliest posted matching receive wins, wildcard or not */
    arrive_matched(0, 1, 5, &a);
    arrive_matched(0, 1, 5, &b);
    arrive_matched(0, 1, 5, &c);
    assert_int_equal(toympi_match_posted_length(), 1);
    /* d is on another context: the envelope becomes unexpected */
    toympi_unexpected_t *u = arrive_unmatched(0, 1, 5);
    assert_int_equal(toympi_match_posted_length(), 1);
    arrive_matched(2, 1, 5, &d);
    assert_int_equal(toympi_match_posted_length(), 0);
    post_matched(&a, u); /* a's pattern (any source, tag 5) takes it back */
    assert_int_equal(toympi_match_unexpected_length(), 0);
}

static void test_unexpected_entry(void **state)
{
    (void)state;
    toympi_request_t r = mkrecv(6, 1, 9);
    toympi_unexpected_t *u = (void *)1, *v = (void *)1;
    assert_null(toympi_match_arrival(6, 2, 9, 1000, TOYMPI_UX_RTS, 5, 77, &u));
    assert_non_null(u);
    assert_int_equal(u->kind, TOYMPI_UX_RTS);
    assert_int_equal(u->context_id, 6);
    assert_int_equal(u->src, 2);
    assert_int_equal(u->tag, 9);
    assert_int_equal(u->bytes, 1000);
    assert_int_equal(u->peer_world, 5);
    assert_int_equal(u->sreq_id, 77);
    assert_null(u->payload);
    assert_false(u->payload_ready);
    assert_null(u->claimed);
    /* every envelope gets the next arrival number, matched or not */
    post_unmatched(&r);
    arrive_matched(6, 1, 9, &r);
    assert_null(toympi_match_arrival(6, 2, 9, 0, TOYMPI_UX_EAGER, 5, 0, &v));
    assert_non_null(v);
    assert_int_equal(v->kind, TOYMPI_UX_EAGER);
    assert_int_equal(v->seq, u->seq + 2);
    v->payload_ready = 1;
}

static void test_cancel(void **state)
{
    (void)state;
    toympi_request_t a = mkrecv(0, 0, 1), b = mkrecv(0, 0, 2), c = mkrecv(0, 0, 3),
                     x = mkrecv(0, 0, 4);
    post_unmatched(&a);
    post_unmatched(&b);
    post_unmatched(&c);
    assert_false(toympi_match_cancel(&x)); /* never posted */
    assert_true(toympi_match_cancel(&c));  /* tail */
    assert_false(toympi_match_cancel(&c)); /* already gone */
    post_unmatched(&x); /* appended after a tail removal: still linked */
    assert_true(toympi_match_cancel(&a)); /* head */
    assert_int_equal(toympi_match_posted_length(), 2);
    /* a cancelled receive matches nothing any more */
    toympi_unexpected_t *u = arrive_unmatched(0, 0, 1);
    arrive_matched(0, 0, 4, &x);
    arrive_matched(0, 0, 2, &b);
    assert_int_equal(toympi_match_posted_length(), 0);
    post_matched(&a, u);
}

static void test_post_takes_earliest_unexpected(void **state)
{
    (void)state;
    toympi_unexpected_t *m1 = arrive_unmatched(0, 1, 5), *m2 = arrive_unmatched(0, 2, 5),
                        *m3 = arrive_unmatched(0, 1, 6), *m4 = arrive_unmatched(0, 1, 5),
                        *m5 = arrive_unmatched(8, 1, 5);
    assert_true(m1->seq < m2->seq && m2->seq < m3->seq && m3->seq < m4->seq &&
                m4->seq < m5->seq);
    /* probe does not remove */
    assert_ptr_equal(toympi_match_probe(0, 1, MPI_ANY_TAG), m1);
    assert_ptr_equal(toympi_match_probe(0, 1, MPI_ANY_TAG), m1);
    assert_null(toympi_match_probe(0, 3, MPI_ANY_TAG));
    assert_null(toympi_match_probe(1, MPI_ANY_SOURCE, MPI_ANY_TAG)); /* collective context */
    assert_int_equal(toympi_match_unexpected_length(), 5);
    /* specific source: arrival order among that source's messages */
    toympi_request_t r = mkrecv(0, 1, 5);
    post_matched(&r, m1);
    post_matched(&r, m4);
    assert_int_equal(toympi_match_posted_length(), 0);
    post_unmatched(&r); /* none left: r is posted */
    assert_true(toympi_match_cancel(&r));
    /* wildcards take the oldest */
    toympi_request_t w = mkrecv(0, MPI_ANY_SOURCE, MPI_ANY_TAG);
    post_matched(&w, m2);
    post_matched(&w, m3);
    post_unmatched(&w); /* m5 is on context 8 */
    assert_true(toympi_match_cancel(&w));
    toympi_request_t w8 = mkrecv(8, MPI_ANY_SOURCE, 5);
    post_matched(&w8, m5);
    assert_int_equal(toympi_match_unexpected_length(), 0);
    assert_null(toympi_match_probe(0, MPI_ANY_SOURCE, MPI_ANY_TAG));
    /* the emptied queue takes new messages at its head again */
    toympi_unexpected_t *m6 = arrive_unmatched(0, 1, 5);
    assert_ptr_equal(toympi_match_probe(0, MPI_ANY_SOURCE, MPI_ANY_TAG), m6);
}

/* An arriving envelope searches only the posted queue and a posted receive only the
 * unexpected queue; messages that arrived before a receive was posted are matched by it
 * in arrival order (non-overtaking across the two queues). */
static void test_arrival_searches_posted_only(void **state)
{
    (void)state;
    toympi_unexpected_t *m = arrive_unmatched(0, 1, 5);
    toympi_request_t other = mkrecv(0, 1, 6);
    post_unmatched(&other);
    /* 'other' does not match, and m (a message, not a receive) is not searched */
    toympi_unexpected_t *m2 = arrive_unmatched(0, 1, 5);
    toympi_request_t r = mkrecv(0, 1, 5);
    post_matched(&r, m);
    post_matched(&r, m2);
    assert_true(toympi_match_cancel(&other));
}

static void test_finalize_drops_everything(void **state)
{
    (void)state;
    toympi_request_t r = mkrecv(0, 0, 1);
    post_unmatched(&r);
    arrive_unmatched(0, 0, 2);
    toympi_unexpected_t *u = (void *)1;
    assert_null(toympi_match_arrival(0, 0, 3, 1 << 20, TOYMPI_UX_RTS, 1, 9, &u));
    toympi_match_finalize(); /* frees both unexpected entries (ASan checks) */
    assert_int_equal(toympi_match_posted_length(), 0);
    assert_int_equal(toympi_match_unexpected_length(), 0);
    assert_null(toympi_match_probe(0, MPI_ANY_SOURCE, MPI_ANY_TAG));
    assert_false(toympi_match_cancel(&r));
    post_unmatched(&r); /* the queues work again afterwards */
    arrive_matched(0, 0, 1, &r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_match_rule),
        cmocka_unit_test_setup_teardown(test_arrival_takes_earliest_posted, empty_queues,
                                        empty_queues),
        cmocka_unit_test_setup_teardown(test_unexpected_entry, empty_queues, empty_queues),
        cmocka_unit_test_setup_teardown(test_cancel, empty_queues, empty_queues),
        cmocka_unit_test_setup_teardown(test_post_takes_earliest_unexpected, empty_queues,
                                        empty_queues),
        cmocka_unit_test_setup_teardown(test_arrival_searches_posted_only, empty_queues,
                                        empty_queues),
        cmocka_unit_test_setup_teardown(test_finalize_drops_everything, empty_queues,
                                        empty_queues),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
