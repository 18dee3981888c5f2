/* Registration churn against raisers and a drainer, with an allocator that hands the
 * last block freed of a size back first (an MPI's pooling allocator may; glibc's malloc
 * rarely does so soon) and poisons what it pools: registration sets, callback sets and
 * registration slots are given back and allocated again at the same addresses all the
 * time. Every delivery is checked: the callback's user data is a context whose free
 * callback has not run, the handle is that context's, the instance's type is its type,
 * the payload's type tag and object are its own. A test point in the library, where a
 * new set has been published and regver not yet bumped, now and then spins or yields
 * to widen that window.
 *   stress_set_reuse SECONDS          random churn: registrations allocated, callbacks
 *                                     replaced, removed and set again, frees
 *   stress_set_reuse SECONDS cycle    test_set_reuse.c's sequence, repeated without its
 *                                     handshake: a set freed while a drain's cache names
 *                                     it, another type's set published at its address
 *                                     while records of that type are raised
 * Exit 1 on any violation or if free callbacks != frees with a callback. The cycle mode
 * found the bug fixed in 63ea234 (the cache served a set allocated at a freed set's
 * address from the freed set's entry) in a second or two of the old code.
 * The library's test point (MPITEV__TEST_POINT) is the one internal name used. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void at_point(const char *name);
#define MPITEV__TEST_POINT(name) at_point(#name)
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include "../lifo_pool.h" /* LIFO, same size and alignment, freed blocks poisoned */

static _Atomic unsigned point_rng = 1;
static _Atomic long point_hits;
static void at_point(const char *name) {
    (void)name;
    unsigned r = atomic_fetch_add(&point_rng, 2654435761u);
    if ((r >> 24) < 64) { /* 1 in 4: spin a little, or yield */
        atomic_fetch_add(&point_hits, 1);
        if (r & 1) sched_yield();
        else for (volatile int i = 0; i < (int)((r >> 8) & 1023); i++) {}
    }
}

struct pl { int32_t tag; int32_t obj; int64_t seq; };
static const mpitev_element pl_el[] = { MPITEV_ELEMENT_OF(struct pl, tag, MPITEV_DTYPE_INT32),
                                        MPITEV_ELEMENT_OF(struct pl, obj, MPITEV_DTYPE_INT32),
                                        MPITEV_ELEMENT_OF(struct pl, seq, MPITEV_DTYPE_INT64) };
enum { NT = 4, NSRC = 2, NOBJ = 3 };
static mpitev_type types[NT];
static int tix[NT];
static mpitev_source srcs[NSRC];
static char objs[NOBJ]; /* object keys for the bound types */

static _Atomic long violations, delivered, dropped_n, freecbs, frees_with_cb;
static void fail(const char *what, long a, long b) {
    if (atomic_fetch_add(&violations, 1) < 20) fprintf(stderr, "stress_set_reuse: VIOLATION %s (%ld, %ld)\n", what, a, b);
}

#define MAXCTX (1 << 19) /* the run stops early when they are used up */
struct ctx {
    uint32_t magic;
    int t, obj;           /* obj -1: unbound */
    mpitev_reg reg;
    _Atomic int freed;    /* free callback ran */
};
static struct ctx *ctxs;
static _Atomic int nctx;

static void on_event(const mpitev_instance *inst, mpitev_reg reg, int cb_safety, void *ud) {
    (void)cb_safety;
    struct ctx *c = ud;
    atomic_fetch_add(&delivered, 1);
    if (!c || c < ctxs || c >= ctxs + MAXCTX || c->magic != 0xC0FFEE) { fail("bad user data", 0, 0); return; }
    if (atomic_load(&c->freed)) fail("delivery after free callback", c->t, (long)(c - ctxs));
    if (reg.bits != c->reg.bits) fail("handle is not the context's", (long)reg.bits, (long)c->reg.bits);
    int ti = -1;
    if (mpitev_instance_type(inst, &ti) != MPITEV_SUCCESS || ti != tix[c->t]) fail("instance type", ti, tix[c->t]);
    struct pl p;
    if (mpitev_instance_copy(inst, &p) != MPITEV_SUCCESS) { fail("copy", 0, 0); return; }
    if (p.tag != c->t) fail("payload tag is another type's", p.tag, c->t);
    if (c->obj >= 0 && p.obj != c->obj) fail("payload object is another object's", p.obj, c->obj);
}
static void on_dropped(mpitev_count_t n, mpitev_reg reg, int si, int s, void *ud) {
    (void)si; (void)s;
    struct ctx *c = ud;
    atomic_fetch_add(&dropped_n, (long)n);
    if (!c) return;
    if (c < ctxs || c >= ctxs + MAXCTX || c->magic != 0xC0FFEE) { fail("dropped: bad user data", 0, 0); return; }
    if (atomic_load(&c->freed)) fail("drop report after free callback", c->t, 0);
    if (reg.bits != c->reg.bits) fail("dropped: handle is not the context's", (long)reg.bits, (long)c->reg.bits);
}
static void on_free(mpitev_reg reg, int s, void *ud) {
    (void)s;
    struct ctx *c = ud;
    if (c->magic != 0xC0FFEE) { fail("free: bad user data", 0, 0); return; }
    if (reg.bits != c->reg.bits) fail("free: handle is not the context's", (long)reg.bits, (long)c->reg.bits);
    if (atomic_exchange(&c->freed, 1)) fail("free callback twice", c->t, 0);
    atomic_fetch_add(&freecbs, 1);
}

static atomic_int stop;
static uint64_t rng_next(uint64_t *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return *s; }

static int bound_type(int t) { return t >= 2; } /* (as declared in main) */
static void raise_one(int t, int si, int obj, int64_t seq) {
    struct pl p = { t, obj, seq };
    const void *key = bound_type(t) ? (const void *)&objs[obj] : NULL;
    MPITEV_RAISE(&types[t], &srcs[si], key, MPITEV_CB_REQUIRE_NONE, &p);
}

static atomic_int quiet[NT];
static int quiet_any;
/* Raiser 0 owns the ordered source (one producer); the others share the unordered one. */
static void *raiser(void *arg) {
    int id = (int)(intptr_t)arg;
    uint64_t s = 0x9E3779B97F4A7C15ull * (uint64_t)(id + 1);
    int64_t seq = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        uint64_t r = rng_next(&s);
        int t = (int)(r % NT), obj = (int)((r >> 8) % NOBJ);
        int si = id == 0 ? 0 : 1;
        if (atomic_load_explicit(&quiet[t], memory_order_relaxed)) continue;
        if (id == 0 && !quiet_any && (r >> 20) % 4 == 0) { /* a burst of three types */
            for (int k = 0; k < 3; k++) raise_one((t + k) % NT, 0, obj, ++seq);
        } else {
            raise_one(t, si, obj, ++seq);
        }
    }
    return NULL;
}

static atomic_int drain_paused;
static void *drainer(void *arg) {
    (void)arg;
    uint64_t s = 77;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        if (atomic_load_explicit(&drain_paused, memory_order_relaxed)) { sched_yield(); continue; }
        uint64_t r = rng_next(&s);
        for (int i = 0; i < NSRC; i++) {
            switch (r % 3) {
            case 0: MPITEV_DRAIN(&srcs[i], MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE); break;
            case 1: (void)mpitev_source_drain(&srcs[i], (int)(r >> 8) % 4 + 1, MPITEV_CB_REQUIRE_NONE, NULL); break;
            default: (void)mpitev_source_drain(&srcs[i], MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL); break;
            }
            r >>= 2;
        }
        if ((r & 63) == 0) (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    }
    return NULL;
}

/* The writer: up to K registrations per type; allocates, sets callbacks (sometimes
 * replacing the context), toggles dropped handlers, frees (with a free callback). */
enum { K = 3 };
static struct ctx *live[NT][K];

static struct ctx *new_ctx(int t, int obj) {
    int i = atomic_fetch_add(&nctx, 1);
    if (i >= MAXCTX) { atomic_store(&stop, 1); return NULL; }
    struct ctx *c = &ctxs[i];
    c->magic = 0xC0FFEE;
    c->t = t;
    c->obj = obj;
    return c;
}

static void *writer(void *arg) {
    (void)arg;
    uint64_t s = 1234567;
    static const char *const modes[] = { "true", "true", "false", "default" };
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        uint64_t r = rng_next(&s);
        int t = (int)(r % NT), k = (int)((r >> 4) % K);
        struct ctx *c = live[t][k];
        if (!c) {
            int bound = bound_type(t);
            int obj = bound ? (int)((r >> 8) % NOBJ) : -1;
            mpitev_kv hint = { MPITEV_HINT_BUFFERED, modes[(r >> 12) % 4] };
            mpitev_reg reg;
            if (mpitev_reg_alloc(tix[t], bound ? (const void *)&objs[obj] : NULL, &hint, 1, &reg) != MPITEV_SUCCESS) {
                fail("alloc", t, 0);
                continue;
            }
            c = new_ctx(t, obj);
            if (!c) break;
            c->reg = reg;
            if (mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_NONE, on_event, c, NULL, 0) != MPITEV_SUCCESS)
                fail("set cb", t, 0);
            if ((r >> 16) & 1) (void)mpitev_reg_set_dropped_handler(reg, on_dropped);
            live[t][k] = c;
        } else {
            switch ((r >> 16) % 5) {
            case 0: { /* a new context on the same registration: callbacks replaced */
                struct ctx *n = new_ctx(t, c->obj);
                if (!n) break;
                n->reg = c->reg;
                if (mpitev_reg_set_callback(c->reg, MPITEV_CB_REQUIRE_NONE, on_event, n, NULL, 0) != MPITEV_SUCCESS)
                    fail("replace cb", t, 0);
                /* the old context may still get records raised before (buffered): keep it
                 * live (no free callback for it) */
                live[t][k] = n;
                /* the free callback will be n's; c never gets one (not freed separately) */
                break;
            }
            case 1: /* callback removed then set again: the set shrinks and grows */
                (void)mpitev_reg_set_callback(c->reg, MPITEV_CB_REQUIRE_NONE, NULL, NULL, NULL, 0);
                (void)mpitev_reg_set_callback(c->reg, MPITEV_CB_REQUIRE_NONE, on_event, c, NULL, 0);
                break;
            default:
                if (mpitev_reg_free(c->reg, c, on_free) != MPITEV_SUCCESS) fail("free", t, 0);
                atomic_fetch_add(&frees_with_cb, 1);
                live[t][k] = NULL;
                break;
            }
        }
        if ((r >> 24) % 8 == 0) (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
        if ((r >> 28) % 16 == 0) MPITEV_DRAIN(&srcs[(r >> 32) & 1], MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE);
    }
    return NULL;
}


/* cycle: the writer repeats test_set_reuse's sequence without its handshake: R1 alone
 * on t0 (set S1) while the drainer is paused, R2 joins (S1 retired), the drainer resumes
 * (a slot for S1 filled), progress (S1 given back), then RB1 of t1's {RB1, RB2} freed: t1's
 * {RB2}, of S1's size, may land at S1's address; records of t1 raised meanwhile. */
static void usleep_(long us) { struct timespec ts = { 0, us * 1000 }; nanosleep(&ts, NULL); }
static struct ctx *cyc_reg(int t) {
    mpitev_kv hint = { MPITEV_HINT_BUFFERED, "true" };
    mpitev_reg reg;
    if (mpitev_reg_alloc(tix[t], NULL, &hint, 1, &reg) != MPITEV_SUCCESS) { fail("alloc", t, 0); return NULL; }
    struct ctx *c = new_ctx(t, -1);
    if (!c) return NULL;
    c->reg = reg;
    if (mpitev_reg_set_callback(reg, MPITEV_CB_REQUIRE_NONE, on_event, c, NULL, 0) != MPITEV_SUCCESS) fail("set cb", t, 0);
    return c;
}
static void cyc_free(struct ctx *c) {
    if (!c) return;
    if (mpitev_reg_free(c->reg, c, on_free) != MPITEV_SUCCESS) fail("free", c->t, 0);
    atomic_fetch_add(&frees_with_cb, 1);
}
static long cycles;
static int cycle_entries; /* 0: random churn; 1 or 2: the cycle, S1 with that many entries */
static void *writer_cycle(void *arg) {
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        int nn = cycle_entries; /* S1's entries (2: the cache's entry for several deliveries) */
        struct ctx *rb1 = cyc_reg(1), *rb2 = cyc_reg(1), *rb3 = nn > 1 ? cyc_reg(1) : NULL;
        for (int i = 0; i < 4; i++) { (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL); usleep_(20); }
        atomic_store(&drain_paused, 1);
        usleep_(50);
        struct ctx *r1 = cyc_reg(0), *r1b = nn > 1 ? cyc_reg(0) : NULL;
        usleep_(100); /* records of t0 naming S1 */
        if (quiet_any) atomic_store(&quiet[0], 1);
        struct ctx *r2 = cyc_reg(0);
        atomic_store(&drain_paused, 0);
        usleep_(100); /* the drainer serves S1's records: a slot for S1 */
        for (int i = 0; i < 6; i++) { (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL); usleep_(20); }
        if (quiet_any) atomic_store(&quiet[1], 0);
        cyc_free(rb1); /* t1's {RB2} published, maybe at S1's address */
        cycles++;
        usleep_(50);
        if (quiet_any) atomic_store(&quiet[1], 1);
        cyc_free(r1); cyc_free(r2); cyc_free(rb2); cyc_free(r1b); cyc_free(rb3);
        if (quiet_any) atomic_store(&quiet[0], 0);
        (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    }
    return NULL;
}

int main(int argc, char **argv) {
    double secs = argc > 1 ? atof(argv[1]) : 5;
    if (argc > 2) cycle_entries = strcmp(argv[2], "cycle2") == 0 ? 2 : strcmp(argv[2], "cycle") == 0 ? 1 : -1;
    if (cycle_entries < 0 || secs <= 0) {
        fprintf(stderr, "usage: stress_set_reuse SECONDS [cycle|cycle2]\n");
        return 2;
    }
    ctxs = calloc(MAXCTX, sizeof *ctxs);
    static const mpitev_allocator al = { lifo_pool_alloc, lifo_pool_free, NULL };
    if (mpitev_set_allocator(&al) != MPITEV_SUCCESS) return 2;
    if (mpitev_init() != MPITEV_SUCCESS) return 2;
    mpitev_source_desc sd[NSRC];
    memset(sd, 0, sizeof sd);
    sd[0].name = "reuse_ord"; sd[0].ordering = MPITEV_SOURCE_ORDERED; sd[0].buffer_capacity = 64;
    sd[1].name = "reuse_unord"; sd[1].ordering = MPITEV_SOURCE_UNORDERED; sd[1].buffer_capacity = 64;
    sd[1].buffered_by_default = 1;
    for (int i = 0; i < NSRC; i++)
        if (mpitev_source_declare(&srcs[i], &sd[i]) != MPITEV_SUCCESS) return 2;
    static const char *const names[NT] = { "reuse_t0", "reuse_t1", "reuse_b2", "reuse_b3" };
    for (int t = 0; t < NT; t++) {
        mpitev_type_desc d;
        memset(&d, 0, sizeof d);
        d.name = names[t];
        d.bind = t >= 2 ? MPITEV_BIND_MPI_COMM : MPITEV_BIND_NO_OBJECT;
        d.num_elements = 3;
        d.elements = pl_el;
        d.payload_size = sizeof(struct pl);
        if (mpitev_type_declare(&types[t], &d) != MPITEV_SUCCESS) return 2;
        if (mpitev_type_index_of(&types[t], &tix[t]) != MPITEV_SUCCESS) return 2;
    }
    /* cycle2: t1 raised only in the window, t0 not after R2 joins (else other records
     * keep replacing the single entry for several deliveries) */
    quiet_any = cycle_entries == 2;
    if (quiet_any) atomic_store(&quiet[1], 1);
    pthread_t th[5];
    pthread_create(&th[0], NULL, raiser, (void *)0);
    pthread_create(&th[1], NULL, raiser, (void *)1);
    pthread_create(&th[2], NULL, drainer, NULL);
    pthread_create(&th[3], NULL, cycle_entries ? writer_cycle : writer, NULL);
    struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
    nanosleep(&ts, NULL);
    atomic_store(&stop, 1);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    /* Free what is left and finalize: every free callback runs. */
    for (int t = 0; t < NT; t++)
        for (int k = 0; k < K; k++)
            if (live[t][k]) {
                (void)mpitev_reg_free(live[t][k]->reg, live[t][k], on_free);
                atomic_fetch_add(&frees_with_cb, 1);
            }
    for (int i = 0; i < NSRC; i++) (void)mpitev_source_drain(&srcs[i], MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL);
    if (mpitev_finalize() != MPITEV_SUCCESS) fail("finalize", 0, 0);
    if (atomic_load(&freecbs) != atomic_load(&frees_with_cb)) fail("free callbacks != frees", freecbs, frees_with_cb);
    printf("stress_set_reuse: %.1fs: %d contexts, %ld delivered, %ld dropped, %ld free callbacks, %ld test-point spins, "
           "pool %ld hits / %ld misses, %ld violations\n",
           secs, atomic_load(&nctx), atomic_load(&delivered), atomic_load(&dropped_n), atomic_load(&freecbs),
           atomic_load(&point_hits), lifo_pool_hits, lifo_pool_misses, atomic_load(&violations));
    if (cycle_entries) printf("cycles %ld\n", cycles);
    return atomic_load(&violations) ? 1 : 0;
}
