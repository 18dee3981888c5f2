/* Test helpers over the status-code API: each asserts the call succeeded and returns the
 * out-parameter, so a test can compare counts and indices inline. Included after
 * <mpitev/mpitev.h> and the cmocka headers. */
#ifndef MPITEV_TEST_API_HELPERS_H
#define MPITEV_TEST_API_HELPERS_H

/* Index of a declared type / source (the call must succeed). */
static inline int tindex(const mpitev_type *t) {
    int i = -1;
    assert_int_equal(mpitev_type_index_of(t, &i), MPITEV_SUCCESS);
    return i;
}
static inline int sindex(const mpitev_source *s) {
    int i = -1;
    assert_int_equal(mpitev_source_index_of(s, &i), MPITEV_SUCCESS);
    return i;
}
/* 1 while initialised, else 0. */
static inline int is_initialized(void) {
    int f = -1;
    assert_int_equal(mpitev_initialized(&f), MPITEV_SUCCESS);
    return f;
}
/* Free callbacks run by one progress call. */
static inline int progress_n(int cb_safety) {
    int n = -1;
    assert_int_equal(mpitev_progress(cb_safety, &n), MPITEV_SUCCESS);
    return n;
}
/* Callbacks run by one drain call. */
static inline int drain_n(mpitev_source *s, int max, int cb_safety) {
    int n = -1;
    assert_int_equal(mpitev_source_drain(s, max, cb_safety, &n), MPITEV_SUCCESS);
    return n;
}

#endif
