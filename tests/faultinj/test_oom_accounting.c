/* Exact accounting when memory runs out (issue 14, items 9-11): a call that runs out of
 * memory either fails with NO_MEM having changed nothing, or succeeds; in both cases
 * every instance raised to a registration is delivered or reported dropped exactly
 * once, and nothing raised while the tool was not listening is reported. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "../core/core_test.h"
#include "failalloc.h"

static mpitev_source src;
static mpitev_type ev;
static struct pair pl = { 1, 2 };

/* Per registration: callbacks run, drops reported, free callback (and whether the
 * drops were reported before it). */
typedef struct tally {
    int delivered;
    long dropped;
    int freed;
    long dropped_at_free;
} tally;

static void t_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s;
    ((tally *)u)->delivered++;
}
/* Drops reported without a callback's user data (a registration with no callback
 * left): counted here, checked by the tests (no assertion inside tool code, which would
 * jump out of mpitev). */
static long orphan_drops;
static void t_dropped(mpitev_count_t c, mpitev_reg r, int si, int s, void *u) {
    (void)r; (void)si; (void)s;
    if (u) ((tally *)u)->dropped += c;
    else orphan_drops += c;
}
static void t_freed(mpitev_reg r, int s, void *u) {
    (void)r; (void)s;
    tally *t = (tally *)u;
    t->freed++;
    t->dropped_at_free = t->dropped;
}

static void declare(void) {
    mpitev_source_desc sd = src_desc("oom_src", MPITEV_SOURCE_ORDERED, NULL);
    OK(mpitev_source_declare(&src, &sd));
    mpitev_type_desc td = pair_desc("oom_ev", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
}

static const mpitev_kv buffered = { MPITEV_HINT_BUFFERED, "true" };

/* A buffered registration with a callback at MPITEV_CB_REQUIRE_NONE and a dropped
 * handler, both with t as user data. */
static mpitev_reg listen(tally *t) {
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &buffered, 1, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, t_cb, t, NULL, 0));
    OK(mpitev_reg_set_dropped_handler(r, t_dropped));
    return r;
}

static void raise_n(int n) {
    for (int i = 0; i < n; i++) MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &pl);
}

static int setup(void **state) {
    (void)state;
    fa_ok();
    if (core_setup(state)) return -1;
    declare();
    return 0;
}
static int teardown(void **state) {
    fa_ok();
    return core_teardown(state);
}

/* Item 9. A free that cannot build the smaller set still frees: the one instance raised
 * before it and drained after it is reported dropped (once, before free_cb), and the
 * five raised after it are not the freed registration's. */
static void free_out_of_memory_counts_exactly(void **state) {
    (void)state;
    tally a = { 0 }, b = { 0 };
    mpitev_reg ra = listen(&a);
    (void)listen(&b); /* keeps the set non-empty, so unlisting a must allocate */
    raise_n(1);
    fa_fail_from_now();
    assert_int_equal(mpitev_reg_free(ra, &a, t_freed), MPITEV_SUCCESS);
    fa_ok();
    assert_int_equal(mpitev_reg_check(ra), MPITEV_ERR_INVALID_HANDLE);
    raise_n(5);
    (void)drain_n(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    for (int i = 0; i < 4 && !a.freed; i++) (void)progress_n(MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(a.freed, 1);
    assert_int_equal(a.delivered, 0);
    assert_int_equal(a.dropped, 1);          /* the one raised before the free */
    assert_int_equal(a.dropped_at_free, 1);  /* reported before free_cb */
    assert_int_equal(b.delivered, 6);
    assert_int_equal(b.dropped, 0);
    /* Later raises and set changes (which unlist the zombie) charge it nothing. */
    tally c = { 0 };
    (void)listen(&c);
    raise_n(3);
    (void)drain_n(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    (void)progress_n(MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(a.dropped, 1);
    assert_int_equal(b.delivered, 9);
    assert_int_equal(c.delivered, 3);
}

/* Item 9, every allocation point of the free: the same accounting wherever it fails. */
static void free_fails_at_every_point(void **state) {
    (void)state;
    for (long k = 0; k < 8; k++) {
        tally a = { 0 }, b = { 0 };
        mpitev_reg ra = listen(&a), rb = listen(&b);
        raise_n(2);
        fa_fail_nth(k);
        OK(mpitev_reg_free(ra, &a, t_freed));
        fa_ok();
        raise_n(4);
        (void)drain_n(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        for (int i = 0; i < 4 && !a.freed; i++) (void)progress_n(MPITEV_CB_REQUIRE_NONE);
        assert_int_equal(a.freed, 1);
        assert_int_equal(a.delivered + a.dropped, 2);
        assert_int_equal(b.delivered, 6);
        OK(mpitev_reg_free(rb, NULL, NULL));
        (void)progress_n(MPITEV_CB_REQUIRE_NONE);
    }
}

/* Item 10. Removing the last callback either fails with NO_MEM (the callback stays and
 * keeps receiving) or succeeds (nothing raised after it is delivered or reported):
 * never "listed without a callback", which reported every later buffered raise as a
 * drop. Every allocation point of the removal. */
static void remove_last_callback_out_of_memory(void **state) {
    (void)state;
    int saw_nomem = 0;
    for (long k = 0;; k++) {
        tally a = { 0 }, b = { 0 };
        mpitev_reg ra = listen(&a), rb = listen(&b);
        fa_fail_nth(k);
        int rc = mpitev_reg_set_callback(ra, MPITEV_CB_REQUIRE_NONE, NULL, NULL, NULL, 0);
        long failed = fa.failed;
        fa_ok();
        raise_n(3);
        (void)drain_n(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
        assert_int_equal(b.delivered, 3);
        if (rc == MPITEV_ERR_NO_MEM) {
            saw_nomem = 1;
            assert_int_equal(a.delivered, 3); /* unchanged: still listening */
            assert_int_equal(a.dropped, 0);
        } else {
            assert_int_equal(rc, MPITEV_SUCCESS);
            assert_int_equal(a.delivered, 0); /* not listening: nothing delivered */
            assert_int_equal(a.dropped, 0);   /* and nothing reported lost */
        }
        OK(mpitev_reg_free(ra, NULL, NULL));
        OK(mpitev_reg_free(rb, NULL, NULL));
        (void)progress_n(MPITEV_CB_REQUIRE_NONE);
        assert_int_equal(orphan_drops, 0);
        if (rc == MPITEV_SUCCESS && failed == fa.failed) break; /* k past the last point */
        if (k > 16) fail_msg("removal still fails after %ld allocation points", k);
    }
    assert_true(saw_nomem);
}

static int collect(const char *k, const char *v, void *ctx) {
    char *out = (char *)ctx;
    size_t n = strlen(out);
    snprintf(out + n, 256 - n, "%s=%s;", k, v);
    return 0;
}

/* Item 11. mpitev_reg_set_info and mpitev_reg_callback_set_info are all or nothing:
 * NO_MEM at any allocation point leaves the hints exactly as they were. */
static void set_info_all_or_nothing(void **state) {
    (void)state;
    tally a = { 0 };
    mpitev_reg r = listen(&a);
    mpitev_kv first[] = { { "a", "1" }, { "b", "2" } };
    OK(mpitev_reg_set_info(r, first, 2));
    OK(mpitev_reg_callback_set_info(r, MPITEV_CB_REQUIRE_NONE, first, 2));
    mpitev_kv more[] = { { "c", "3" }, { "a", "9" }, { "d", "4" }, { "e", "5" }, { "f", "6" } };
    for (int which = 0; which < 2; which++) {
        char before[256] = "", after[256] = "";
        if (which == 0) OK(mpitev_reg_get_info(r, collect, before));
        else OK(mpitev_reg_callback_get_info(r, MPITEV_CB_REQUIRE_NONE, collect, before));
        int nomem = 0;
        for (long k = 0;; k++) {
            fa_fail_nth(k);
            int rc = which == 0 ? mpitev_reg_set_info(r, more, 5)
                                : mpitev_reg_callback_set_info(r, MPITEV_CB_REQUIRE_NONE, more, 5);
            fa_ok();
            after[0] = '\0';
            if (which == 0) OK(mpitev_reg_get_info(r, collect, after));
            else OK(mpitev_reg_callback_get_info(r, MPITEV_CB_REQUIRE_NONE, collect, after));
            if (rc == MPITEV_SUCCESS) break;
            assert_int_equal(rc, MPITEV_ERR_NO_MEM);
            nomem++;
            assert_string_equal(after, before); /* nothing of the failed call kept */
        }
        assert_true(nomem > 3);
        assert_non_null(strstr(after, "a=9;"));
        assert_non_null(strstr(after, "f=6;"));
    }
}

int main(void) {
    if (fa_install() != MPITEV_SUCCESS) return 1;
    if (getenv("TEST_FILTER")) cmocka_set_test_filter(getenv("TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(free_out_of_memory_counts_exactly, setup, teardown),
        cmocka_unit_test_setup_teardown(free_fails_at_every_point, setup, teardown),
        cmocka_unit_test_setup_teardown(remove_last_callback_out_of_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(set_info_all_or_nothing, setup, teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (fa.errors) {
        fprintf(stderr, "%ld bad frees\n", fa.errors);
        return 1;
    }
    return rc;
}
