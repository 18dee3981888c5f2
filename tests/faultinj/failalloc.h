/* A counting allocator for mpitev_set_allocator that can fail on command: the k-th
 * allocation from now (once), or every allocation from now on. It checks that every
 * free gives back a live block with the size and alignment it was allocated with, and
 * counts what is live, so a test can tell exactly what a sequence of calls kept.
 * fa_malloc / fa_mfree are the same for malloc-style callers (the adapter's scratch
 * memory, MPITEV_ADAPTER_MALLOC, and a fake MPI's own objects): counted and failed
 * alike, their blocks told apart from sized ones (align 0).
 * Single-threaded use, or calls serialised by the caller (mpitev allocates only under
 * its registry mutex, and at declaration). Include once per program. */
#ifndef MPITEV_TEST_FAILALLOC_H
#define MPITEV_TEST_FAILALLOC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpitev/mpitev.h>

typedef struct fa_block {
    void *p;
    size_t size, align;
} fa_block;

typedef struct fa_state {
    long allocs;       /* successful allocations */
    long frees;
    long live;         /* allocs - frees */
    long attempts;     /* every call, failed ones included */
    long fail_at;      /* fail the attempt with this number (once); -1: none */
    int fail_all;      /* non-zero: every attempt fails */
    long failed;       /* attempts failed on command */
    long errors;       /* bad frees (unknown block, wrong size or alignment) */
    fa_block *tab;     /* open addressing on the pointer; cap a power of two */
    size_t cap, used;
} fa_state;

static fa_state fa;
/* Every attempt from this number on fails (-1: off). */
static long fa_fail_from_attempt = -1;

static size_t fa_hash(const void *p, size_t cap) {
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= (uintptr_t)0x9E3779B97F4A7C15ull;
    return (size_t)(x >> 7) & (cap - 1);
}

static void fa_insert(void *p, size_t size, size_t align);
static void fa_grow(void) {
    fa_block *old = fa.tab;
    size_t ocap = fa.cap;
    fa.cap = ocap ? ocap * 2 : 1024;
    fa.tab = (fa_block *)calloc(fa.cap, sizeof *fa.tab);
    if (!fa.tab) abort();
    fa.used = 0;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].p && old[i].p != (void *)1) fa_insert(old[i].p, old[i].size, old[i].align);
    free(old);
}
static void fa_insert(void *p, size_t size, size_t align) {
    if ((fa.used + 1) * 2 > fa.cap) fa_grow();
    size_t i = fa_hash(p, fa.cap);
    while (fa.tab[i].p && fa.tab[i].p != (void *)1) i = (i + 1) & (fa.cap - 1);
    if (!fa.tab[i].p) fa.used++;
    fa.tab[i].p = p;
    fa.tab[i].size = size;
    fa.tab[i].align = align;
}
/* Removes p; returns 0 if it was not live or did not match size and alignment. */
static int fa_remove(void *p, size_t size, size_t align) {
    if (!fa.cap) return 0;
    size_t i = fa_hash(p, fa.cap);
    while (fa.tab[i].p) {
        if (fa.tab[i].p == p) {
            int ok = fa.tab[i].size == size && fa.tab[i].align == align;
            fa.tab[i].p = (void *)1; /* tombstone */
            return ok;
        }
        i = (i + 1) & (fa.cap - 1);
    }
    return 0;
}

static void *fa_alloc(size_t size, size_t align, void *ctx) {
    (void)ctx;
    long n = fa.attempts++;
    if (fa.fail_all || n == fa.fail_at || (fa_fail_from_attempt >= 0 && n >= fa_fail_from_attempt)) {
        fa.failed++;
        return NULL;
    }
    if (size == 0 || align == 0 || (align & (align - 1)) != 0 || align > 4096) {
        fa.errors++;
        return NULL;
    }
    size_t a = align < sizeof(void *) ? sizeof(void *) : align;
    void *p = aligned_alloc(a, (size + a - 1) / a * a);
    if (!p) return NULL;
    fa_insert(p, size, align);
    fa.allocs++;
    fa.live++;
    return p;
}
static void fa_free(void *p, size_t size, size_t align, void *ctx) {
    (void)ctx;
    if (!p || !fa_remove(p, size, align)) {
        fa.errors++;
        fprintf(stderr, "failalloc: bad free of %p (%zu, %zu)\n", p, size, align);
        return; /* not ours: leak rather than corrupt */
    }
    fa.frees++;
    fa.live--;
    free(p);
}

/* malloc-style: one attempt like fa_alloc; freed by fa_mfree only. */
static inline void *fa_malloc(size_t size) {
    long n = fa.attempts++;
    if (fa.fail_all || n == fa.fail_at || (fa_fail_from_attempt >= 0 && n >= fa_fail_from_attempt)) {
        fa.failed++;
        return NULL;
    }
    void *p = malloc(size ? size : 1);
    if (!p) return NULL;
    fa_insert(p, size, 0);
    fa.allocs++;
    fa.live++;
    return p;
}
static inline void fa_mfree(void *p) {
    if (!p) return;
    size_t i = fa.cap ? fa_hash(p, fa.cap) : 0;
    while (fa.cap && fa.tab[i].p && fa.tab[i].p != p) i = (i + 1) & (fa.cap - 1);
    if (!fa.cap || fa.tab[i].p != p || fa.tab[i].align != 0) {
        fa.errors++;
        fprintf(stderr, "failalloc: bad free of %p (malloc-style)\n", p);
        return;
    }
    fa.tab[i].p = (void *)1; /* tombstone */
    fa.frees++;
    fa.live--;
    free(p);
}

/* Install once, before anything is declared. */
static inline int fa_install(void) {
    static const mpitev_allocator a = { fa_alloc, fa_free, NULL };
    fa.fail_at = -1;
    return mpitev_set_allocator(&a);
}
/* Fail only the k-th allocation attempt from now (k = 0: the next one). */
static inline void fa_fail_nth(long k) { fa.fail_at = fa.attempts + k; fa.fail_all = 0; }
static inline void fa_fail_from_now(void) { fa.fail_all = 1; }
static inline void fa_ok(void) { fa.fail_at = -1; fa.fail_all = 0; }

#endif
