/* Allocator hooks: every allocation given back with its size and alignment, aligned as
 * asked, replacement only while not initialised, allocation failure -> NO_MEM. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"

#define MAXLIVE 4096
typedef struct tracker {
    long allocs, frees, live;
    long fail_after;   /* <0: never fail; else allocations allowed before failing */
    long failed;
    void *ptr[MAXLIVE];
    size_t size[MAXLIVE], align[MAXLIVE];
} tracker;
static tracker tk;

static void *t_alloc(size_t size, size_t align, void *ctx) {
    tracker *t = (tracker *)ctx;
    assert_ptr_equal(t, &tk);
    assert_true(size > 0);
    assert_true(align > 0 && (align & (align - 1)) == 0 && align <= 4096);
    if (t->fail_after >= 0 && t->allocs >= t->fail_after) {
        t->failed++;
        return NULL;
    }
    size_t a = align < sizeof(void *) ? sizeof(void *) : align;
    void *p = aligned_alloc(a, (size + a - 1) / a * a);
    assert_non_null(p);
    assert_true(((uintptr_t)p & (align - 1)) == 0);
    int slot = -1;
    for (int i = 0; i < MAXLIVE && slot < 0; i++)
        if (!t->ptr[i]) slot = i;
    assert_true(slot >= 0);
    t->ptr[slot] = p;
    t->size[slot] = size;
    t->align[slot] = align;
    t->allocs++;
    t->live++;
    return p;
}
static void t_free(void *p, size_t size, size_t align, void *ctx) {
    tracker *t = (tracker *)ctx;
    assert_non_null(p);
    int slot = -1;
    for (int i = 0; i < MAXLIVE && slot < 0; i++)
        if (t->ptr[i] == p) slot = i;
    assert_true(slot >= 0);                  /* ours, and not freed twice */
    assert_int_equal(size, t->size[slot]);   /* the size given at allocation */
    assert_int_equal(align, t->align[slot]); /* and the alignment */
    t->ptr[slot] = NULL;
    t->frees++;
    t->live--;
    free(p);
}
static const mpitev_allocator talloc = { t_alloc, t_free, &tk };

static int setup(void **state) {
    (void)state;
    memset(&tk, 0, sizeof tk);
    tk.fail_after = -1;
    if (is_initialized()) return -1;
    return mpitev_set_allocator(&talloc) == MPITEV_SUCCESS ? 0 : -1;
}
static int teardown(void **state) {
    int rc = core_teardown(state);
    mpitev_set_allocator(NULL);
    return rc;
}

static mpitev_type ev, ev2;
static mpitev_source src;
static struct pair cur;
static int ncb;
static void cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s; (void)u; ncb++;
}
static void dropped(mpitev_count_t c, mpitev_reg r, int si, int s, void *u) {
    (void)c; (void)r; (void)si; (void)s; (void)u; }
static void self_free_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)s; (void)u; mpitev_reg_free(r, NULL, NULL);
}

/* A workload touching every allocating path; tolerates NO_MEM anywhere. Returns the
 * number of calls that failed with NO_MEM (any other error fails the test). */
static int workload(void) {
    int nomem = 0;
#define TRY(expr)                                                      \
    do {                                                               \
        int rc_ = (expr);                                              \
        if (rc_ == MPITEV_ERR_NO_MEM) nomem++;                         \
        else assert_int_equal(rc_, MPITEV_SUCCESS);                    \
    } while (0)
    mpitev_source_desc sd = src_desc("src", MPITEV_SOURCE_ORDERED, NULL);
    TRY(mpitev_source_declare(&src, &sd));
    mpitev_type_desc td = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc td2 = pair_desc("ev2", MPITEV_BIND_NO_OBJECT);
    td2.elements = NULL;
    td2.num_elements = 0;
    td2.payload_size = 0;
    TRY(mpitev_type_declare(&ev, &td));
    TRY(mpitev_type_declare(&ev2, &td2));
    if (tindex(&ev) < 0 || sindex(&src) < 0) return nomem;
    mpitev_kv kv[] = { { "alpha", "1" }, { "beta", "2" }, { "gamma", "3" }, { "delta", "4" }, { "eps", "5" } };
    mpitev_reg r[4];
    int have[4] = { 0 };
    for (int i = 0; i < 4; i++) {
        int rc = mpitev_reg_alloc(tindex(&ev), NULL, kv, 1 + i, &r[i]);
        if (rc == MPITEV_ERR_NO_MEM) { nomem++; continue; }
        assert_int_equal(rc, MPITEV_SUCCESS);
        have[i] = 1;
        TRY(mpitev_reg_set_info(r[i], kv, 5));
        TRY(mpitev_reg_set_callback(r[i], MPITEV_CB_REQUIRE_THREAD_SAFE, cb, NULL, kv, 3));
        TRY(mpitev_reg_set_callback(r[i], MPITEV_CB_REQUIRE_NONE, i == 3 ? self_free_cb : cb, NULL, kv, 2));
        TRY(mpitev_reg_callback_set_info(r[i], MPITEV_CB_REQUIRE_NONE, kv, 5));
        TRY(mpitev_reg_set_dropped_handler(r[i], dropped));
    }
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &cur);
    if (have[0]) TRY(mpitev_reg_set_callback(r[0], MPITEV_CB_REQUIRE_NONE, NULL, NULL, NULL, 0));
    if (have[1]) TRY(mpitev_reg_free(r[1], NULL, NULL));
    mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
    /* r[2] (and whatever else) stays alive until finalize. */
    return nomem;
#undef TRY
}

static void all_memory_returned(void **state) {
    (void)state;
    OK(mpitev_init());
    assert_int_equal(workload(), 0);
    assert_true(tk.allocs > 0);
    OK(mpitev_finalize());
    assert_int_equal(tk.live, 0);
    assert_int_equal(tk.allocs, tk.frees);
}

static void set_allocator_only_when_not_initialized(void **state) {
    (void)state;
    OK(mpitev_init());
    assert_int_equal(mpitev_set_allocator(&talloc), MPITEV_ERR_NOT_SUPPORTED);
    assert_int_equal(mpitev_set_allocator(NULL), MPITEV_ERR_NOT_SUPPORTED);
    OK(mpitev_init()); /* nested init keeps the allocator */
    OK(mpitev_finalize());
    assert_int_equal(mpitev_set_allocator(NULL), MPITEV_ERR_NOT_SUPPORTED);
    mpitev_type_desc td = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
    assert_true(tk.allocs > 0); /* still ours */
    OK(mpitev_finalize());
    assert_int_equal(tk.live, 0);
    /* Invalid allocators. */
    mpitev_allocator bad = { NULL, t_free, &tk };
    assert_int_equal(mpitev_set_allocator(&bad), MPITEV_ERR_INVALID_ARG);
    bad.alloc = t_alloc;
    bad.free = NULL;
    assert_int_equal(mpitev_set_allocator(&bad), MPITEV_ERR_INVALID_ARG);
    /* NULL restores malloc/free: our tracker sees nothing more. */
    OK(mpitev_set_allocator(NULL));
    long before = tk.allocs;
    OK(mpitev_init());
    OK(mpitev_type_declare(&ev, &td));
    mpitev_reg r;
    OK(mpitev_reg_alloc(0, NULL, NULL, 0, &r));
    OK(mpitev_finalize());
    assert_int_equal(tk.allocs, before);
}

static void failing_allocator_no_mem(void **state) {
    (void)state;
    tk.fail_after = 0;
    OK(mpitev_init());
    mpitev_type_desc td = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    assert_int_equal(mpitev_type_declare(&ev, &td), MPITEV_ERR_NO_MEM);
    int n = -1;
    OK(mpitev_type_get_num(&n));
    assert_int_equal(n, 0);
    assert_int_equal(mpitev_type_index_of(&ev, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
    tk.fail_after = -1;
    OK(mpitev_type_declare(&ev, &td)); /* works once memory is back */
    tk.fail_after = tk.allocs;
    mpitev_reg r = { 777 };
    assert_int_equal(mpitev_reg_alloc(0, NULL, NULL, 0, &r), MPITEV_ERR_NO_MEM);
    assert_true(r.bits == 777);
    tk.fail_after = -1;
    OK(mpitev_reg_alloc(0, NULL, NULL, 0, &r));
    tk.fail_after = tk.allocs;
    assert_int_equal(mpitev_reg_set_callback(r, 0, cb, NULL, NULL, 0), MPITEV_ERR_NO_MEM);
    assert_false(MPITEV_ENABLED(&ev));
    tk.fail_after = -1;
    OK(mpitev_finalize());
    assert_int_equal(tk.live, 0);
}

static int nother;
static void other_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s; (void)u; nother++;
}

static int count_kv(const char *k, const char *v, void *ctx) {
    (void)v;
    if (strcmp(k, "keep") == 0) ++*(int *)ctx;
    return 0;
}

/* Replacing a callback with new hints runs out of memory at every possible point: the
 * old callback and its hints stay exactly as they were. */
static void replace_callback_no_mem_keeps_old(void **state) {
    (void)state;
    OK(mpitev_init());
    mpitev_source_desc sd = src_desc("src", MPITEV_SOURCE_ORDERED, NULL);
    OK(mpitev_source_declare(&src, &sd));
    mpitev_type_desc td = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
    mpitev_reg r;
    OK(mpitev_reg_alloc(0, NULL, NULL, 0, &r));
    mpitev_kv old_hint = { "keep", "1" };
    OK(mpitev_reg_set_callback(r, 0, cb, NULL, &old_hint, 1));
    mpitev_kv new_hints[3] = { { "a", "1" }, { "b", "2" }, { "c", "3" } };
    for (long k = 0; k < 12; k++) {
        tk.fail_after = tk.allocs + k;
        int rc = mpitev_reg_set_callback(r, 0, other_cb, NULL, new_hints, 3);
        tk.fail_after = -1;
        if (rc == MPITEV_SUCCESS) break; /* enough memory from here on */
        assert_int_equal(rc, MPITEV_ERR_NO_MEM);
        int seen = 0;
        OK(mpitev_reg_callback_get_info(r, 0, count_kv, &seen));
        assert_int_equal(seen, 1); /* the old hint is still there */
        ncb = nother = 0;
        MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &cur);
        assert_int_equal(ncb, 1); /* and the old callback still runs */
        assert_int_equal(nother, 0);
    }
    OK(mpitev_finalize());
    assert_int_equal(tk.live, 0);
}

/* Fail the k-th allocation for every k the workload reaches: never a crash, a leak, a
 * bad free or an unexpected error code. */
static void fail_at_every_point(void **state) {
    (void)state;
    memset(&tk, 0, sizeof tk);
    tk.fail_after = -1;
    OK(mpitev_init());
    workload();
    OK(mpitev_finalize());
    long total = tk.allocs;
    assert_true(total > 10);
    for (long k = 0; k <= total; k++) {
        memset(&tk, 0, sizeof tk);
        tk.fail_after = k;
        OK(mpitev_init());
        int nomem = workload();
        /* A failure surfaces as NO_MEM, except where the core absorbs it by design
         * (unlisting at free or callback removal keeps the old set). Before the first
         * registration exists, every failure must surface. */
        if (tk.failed && k < 4) assert_true(nomem > 0);
        tk.fail_after = -1; /* finalize must be able to clean up */
        OK(mpitev_finalize());
        if (tk.live != 0) fail_msg("leak of %ld allocations when allocation %ld fails", tk.live, k);
        assert_int_equal(tk.allocs, tk.frees);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(all_memory_returned, setup, teardown),
        cmocka_unit_test_setup_teardown(set_allocator_only_when_not_initialized, setup, teardown),
        cmocka_unit_test_setup_teardown(failing_allocator_no_mem, setup, teardown),
        cmocka_unit_test_setup_teardown(replace_callback_no_mem_keeps_old, setup, teardown),
        cmocka_unit_test_setup_teardown(fail_at_every_point, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
