/* mpitev inside a library loaded with dlopen after the program's threads exist (a tool
 * or a language runtime that loads the MPI late): every thread, the ones that predate
 * the library too, starts at delivery depth 0 (the thread-local's initial image, which
 * the loader copies into the static TLS of existing threads as well). Checked by
 * behaviour: on an old thread, the main thread and a new thread, a raise whose callback
 * raises again is delivered at both levels (MPITEV_MAX_DEPTH 2), and one more level is
 * dropped and reported. A depth that started wrong on some thread would drop that
 * thread's instances at once, or deliver one level too many. */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "dlopen_room_lib.h"

static dlroom_raise_fn raise_fn;

/* One thread's view: delivered / dropped for a chain of 1 + nested raises. */
typedef struct seen {
    int delivered[3], dropped[3];
} seen;
static void look(seen *s) {
    for (int nested = 0; nested < 3; nested++) raise_fn(nested, &s->delivered[nested], &s->dropped[nested]);
}
static void check(const seen *s) {
    assert_int_equal(s->delivered[0], 1);
    assert_int_equal(s->dropped[0], 0);
    assert_int_equal(s->delivered[1], 2); /* a raise from a callback: one level deeper */
    assert_int_equal(s->dropped[1], 0);
    assert_int_equal(s->delivered[2], 2); /* a third level: too deep */
    assert_int_equal(s->dropped[2], 1);
}

static pthread_barrier_t loaded;
static seen old_seen, new_seen;
static void *old_thread(void *arg) {
    (void)arg;
    pthread_barrier_wait(&loaded); /* started before the library, runs its code after */
    pthread_barrier_wait(&loaded);
    look(&old_seen);
    return NULL;
}
static void *new_thread(void *arg) {
    (void)arg;
    look(&new_seen);
    return NULL;
}

static void every_thread_starts_with_its_room(void **state) {
    (void)state;
    pthread_t old, young;
    assert_int_equal(pthread_barrier_init(&loaded, NULL, 2), 0);
    assert_int_equal(pthread_create(&old, NULL, old_thread, NULL), 0);
    pthread_barrier_wait(&loaded); /* the old thread exists */
    void *lib = dlopen(DLROOM_LIB, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    /* (object pointers to function pointers through memcpy: ISO C has no conversion) */
    dlroom_setup_fn setup;
    dlroom_teardown_fn teardown;
    void *p = dlsym(lib, "dlroom_setup");
    assert_non_null(p);
    memcpy(&setup, &p, sizeof p);
    p = dlsym(lib, "dlroom_raise");
    assert_non_null(p);
    memcpy(&raise_fn, &p, sizeof p);
    p = dlsym(lib, "dlroom_teardown");
    assert_non_null(p);
    memcpy(&teardown, &p, sizeof p);
    assert_int_equal(setup(), 0);
    pthread_barrier_wait(&loaded); /* go */
    assert_int_equal(pthread_join(old, NULL), 0);
    check(&old_seen);
    seen main_seen;
    look(&main_seen);
    check(&main_seen);
    assert_int_equal(pthread_create(&young, NULL, new_thread, NULL), 0);
    assert_int_equal(pthread_join(young, NULL), 0);
    check(&new_seen);
    assert_int_equal(teardown(), 0);
    pthread_barrier_destroy(&loaded);
    /* (the library stays loaded: its TLS destructors and atexit work are the loader's) */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_thread_starts_with_its_room),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
