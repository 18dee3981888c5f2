/* mpitev implementation: the registry state, allocator, mutex and small helpers.
 * Compiled only in the translation unit that defines MPITEV_IMPLEMENTATION. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/impl_common.h is internal: include <mpitev/mpitev.h> instead"
#endif

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MPITEV__MAX_TYPES 4096
#define MPITEV__CHUNK_SLOTS 64
#define MPITEV__MAX_CHUNKS 16384 /* up to 1M registrations alive or in grace at once */

/* Something unpublished that readers may still hold: freed after a grace period. */
typedef struct mpitev__retired {
    struct mpitev__retired *next;
    uint64_t epoch;          /* grace epoch current when it was unpublished */
    int kind;                /* MPITEV__RETIRED_MEMORY, _REGISTRATION or _SET */
    size_t size;             /* memory: bytes and alignment to give back to the allocator */
    size_t align;
} mpitev__retired;
/* _SET: a registration set that buffered records may reference; freed after its grace
 * period and the drains (impl_buffer.h). Plain sets are _MEMORY. */
enum { MPITEV__RETIRED_MEMORY = 0, MPITEV__RETIRED_REGISTRATION = 1, MPITEV__RETIRED_SET = 2 };

/* Owned copies of info hints (writer side only, under the registry mutex). */
typedef struct mpitev__kvlist {
    int n, cap;
    mpitev_kv *kv;
} mpitev__kvlist;

/* The callbacks of one registration. Immutable once published; replaced as a whole
 * (copy on write) so a raise never sees a function with another callback's user_data. */
typedef struct mpitev__cbset {
    mpitev__retired retired;             /* must stay first */
    mpitev_event_cb fn[MPITEV_CB_LEVELS];
    void *ud[MPITEV_CB_LEVELS];
    mpitev_fnptr ext[MPITEV_CB_LEVELS];
    /* pick[r]: the registered level used at a raise site requiring r, that is the lowest
     * level >= r with a callback (Table 21), or -1: no safe callback, the instance drops. */
    signed char pick[MPITEV_CB_LEVELS];
    int ncallbacks;
    mpitev_dropped_cb dropped;
    mpitev_fnptr dropped_ext;
} mpitev__cbset;

/* A registration slot. Slots live in chunks that are never freed before finalize, so a
 * handle can always be checked against the slot's generation without a dangling read. */
typedef struct mpitev__slot {
    mpitev__retired retired;             /* used while the free waits for its grace */
    _Atomic uint32_t gen;                /* odd: allocated; even: free or being freed */
    uint32_t index;
    mpitev_type *type;
    const void *object;
    int bound;
    _Atomic(mpitev__cbset *) cbs;        /* NULL or the current callbacks */
    int in_set;                          /* writer side: listed in type->mpitev__regs */
    int zombie;                          /* could not be unlisted (no memory): never reused */
    int buffered;                        /* MPITEV__BUF_OFF / _ON / _SOURCE (impl_buffer.h) */
    mpitev__kvlist info;
    mpitev__kvlist cbinfo[MPITEV_CB_LEVELS];
    mpitev_free_cb free_cb;
    void *free_ud;
    mpitev_fnptr free_ext;
    struct mpitev__slot *next_free;
    /* Unreported drops per source; only counted while a dropped handler is set. */
    _Atomic uint64_t drops[MPITEV_MAX_SOURCES];
    /* Free of a buffered registration: producer positions of each source taken after
     * the grace period; the free completes once every drain has passed them. */
    int bufsnap_taken;
    uint64_t bufsnap[MPITEV_MAX_SOURCES];
} mpitev__slot;

/* One entry of a type's registration set: copies of what the raise and drain paths
 * need, so they touch the slot only to re-check the generation and load the callbacks. */
typedef struct mpitev__regref {
    mpitev__slot *slot;
    uint64_t handle;
    const void *object;
    int bound;
    int buffered;                        /* copy of the slot's mode */
} mpitev__regref;

/* What a raise on a source must do with a set (mpitev__regset.need). */
enum { MPITEV__NEED_RING = 1, MPITEV__NEED_NOW = 2 };

/* A type's registration set: immutable once published. Buffered records reference it
 * (docs/buffers.md), so a set that may be referenced outlives its grace period until
 * the drains have consumed those records (bufsnap; kind MPITEV__RETIRED_SET). */
struct mpitev__regset {
    mpitev__retired retired;             /* must stay first */
    /* Raise-side header, precomputed at publish time. need[d]: what a raise on a source
     * with buffered_by_default == d does: MPITEV__NEED_RING (some entry buffers there),
     * MPITEV__NEED_NOW (some entry is delivered immediately there). */
    unsigned char need[2];
    int n;
    mpitev_type *type;
    size_t extent;                       /* type->mpitev__extent: payload bytes a record copies */
    int n_on;                            /* entries buffered on every source ("true") */
    int n_src;                           /* entries following the source ("default") */
    size_t bytes;                        /* allocation size */
    /* Drain side, precomputed at publish time: [bref[d], bend[d]) are copies, in set
     * order, of the entries buffered on a source with buffered_by_default == d (mode
     * "true", plus "default" when d == 1), so the drain tests no mode per entry. They
     * follow ref[] (empty when no entry buffers). */
    const struct mpitev__regref *bref[2], *bend[2];
    /* Producer positions taken when the grace period ended (MPITEV_MAX_SOURCES entries,
     * after the lists), or NULL when no entry ever buffers. */
    uint64_t *bufsnap;
    int bufsnap_taken;
    mpitev__regref ref[];
};

typedef struct mpitev__state_s {
    pthread_mutex_t lock;                /* serialises every registry writer */
    int refcount;                        /* mpitev_init calls minus finalize calls */
    _Atomic int initialized;
    mpitev_allocator alloc;
    int alloc_set;
    /* Catalog: published with release on the count, read lock-free with acquire. */
    _Atomic(mpitev_type *) types[MPITEV__MAX_TYPES];
    _Atomic int ntypes;
    _Atomic(mpitev_source *) sources[MPITEV_MAX_SOURCES];
    _Atomic int nsources;
    /* Registration slots. */
    _Atomic(mpitev__slot *) chunks[MPITEV__MAX_CHUNKS];
    _Atomic uint32_t nslots;             /* slots that exist (chunks * CHUNK_SLOTS) */
    mpitev__slot *free_slots;
    /* Grace periods (impl_grace.h). */
    _Atomic uint64_t epoch;
    int flip_outstanding;
    uint64_t waiting_epoch;
    mpitev__retired *retired_head;
    mpitev__retired **retired_tail;
    int reclaiming;                      /* a thread is running completions */
    /* Frees past their grace period that wait for drains (impl_buffer.h). */
    mpitev__retired *bufwait_head;
} mpitev__state_t;

MPITEV_API mpitev__state_t mpitev__state;
mpitev__state_t mpitev__state = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Nesting depth of deliveries on this thread (callbacks that raise). */
static _Thread_local int mpitev__tls_depth;

#define mpitev__S (&mpitev__state)

static void *mpitev__default_alloc(size_t size, size_t align, void *ctx) {
    (void)ctx;
    if (align <= _Alignof(max_align_t)) return malloc(size);
    size = (size + align - 1) & ~(align - 1);
    return aligned_alloc(align, size);
}
static void mpitev__default_free(void *p, size_t size, size_t align, void *ctx) {
    (void)size; (void)align; (void)ctx;
    free(p);
}

static void *mpitev__alloc(size_t size, size_t align) {
    if (size == 0) size = 1;
    return mpitev__S->alloc.alloc(size, align, mpitev__S->alloc.ctx);
}
static void *mpitev__zalloc(size_t size, size_t align) {
    void *p = mpitev__alloc(size, align);
    if (p) memset(p, 0, size);
    return p;
}
static void mpitev__free(void *p, size_t size, size_t align) {
    if (p) mpitev__S->alloc.free(p, size == 0 ? 1 : size, align, mpitev__S->alloc.ctx);
}

static char *mpitev__strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = (char *)mpitev__alloc(n, 1);
    if (d) memcpy(d, s, n);
    return d;
}
static void mpitev__strfree(const char *s) {
    if (s) mpitev__free((void *)(uintptr_t)s, strlen(s) + 1, 1);
}

/* ---- Info hint lists (writer side). ---- */
static void mpitev__kv_clear(mpitev__kvlist *l) {
    for (int i = 0; i < l->n; i++) {
        mpitev__strfree(l->kv[i].key);
        mpitev__strfree(l->kv[i].value);
    }
    mpitev__free(l->kv, sizeof(mpitev_kv) * (size_t)l->cap, _Alignof(mpitev_kv));
    l->kv = NULL;
    l->n = l->cap = 0;
}

static int mpitev__kv_check(const mpitev_kv *kv, int n) {
    if (n < 0 || (n > 0 && kv == NULL)) return MPITEV_ERR_INVALID_ARG;
    for (int i = 0; i < n; i++)
        if (kv[i].key == NULL || kv[i].key[0] == '\0' || kv[i].value == NULL)
            return MPITEV_ERR_INVALID_ARG;
    return MPITEV_SUCCESS;
}

/* Set key to value, replacing an existing value. */
static int mpitev__kv_put(mpitev__kvlist *l, const char *key, const char *value) {
    for (int i = 0; i < l->n; i++) {
        if (strcmp(l->kv[i].key, key) == 0) {
            char *v = mpitev__strdup(value);
            if (!v) return MPITEV_ERR_NO_MEM;
            mpitev__strfree(l->kv[i].value);
            l->kv[i].value = v;
            return MPITEV_SUCCESS;
        }
    }
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        mpitev_kv *nkv = (mpitev_kv *)mpitev__alloc(sizeof(mpitev_kv) * (size_t)cap, _Alignof(mpitev_kv));
        if (!nkv) return MPITEV_ERR_NO_MEM;
        if (l->n) memcpy(nkv, l->kv, sizeof(mpitev_kv) * (size_t)l->n);
        mpitev__free(l->kv, sizeof(mpitev_kv) * (size_t)l->cap, _Alignof(mpitev_kv));
        l->kv = nkv;
        l->cap = cap;
    }
    char *k = mpitev__strdup(key), *v = mpitev__strdup(value);
    if (!k || !v) {
        mpitev__strfree(k);
        mpitev__strfree(v);
        return MPITEV_ERR_NO_MEM;
    }
    l->kv[l->n].key = k;
    l->kv[l->n].value = v;
    l->n++;
    return MPITEV_SUCCESS;
}

static const char *mpitev__kv_get(const mpitev__kvlist *l, const char *key) {
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->kv[i].key, key) == 0) return l->kv[i].value;
    return NULL;
}

static void mpitev__kv_visit(const mpitev__kvlist *l, mpitev_kv_visit_fn visit, void *ctx) {
    for (int i = 0; i < l->n; i++)
        if (visit(l->kv[i].key, l->kv[i].value, ctx)) return;
}

static int mpitev__lock_initialized(void) {
    pthread_mutex_lock(&mpitev__S->lock);
    if (mpitev__S->refcount == 0) {
        pthread_mutex_unlock(&mpitev__S->lock);
        return 0;
    }
    return 1;
}
static void mpitev__unlock(void) { pthread_mutex_unlock(&mpitev__S->lock); }

static int mpitev__is_initialized(void) {
    return atomic_load_explicit(&mpitev__S->initialized, memory_order_acquire);
}

static int mpitev__valid_safety(int s) { return s >= MPITEV_CB_REQUIRE_NONE && s < MPITEV_CB_LEVELS; }

static mpitev_count_t mpitev__saturate(uint64_t c) {
    return c > (uint64_t)MPITEV_COUNT_MAX ? MPITEV_COUNT_MAX : (mpitev_count_t)c;
}
