/* Allocator hooks: every allocation given back with its size and alignment, aligned as
 * asked, replacement only while not initialised and before the first declaration,
 * allocation failure -> NO_MEM. Declarations keep their memory for the process (set
 * once in main, before anything is declared): what registrations take is given back at
 * finalize, what declarations take stays. */
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

/* The tracker lives for the process (it knows the declarations' blocks): a test only
 * resets the failure controls. */
static int setup(void **state) {
    (void)state;
    tk.fail_after = -1;
    tk.failed = 0;
    return is_initialized() ? -1 : 0;
}
static int teardown(void **state) { return core_teardown(state); }

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

#define TRY(expr)                                                      \
    do {                                                               \
        int rc_ = (expr);                                              \
        if (rc_ == MPITEV_ERR_NO_MEM) nomem++;                         \
        else assert_int_equal(rc_, MPITEV_SUCCESS);                    \
    } while (0)

/* The workload's declarations: the first call declares, later ones are no-ops. Returns
 * the number of calls that failed with NO_MEM. */
static int declare_all(void) {
    int nomem = 0;
    mpitev_source_desc sd = src_desc("src", MPITEV_SOURCE_ORDERED, NULL);
    TRY(mpitev_source_declare(&src, &sd));
    mpitev_type_desc td = pair_desc("ev", MPITEV_BIND_NO_OBJECT);
    mpitev_type_desc td2 = pair_desc("ev2", MPITEV_BIND_NO_OBJECT);
    td2.elements = NULL;
    td2.num_elements = 0;
    td2.payload_size = 0;
    TRY(mpitev_type_declare(&ev, &td));
    TRY(mpitev_type_declare(&ev2, &td2));
    return nomem;
}

/* A workload touching every allocating path; tolerates NO_MEM anywhere. Returns the
 * number of calls that failed with NO_MEM (any other error fails the test). */
static int workload(void) {
    int nomem = declare_all();
    if (mpitev_type_index_of(&ev, &(int){ 0 }) || mpitev_source_index_of(&src, &(int){ 0 })) return nomem;
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
}

/* Registrations give back everything at finalize; declarations keep exactly what they
 * took, once: a second session (declarations again, no-ops) takes nothing for them. */
static void all_memory_returned(void **state) {
    (void)state;
    long live0 = tk.live;
    OK(mpitev_init());
    assert_int_equal(declare_all(), 0);
    long live_decl = tk.live, allocs_decl = tk.allocs;
    assert_true(live_decl > live0); /* layouts and rings */
    assert_int_equal(workload(), 0);
    assert_true(tk.allocs > allocs_decl);
    OK(mpitev_finalize());
    assert_int_equal(tk.live, live_decl);
    OK(mpitev_init());
    long allocs1 = tk.allocs;
    assert_int_equal(declare_all(), 0);
    assert_int_equal(tk.allocs, allocs1); /* equal re-declarations allocate nothing */
    assert_int_equal(workload(), 0);
    OK(mpitev_finalize());
    assert_int_equal(tk.live, live_decl);
    assert_int_equal(tk.allocs - tk.frees, live_decl);
}

static void set_allocator_only_when_not_initialized(void **state) {
    (void)state;
    OK(mpitev_init());
    assert_int_equal(mpitev_set_allocator(&talloc), MPITEV_ERR_NOT_SUPPORTED);
    assert_int_equal(mpitev_set_allocator(NULL), MPITEV_ERR_NOT_SUPPORTED);
    OK(mpitev_init()); /* nested init keeps the allocator */
    OK(mpitev_finalize());
    assert_int_equal(mpitev_set_allocator(NULL), MPITEV_ERR_NOT_SUPPORTED);
    static mpitev_type t;
    mpitev_type_desc td = pair_desc("ev_alloc_still_ours", MPITEV_BIND_NO_OBJECT);
    long before = tk.allocs;
    OK(mpitev_type_declare(&t, &td));
    assert_true(tk.allocs > before); /* still ours */
    OK(mpitev_finalize());
    /* Not initialised, but something is declared: still fixed, NULL included. */
    assert_int_equal(mpitev_set_allocator(&talloc), MPITEV_ERR_NOT_SUPPORTED);
    assert_int_equal(mpitev_set_allocator(NULL), MPITEV_ERR_NOT_SUPPORTED);
    /* Invalid allocators. */
    mpitev_allocator bad = { NULL, t_free, &tk };
    assert_int_equal(mpitev_set_allocator(&bad), MPITEV_ERR_INVALID_ARG);
    bad.alloc = t_alloc;
    bad.free = NULL;
    assert_int_equal(mpitev_set_allocator(&bad), MPITEV_ERR_INVALID_ARG);
    /* Still ours in the next session. */
    before = tk.allocs;
    OK(mpitev_init());
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&t), NULL, NULL, 0, &r));
    assert_true(tk.allocs > before);
    OK(mpitev_finalize());
}

static void failing_allocator_no_mem(void **state) {
    (void)state;
    static mpitev_type t;
    static mpitev_source s;
    long live0 = tk.live;
    OK(mpitev_init());
    int n0 = -1, n = -1;
    OK(mpitev_type_get_num(&n0));
    /* Every allocation point of a type and of a source declaration. */
    mpitev_type_desc td = pair_desc("ev_nomem", MPITEV_BIND_NO_OBJECT);
    for (long k = 0;; k++) {
        tk.fail_after = tk.allocs + k;
        int rc = mpitev_type_declare(&t, &td);
        tk.fail_after = -1;
        if (rc == MPITEV_SUCCESS) break;
        assert_int_equal(rc, MPITEV_ERR_NO_MEM);
        OK(mpitev_type_get_num(&n));
        assert_int_equal(n, n0);
        assert_int_equal(mpitev_type_index_of(&t, &(int){ 0 }), MPITEV_ERR_INVALID_ARG);
        assert_int_equal(tk.live, live0); /* nothing kept from the failed attempt */
    }
    assert_int_equal(tindex(&t), n0); /* works once memory is back */
    mpitev_source_desc sd = src_desc("src_nomem", MPITEV_SOURCE_ORDERED, NULL);
    OK(mpitev_source_get_num(&n0));
    long live1 = tk.live;
    for (long k = 0;; k++) {
        tk.fail_after = tk.allocs + k;
        int rc = mpitev_source_declare(&s, &sd);
        tk.fail_after = -1;
        if (rc == MPITEV_SUCCESS) break;
        assert_int_equal(rc, MPITEV_ERR_NO_MEM);
        OK(mpitev_source_get_num(&n));
        assert_int_equal(n, n0);
        assert_int_equal(tk.live, live1);
    }
    assert_int_equal(sindex(&s), n0);
    long live_decl = tk.live;
    tk.fail_after = tk.allocs;
    mpitev_reg r = { 777 };
    assert_int_equal(mpitev_reg_alloc(tindex(&t), NULL, NULL, 0, &r), MPITEV_ERR_NO_MEM);
    assert_true(r.bits == 777);
    tk.fail_after = -1;
    OK(mpitev_reg_alloc(tindex(&t), NULL, NULL, 0, &r));
    tk.fail_after = tk.allocs;
    assert_int_equal(mpitev_reg_set_callback(r, 0, cb, NULL, NULL, 0), MPITEV_ERR_NO_MEM);
    assert_false(MPITEV_ENABLED(&t));
    tk.fail_after = -1;
    OK(mpitev_finalize());
    assert_int_equal(tk.live, live_decl);
}

/* MPI_T_event_get_info's default hints: read without allocating (no registration). */
static int collect_kv(const char *k, const char *v, void *ctx) {
    char *out = (char *)ctx;
    snprintf(out + strlen(out), 64 - strlen(out), "%s=%s;", k, v);
    return 0;
}
static int stop_first(const char *k, const char *v, void *ctx) {
    (void)k; (void)v;
    ++*(int *)ctx;
    return 1;
}
static void default_info_allocates_nothing(void **state) {
    (void)state;
    static mpitev_type forced;
    OK(mpitev_init());
    assert_int_equal(declare_all(), 0);
    mpitev_type_desc fd = pair_desc("ev_forced_buffered", MPITEV_BIND_NO_OBJECT);
    fd.flags = MPITEV_TYPE_ALWAYS_BUFFERED;
    OK(mpitev_type_declare(&forced, &fd));
    long allocs = tk.allocs, frees = tk.frees;
    char got[64] = "", got_forced[64] = "";
    OK(mpitev_type_get_default_info(tindex(&ev), collect_kv, got));
    OK(mpitev_type_get_default_info(tindex(&forced), collect_kv, got_forced));
    int visits = 0;
    OK(mpitev_type_get_default_info(tindex(&ev), stop_first, &visits));
    assert_int_equal(tk.allocs, allocs); /* nothing allocated, nothing freed */
    assert_int_equal(tk.frees, frees);
    assert_string_equal(got, "mpitev_buffered=default;");
    assert_string_equal(got_forced, "mpitev_buffered=true;");
    assert_int_equal(visits, 1);
    /* What a new registration starts with, exactly. */
    mpitev_reg r;
    char reg_got[64] = "";
    OK(mpitev_reg_alloc(tindex(&forced), NULL, NULL, 0, &r));
    OK(mpitev_reg_get_info(r, collect_kv, reg_got));
    assert_string_equal(reg_got, got_forced);
    int n = -1;
    OK(mpitev_type_get_num(&n));
    assert_int_equal(mpitev_type_get_default_info(n, collect_kv, got), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_type_get_default_info(-1, collect_kv, got), MPITEV_ERR_INVALID_INDEX);
    assert_int_equal(mpitev_type_get_default_info(0, NULL, NULL), MPITEV_ERR_INVALID_ARG);
    OK(mpitev_finalize());
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
    assert_int_equal(declare_all(), 0); /* the workload's src and ev */
    long live_decl = tk.live;
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
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
    assert_int_equal(tk.live, live_decl);
}

/* Fail the k-th allocation for every k the workload reaches: never a crash, a leak, a
 * bad free or an unexpected error code. */
/* (The declarations are in place from the earlier tests: the workload's allocations are
 * the registrations'; failing_allocator_no_mem covers the declarations'.) */
static void fail_at_every_point(void **state) {
    (void)state;
    tk.fail_after = -1;
    OK(mpitev_init());
    assert_int_equal(declare_all(), 0);
    long live_decl = tk.live, base = tk.allocs;
    workload();
    OK(mpitev_finalize());
    long total = tk.allocs - base;
    assert_true(total > 10);
    for (long k = 0; k <= total; k++) {
        tk.failed = 0;
        OK(mpitev_init());
        tk.fail_after = tk.allocs + k;
        int nomem = workload();
        /* A failure surfaces as NO_MEM, except where the core absorbs it by design
         * (unlisting at free or callback removal keeps the old set). Before the first
         * registration exists, every failure must surface. */
        if (tk.failed && k < 4) assert_true(nomem > 0);
        tk.fail_after = -1; /* finalize must be able to clean up */
        OK(mpitev_finalize());
        if (tk.live != live_decl) fail_msg("leak of %ld allocations when allocation %ld fails", tk.live - live_decl, k);
        assert_int_equal(tk.allocs - tk.frees, live_decl);
    }
}

int main(void) {
    /* Once, before anything is declared: the allocator of the process. */
    tk.fail_after = -1;
    if (mpitev_set_allocator(&talloc) != MPITEV_SUCCESS) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(all_memory_returned, setup, teardown),
        cmocka_unit_test_setup_teardown(set_allocator_only_when_not_initialized, setup, teardown),
        cmocka_unit_test_setup_teardown(failing_allocator_no_mem, setup, teardown),
        cmocka_unit_test_setup_teardown(replace_callback_no_mem_keeps_old, setup, teardown),
        cmocka_unit_test_setup_teardown(default_info_allocates_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(fail_at_every_point, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
