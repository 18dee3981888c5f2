/* An allocator for mpitev_set_allocator that gives addresses back at once, as an MPI's
 * pooling allocator may (glibc's malloc rarely hands a freed block back so soon): a
 * block freed is pooled, filled with 0xA5 (a read of freed memory sees garbage), and the
 * next allocation of the same size and alignment takes the most recently pooled one.
 * Thread safe (one mutex). For tests of address reuse (core/test_set_reuse.c,
 * stress/stress_set_reuse.c). Needs _POSIX_C_SOURCE >= 200112L (posix_memalign). */
#ifndef MPITEV_TEST_LIFO_POOL_H
#define MPITEV_TEST_LIFO_POOL_H
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define LIFO_POOL_MAX 8192
static struct lifo_block {
    void *p;
    size_t size, align;
} lifo_pool_tab[LIFO_POOL_MAX];
static int lifo_pool_n;
static long lifo_pool_hits, lifo_pool_misses;
static pthread_mutex_t lifo_pool_mu = PTHREAD_MUTEX_INITIALIZER;

static void *lifo_pool_alloc(size_t size, size_t align, void *ctx) {
    (void)ctx;
    void *p = NULL;
    pthread_mutex_lock(&lifo_pool_mu);
    for (int i = lifo_pool_n - 1; i >= 0 && !p; i--)
        if (lifo_pool_tab[i].size == size && lifo_pool_tab[i].align == align) {
            p = lifo_pool_tab[i].p;
            memmove(&lifo_pool_tab[i], &lifo_pool_tab[i + 1], (size_t)(lifo_pool_n - i - 1) * sizeof lifo_pool_tab[0]);
            lifo_pool_n--;
        }
    if (p) lifo_pool_hits++;
    else lifo_pool_misses++;
    pthread_mutex_unlock(&lifo_pool_mu);
    if (!p && posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size)) return NULL;
    return p;
}

static void lifo_pool_free(void *p, size_t size, size_t align, void *ctx) {
    (void)ctx;
    memset(p, 0xA5, size);
    pthread_mutex_lock(&lifo_pool_mu);
    if (lifo_pool_n == LIFO_POOL_MAX) { /* the oldest back to libc */
        free(lifo_pool_tab[0].p);
        memmove(&lifo_pool_tab[0], &lifo_pool_tab[1], (size_t)(LIFO_POOL_MAX - 1) * sizeof lifo_pool_tab[0]);
        lifo_pool_n--;
    }
    lifo_pool_tab[lifo_pool_n].p = p;
    lifo_pool_tab[lifo_pool_n].size = size;
    lifo_pool_tab[lifo_pool_n].align = align;
    lifo_pool_n++;
    pthread_mutex_unlock(&lifo_pool_mu);
}
#endif
