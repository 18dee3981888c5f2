/* Shared helpers for the core unit tests. Included once, by a TU that has already
 * included <mpitev/mpitev.h> (with MPITEV_IMPLEMENTATION) and the cmocka headers. */
#ifndef MPITEV_CORE_TEST_H
#define MPITEV_CORE_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "../api_helpers.h"

#define OK(expr) assert_int_equal((expr), MPITEV_SUCCESS)

/* A clock the test controls: returns *value, and counts calls. */
typedef struct test_clock {
    int64_t value;
    int calls;
} test_clock;
static inline int64_t test_clock_now(void *ctx) {
    test_clock *c = (test_clock *)ctx;
    c->calls++;
    return c->value;
}

/* One simple payload type used by many tests. */
struct pair {
    int32_t a;
    int64_t b;
};
static const mpitev_element pair_elems[] = {
    MPITEV_ELEMENT_OF(struct pair, a, MPITEV_DTYPE_INT32),
    MPITEV_ELEMENT_OF(struct pair, b, MPITEV_DTYPE_INT64),
};

static inline mpitev_type_desc pair_desc(const char *name, int bind) {
    mpitev_type_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.verbosity = MPITEV_VERBOSITY_USER_BASIC;
    d.bind = bind;
    d.elements = pair_elems;
    d.num_elements = 2;
    d.payload_size = sizeof(struct pair);
    return d;
}

static inline mpitev_source_desc src_desc(const char *name, int ordering, const mpitev_clock *clk) {
    mpitev_source_desc d;
    memset(&d, 0, sizeof d);
    d.name = name;
    d.ordering = ordering;
    d.clock = clk;
    return d;
}

/* Each test starts initialised with no registration; teardown finalizes (which frees
 * every registration) until the registry is down. Declarations persist across tests
 * (they live for the process): fixtures declare static objects with equal descriptors
 * (a no-op after the first time) or objects with names of their own. */
static inline int core_setup(void **state) {
    (void)state;
    if (is_initialized()) return -1;
    return mpitev_init() == MPITEV_SUCCESS ? 0 : -1;
}
static inline int core_teardown(void **state) {
    (void)state;
    while (is_initialized())
        if (mpitev_finalize() != MPITEV_SUCCESS) return -1;
    return 0;
}

/* A recorder of event callback invocations. */
#define REC_MAX 64
typedef struct rec_call {
    int tag;          /* which callback (user chosen) */
    int cb_safety;
    int type_index;
    int source_index;
    int64_t ts;
    uint64_t reg;
    struct pair p;    /* valid if the type is a pair type */
} rec_call;
typedef struct recorder {
    int n;
    rec_call calls[REC_MAX];
} recorder;

/* user_data for recording callbacks: a tag and the shared recorder. */
typedef struct rec_ud {
    int tag;
    recorder *rec;
} rec_ud;

static inline void rec_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    rec_ud *u = (rec_ud *)ud;
    assert_non_null(u);
    assert_true(u->rec->n < REC_MAX);
    rec_call *c = &u->rec->calls[u->rec->n++];
    memset(c, 0, sizeof *c);
    c->tag = u->tag;
    c->cb_safety = cb_safety;
    c->reg = reg.bits;
    OK(mpitev_instance_type(inst, &c->type_index));
    OK(mpitev_instance_source(inst, &c->source_index));
    OK(mpitev_instance_timestamp(inst, &c->ts));
}

/* A registration on t (no object, the default delivery) whose callback at
 * MPITEV_CB_REQUIRE_NONE is rec_cb with u. */
static inline mpitev_reg rec_listen(mpitev_type *t, rec_ud *u) {
    mpitev_reg r;
    OK(mpitev_reg_alloc(tindex(t), NULL, NULL, 0, &r));
    OK(mpitev_reg_set_callback(r, MPITEV_CB_REQUIRE_NONE, rec_cb, u, NULL, 0));
    return r;
}

/* Like rec_cb but also reads a struct pair payload (copy). */
static inline void rec_pair_cb(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    rec_cb(inst, reg, cb_safety, ud);
    rec_ud *u = (rec_ud *)ud;
    OK(mpitev_instance_copy(inst, &u->rec->calls[u->rec->n - 1].p));
}

#endif
