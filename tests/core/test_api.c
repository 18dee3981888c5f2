/* The v0.2 conventions (issue 10): status codes with out-parameters, the ordering
 * default (unordered is the zero value), native callbacks through the core's trampoline,
 * the adapter-only _ext entry points. Each test declares objects of its own. */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>
#include "core_test.h"
#include <pthread.h>
#include <stdatomic.h>

/* main() checks this stayed 0: set, then replaced by NULL (malloc/free) before anything
 * was declared, it must never be called. */
static long counted_allocs;
static void *counting_alloc(size_t size, size_t align, void *ctx) {
    (void)size; (void)align; (void)ctx;
    counted_allocs++;
    return NULL;
}
static void counting_free(void *p, size_t size, size_t align, void *ctx) { (void)p; (void)size; (void)align; (void)ctx; }

/* ---- A descriptor without .ordering is unordered, and several threads raising on it
 * lose nothing: every instance is delivered or reported dropped. ---- */
#define NTHREADS 4
#define PER_THREAD 5000
static mpitev_type dflt_ev;
static mpitev_source dflt_src;
static atomic_int start_flag, finished;
static _Atomic long delivered_n, dropped_n;
static int raised_bad_payload;

static void count_event(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)r; (void)s; (void)u;
    struct pair p;
    if (mpitev_instance_copy(i, &p) != MPITEV_SUCCESS || p.b != (int64_t)p.a * 3) raised_bad_payload = 1;
    atomic_fetch_add(&delivered_n, 1);
}
static void count_dropped(mpitev_count_t c, mpitev_reg r, int si, int s, void *u) {
    (void)r; (void)si; (void)s; (void)u;
    atomic_fetch_add(&dropped_n, (long)c);
}
static void *raiser(void *arg) {
    (void)arg;
    while (!atomic_load(&start_flag)) {}
    for (int k = 0; k < PER_THREAD; k++)
        MPITEV_RAISE(&dflt_ev, &dflt_src, NULL, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &(struct pair){ k, (int64_t)k * 3 });
    atomic_fetch_add(&finished, 1);
    return NULL;
}

static void omitted_ordering_is_unordered_and_lossless(void **state) {
    (void)state;
    /* Nothing about ordering said: the zero value. A ring small enough for some drops. */
    OK(mpitev_source_declare(&dflt_src, &(mpitev_source_desc){ .name = "api_default_order", .buffer_capacity = 64 }));
    mpitev_type_desc td = pair_desc("api_default_order_ev", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&dflt_ev, &td));
    mpitev_source_info info;
    OK(mpitev_source_get_info(sindex(&dflt_src), &info));
    assert_int_equal(info.ordering, MPITEV_SOURCE_UNORDERED);
    assert_int_equal(MPITEV_SOURCE_UNORDERED, 0);
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&dflt_ev), NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &r));
    OK(mpitev_reg_set_dropped_handler(r, count_dropped));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, count_event, NULL, NULL, 0));
    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) assert_int_equal(pthread_create(&th[i], NULL, raiser, NULL), 0);
    atomic_store(&start_flag, 1);
    /* This thread drains while they raise (most instances go through the ring). */
    while (atomic_load(&finished) < NTHREADS) (void)drain_n(&dflt_src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    for (int i = 0; i < NTHREADS; i++) assert_int_equal(pthread_join(th[i], NULL), 0);
    (void)drain_n(&dflt_src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    assert_int_equal(atomic_load(&delivered_n) + atomic_load(&dropped_n), (long)NTHREADS * PER_THREAD);
    assert_int_equal(raised_bad_payload, 0);
}

/* ---- Native callbacks (no ext parameter) run through the core's trampoline, each with
 * its own arguments intact. ---- */
static mpitev_type nat_ev;
static mpitev_source nat_src;
typedef struct native_log {
    int events, drops, frees;
    int last_safety, last_source;
    uint64_t last_reg;
    mpitev_count_t dropped;
    void *ud_event, *ud_drop, *ud_free;
    int32_t a;
} native_log;
static native_log nl;
static void native_event(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    nl.events++;
    nl.last_safety = s;
    nl.last_reg = r.bits;
    nl.ud_event = u;
    OK(mpitev_instance_read(i, 0, &nl.a));
}
static void native_dropped(mpitev_count_t c, mpitev_reg r, int si, int s, void *u) {
    nl.drops++;
    nl.dropped += c;
    nl.last_source = si;
    nl.last_reg = r.bits;
    nl.last_safety = s;
    nl.ud_drop = u;
}
static void native_free(mpitev_reg r, int s, void *u) {
    nl.frees++;
    nl.last_reg = r.bits;
    nl.last_safety = s;
    nl.ud_free = u;
}

static void native_callbacks_through_trampoline(void **state) {
    (void)state;
    static int ud_cb, ud_fr;
    memset(&nl, 0, sizeof nl);
    OK(mpitev_source_declare(&nat_src, &(mpitev_source_desc){ .name = "api_native", .ordering = MPITEV_SOURCE_ORDERED,
                                                             .buffer_capacity = 2 }));
    mpitev_type_desc td = pair_desc("api_native_ev", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&nat_ev, &td));
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&nat_ev), NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &r));
    OK(mpitev_reg_set_dropped_handler(r, native_dropped));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_THREAD_SAFE, native_event, &ud_cb, NULL, 0));
    /* Four raises into a ring of two: two delivered, two dropped (reported first). */
    for (int k = 0; k < 4; k++) MPITEV_RAISE(&nat_ev, &nat_src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ 7 + k, 0 });
    assert_int_equal(drain_n(&nat_src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_MPI_RESTRICTED), 2);
    assert_int_equal(nl.events, 2);
    assert_int_equal(nl.a, 8);
    assert_ptr_equal(nl.ud_event, &ud_cb);
    assert_int_equal(nl.drops, 1);
    assert_true(nl.dropped == 2);
    assert_int_equal(nl.last_source, sindex(&nat_src));
    assert_ptr_equal(nl.ud_drop, &ud_cb); /* the user_data of the callback that would run */
    assert_int_equal(nl.last_safety, MPITEV_CB_REQUIRE_MPI_RESTRICTED);
    assert_true(nl.last_reg == r.bits);
    /* Free: the native free callback, once, with its user_data and the handle. */
    OK(mpitev_reg_free(r, &ud_fr, native_free));
    OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    assert_int_equal(nl.frees, 1);
    assert_ptr_equal(nl.ud_free, &ud_fr);
    assert_true(nl.last_reg == r.bits);
    /* A native callback removed (NULL): nothing delivered, nothing enabled. */
    OK(mpitev_reg_alloc(tindex(&nat_ev), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, native_event, NULL, NULL, 0));
    assert_true(MPITEV_ENABLED(&nat_ev));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, NULL, NULL, NULL, 0));
    assert_false(MPITEV_ENABLED(&nat_ev));
    nl.events = 0;
    MPITEV_RAISE(&nat_ev, &nat_src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ 1, 0 });
    assert_int_equal(drain_n(&nat_src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE), 0);
    assert_int_equal(nl.events, 0);
}

/* ---- MPITEV_ANY_ENABLED: true while some type has a registration with a callback. ---- */
static mpitev_type any_a, any_b;
static void any_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) { (void)i; (void)r; (void)s; (void)u; }
static void any_enabled_follows_the_sets(void **state) {
    (void)state;
    mpitev_type_desc ta = pair_desc("api_any_a", MPITEV_BIND_NO_OBJECT), tb = pair_desc("api_any_b", MPITEV_BIND_MPI_COMM);
    OK(mpitev_type_declare(&any_a, &ta));
    OK(mpitev_type_declare(&any_b, &tb));
    assert_false(MPITEV_ANY_ENABLED());
    mpitev_reg a1, a2, b1;
    OK(mpitev_reg_alloc(tindex(&any_a), NULL, NULL, 0, &a1));
    assert_false(MPITEV_ANY_ENABLED()); /* a registration without callback listens to nothing */
    OK(mpitev_reg_set_callback(a1, MPITEV_CB_REQUIRE_NONE, any_cb, NULL, NULL, 0));
    assert_true(MPITEV_ANY_ENABLED());
    OK(mpitev_reg_alloc(tindex(&any_a), NULL, NULL, 0, &a2));
    OK(mpitev_reg_set_callback(a2, MPITEV_CB_REQUIRE_NONE, any_cb, NULL, NULL, 0));
    assert_true(MPITEV_ENABLED(&any_a));
    assert_false(MPITEV_ENABLED(&any_b));
    static int key;
    OK(mpitev_reg_alloc(tindex(&any_b), &key, NULL, 0, &b1));
    OK(mpitev_reg_set_callback(b1, MPITEV_CB_REQUIRE_NONE, any_cb, NULL, NULL, 0));
    assert_true(MPITEV_ENABLED(&any_b));
    OK(mpitev_reg_free(a1, NULL, NULL));
    assert_true(MPITEV_ENABLED(&any_a)); /* a2 still listens */
    OK(mpitev_reg_set_callback(a2, MPITEV_CB_REQUIRE_NONE, NULL, NULL, NULL, 0));
    assert_false(MPITEV_ENABLED(&any_a)); /* its last callback removed */
    assert_true(MPITEV_ANY_ENABLED());
    OK(mpitev_reg_free(b1, NULL, NULL));
    assert_false(MPITEV_ANY_ENABLED());
    /* finalize frees a2, listened to again: nothing listened to after it, nor after re-init */
    OK(mpitev_reg_set_callback(a2, MPITEV_CB_REQUIRE_NONE, any_cb, NULL, NULL, 0));
    assert_true(MPITEV_ANY_ENABLED());
    OK(mpitev_finalize());
    assert_false(MPITEV_ANY_ENABLED());
    OK(mpitev_init());
    assert_false(MPITEV_ANY_ENABLED());
    OK(mpitev_reg_alloc(tindex(&any_a), NULL, NULL, 0, &a1));
    OK(mpitev_reg_set_callback(a1, MPITEV_CB_REQUIRE_NONE, any_cb, NULL, NULL, 0));
    assert_true(MPITEV_ANY_ENABLED());
    OK(mpitev_reg_free(a1, NULL, NULL));
    assert_false(MPITEV_ANY_ENABLED());
}

/* ---- The adapter-only entry points hand ext back untouched, for every kind. ---- */
static void ext_a(void) {}
static void ext_b(void) {}
static void ext_c(void) {}
static mpitev_fnptr got_event_ext, got_drop_ext, got_free_ext;
static int ext_events, ext_drops, ext_frees;
static void ext_event(const mpitev_instance *i, mpitev_reg r, int s, void *u, mpitev_fnptr e) {
    (void)i; (void)r; (void)s; (void)u;
    got_event_ext = e;
    ext_events++;
}
static void ext_dropped(mpitev_count_t c, mpitev_reg r, int si, int s, void *u, mpitev_fnptr e) {
    (void)c; (void)r; (void)si; (void)s; (void)u;
    got_drop_ext = e;
    ext_drops++;
}
static void ext_free(mpitev_reg r, int s, void *u, mpitev_fnptr e) {
    (void)r; (void)s; (void)u;
    got_free_ext = e;
    ext_frees++;
}

static void ext_entry_points_pass_ext(void **state) {
    (void)state;
    static mpitev_type ev;
    static mpitev_source src;
    OK(mpitev_source_declare(&src, &(mpitev_source_desc){ .name = "api_ext", .ordering = MPITEV_SOURCE_ORDERED,
                                                         .buffer_capacity = 2 }));
    mpitev_type_desc td = pair_desc("api_ext_ev", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &r));
    OK(mpitev__reg_set_dropped_handler_ext(r, ext_dropped, ext_b));
    OK(mpitev__reg_set_callback_ext(r, MPITEV_CB_REQUIRE_NONE, ext_event, NULL, ext_a, NULL, 0));
    for (int k = 0; k < 3; k++) MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ k, 0 });
    assert_int_equal(drain_n(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE), 2);
    assert_int_equal(ext_events, 2);
    assert_int_equal(ext_drops, 1);
    assert_true(got_event_ext == ext_a);
    assert_true(got_drop_ext == ext_b);
    OK(mpitev__reg_free_ext(r, NULL, ext_free, ext_c));
    OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL));
    assert_int_equal(ext_frees, 1);
    assert_true(got_free_ext == ext_c);
    /* Same argument checks as the native setters. */
    assert_int_equal(mpitev__reg_free_ext(r, NULL, ext_free, ext_c), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev__reg_set_callback_ext(r, 0, ext_event, NULL, ext_a, NULL, 0), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev__reg_set_dropped_handler_ext(r, ext_dropped, ext_b), MPITEV_ERR_INVALID_HANDLE);
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    assert_int_equal(mpitev__reg_set_callback_ext(r, MPITEV_CB_LEVELS, ext_event, NULL, ext_a, NULL, 0),
                     MPITEV_ERR_INVALID_ARG);
}

/* ---- Out-parameters: written on success, NULL allowed where the API says so. ---- */
static int frees_run;
static void count_free(mpitev_reg r, int s, void *u) { (void)r; (void)s; (void)u; frees_run++; }
static void freeing_event(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)s; (void)u;
    OK(mpitev_reg_free(r, NULL, count_free)); /* in flight: completes later */
}

static void out_parameters(void **state) {
    (void)state;
    static mpitev_type ev;
    static mpitev_source src;
    int flag = -1, idx = -5;
    OK(mpitev_initialized(&flag));
    assert_int_equal(flag, 1);
    assert_int_equal(mpitev_initialized(NULL), MPITEV_ERR_INVALID_ARG);
    /* index_of: nothing written for an object never declared. */
    assert_int_equal(mpitev_type_index_of(&ev, &idx), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(mpitev_source_index_of(&src, &idx), MPITEV_ERR_INVALID_ARG);
    assert_int_equal(idx, -5);
    int nt = -1, ns = -1;
    OK(mpitev_type_get_num(&nt));
    OK(mpitev_source_get_num(&ns));
    OK(mpitev_source_declare(&src, &(mpitev_source_desc){ .name = "api_out", .ordering = MPITEV_SOURCE_ORDERED }));
    mpitev_type_desc td = pair_desc("api_out_ev", MPITEV_BIND_NO_OBJECT);
    OK(mpitev_type_declare(&ev, &td));
    OK(mpitev_type_index_of(&ev, &idx));
    assert_int_equal(idx, nt);
    OK(mpitev_source_index_of(&src, &idx));
    assert_int_equal(idx, ns);
    assert_int_equal(mpitev_type_index_of(&ev, NULL), MPITEV_ERR_INVALID_ARG);
    /* reg_check: the three answers. */
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(&ev), NULL, &(mpitev_kv){ "mpitev_buffered", "true" }, 1, &r));
    OK(mpitev_reg_check(r));
    assert_int_equal(mpitev_reg_check((mpitev_reg){ r.bits ^ (UINT64_C(2) << 32) }), MPITEV_ERR_INVALID_HANDLE);
    assert_int_equal(mpitev_reg_check(MPITEV_REG_NULL), MPITEV_ERR_INVALID_HANDLE);
    /* drain: the number of callbacks run, or NULL; progress: the free callbacks run. */
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, freeing_event, NULL, NULL, 0));
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ 1, 2 });
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ 1, 2 });
    int n = -1;
    frees_run = 0;
    /* One record delivered (the callback frees the registration, the second record is
     * then not for anyone); the drain's own progress runs the free. */
    OK(mpitev_source_drain(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, &n));
    assert_int_equal(n, 1);
    assert_int_equal(frees_run, 1);
    assert_int_equal(mpitev_reg_check(r), MPITEV_ERR_INVALID_HANDLE);
    OK(mpitev_source_drain(&src, MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL));
    n = -1;
    OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, &n));
    assert_int_equal(n, 0);
    OK(mpitev_progress(MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, NULL));
    /* A free left pending (the raise that frees is still in flight when the free is
     * asked for): progress reports the one callback it runs. */
    OK(mpitev_reg_alloc(tindex(&ev), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, freeing_event, NULL, NULL, 0));
    frees_run = 0;
    MPITEV_RAISE(&ev, &src, NULL, MPITEV_CB_REQUIRE_NONE, &(struct pair){ 1, 2 });
    assert_int_equal(frees_run, 0);
    OK(mpitev_progress(MPITEV_CB_REQUIRE_NONE, &n));
    assert_int_equal(n, 1);
    assert_int_equal(frees_run, 1);
}

int main(void) {
    /* NULL restores malloc/free (before anything is declared, it still may). */
    mpitev_allocator counting = { counting_alloc, counting_free, NULL };
    if (mpitev_set_allocator(&counting) || mpitev_set_allocator(NULL)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(omitted_ordering_is_unordered_and_lossless, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(native_callbacks_through_trampoline, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(any_enabled_follows_the_sets, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(ext_entry_points_pass_ext, core_setup, core_teardown),
        cmocka_unit_test_setup_teardown(out_parameters, core_setup, core_teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    if (counted_allocs != 0) {
        fprintf(stderr, "the replaced allocator was called %ld times\n", counted_allocs);
        return 1;
    }
    return rc;
}
