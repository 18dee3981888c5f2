/* Soak: raising threads on ordered and unordered sources, a signal handler raising at
 * MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE on its own ordered source, a drainer, and
 * registration churn (callbacks replaced across safety levels, dropped handlers
 * toggled, frees with free callbacks). Checks:
 *  - exact accounting: a witness registration per source, listening from before the
 *    first raise to after the last with a dropped handler throughout, gets
 *    delivered + dropped == raised on its source;
 *  - per-source order: the witness sees each producer's sequence numbers increasing;
 *  - every free callback runs exactly once (counted frees == free callbacks at the end);
 *  - memory stays bounded: what the library holds through its allocator (a counting
 *    one, tests/counting_alloc.h; its peak, every run: at most SOAK_MAX_MIB, a few
 *    grace periods' and drains' worth of frees; the reclamation that fell behind held
 *    260 k registration slots, hundreds of MiB, within 30 s) and resident memory (the
 *    second half of the run against the first; long runs of 30 s or more only, without
 *    sanitizers).
 * Usage: soak [seconds] (default 2: the CI short mode, run under TSan too). */
#define MPITEV_IMPLEMENTATION
#include <mpitev/mpitev.h>

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../counting_alloc.h"

/* Sanitizers keep shadow memory and quarantines that grow with the allocations made:
 * there the resident memory is not checked (the library's own bytes, counted by the
 * allocator, are). */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SOAK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SOAK_SANITIZED 1
#endif
#endif
#ifndef SOAK_SANITIZED
#define SOAK_SANITIZED 0
#endif

enum { S_ORD1, S_ORD2, S_UNORD, S_SIG, NSRC };
enum { NUNORD_THREADS = 2, NPROD = 2 + NUNORD_THREADS + 1 }; /* producers: ord1, ord2, unord x2, sig */
struct ev { int32_t producer; int64_t seq; };
static const mpitev_element ev_el[] = { MPITEV_ELEMENT_OF(struct ev, producer, MPITEV_DTYPE_INT32),
                                        MPITEV_ELEMENT_OF(struct ev, seq, MPITEV_DTYPE_INT64) };
static mpitev_source srcs[NSRC];
static mpitev_type ev_type;

static atomic_int stop;
static atomic_long raised[NSRC];

static void fail(const char *what, long a, long b) {
    fprintf(stderr, "soak: FAILED: %s (%ld, %ld)\n", what, a, b);
    abort();
}

/* ---- The witness: one buffered registration, a callback at every level would be
 * equivalent; one at ASYNC_SIGNAL_SAFE serves every raise level (Table 21). ---- */
static atomic_long w_delivered[NSRC], w_dropped[NSRC];
static int64_t w_last[NPROD]; /* written by the drainer only (one drainer) */
static void w_cb(const mpitev_instance *inst, mpitev_reg r, int s, void *u) {
    (void)r; (void)s; (void)u;
    int si = -1;
    struct ev e;
    if (mpitev_instance_source(inst, &si) || mpitev_instance_copy(inst, &e)) fail("witness accessors", 0, 0);
    if (e.producer < 0 || e.producer >= NPROD) fail("producer", e.producer, 0);
    if (e.seq <= w_last[e.producer]) fail("order within a producer", e.seq, w_last[e.producer]);
    w_last[e.producer] = e.seq;
    atomic_fetch_add(&w_delivered[si], 1);
}
static void w_dropped_cb(mpitev_count_t n, mpitev_reg r, int si, int s, void *u) {
    (void)r; (void)s; (void)u;
    atomic_fetch_add(&w_dropped[si], (long)n);
}

/* ---- Producers. ---- */
static void raise_on(int s, int producer, int64_t seq, int level) {
    atomic_fetch_add_explicit(&raised[s], 1, memory_order_relaxed);
    MPITEV_RAISE(&ev_type, &srcs[s], NULL, level, &(struct ev){ producer, seq });
}
typedef struct prod { int src, producer; } prod;
static void *producer_main(void *arg) {
    prod *p = (prod *)arg;
    int64_t seq = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        ++seq;
        raise_on(p->src, p->producer, seq, (int)(seq % 3)); /* NONE .. THREAD_SAFE */
        if ((seq & 255) == 0) sched_yield();
    }
    return NULL;
}

/* The signal handler raises on its own ordered source (one control flow: handlers of
 * this signal do not nest, and nothing else raises there). */
static int64_t sig_seq;
static void on_signal(int sig) {
    (void)sig;
    raise_on(S_SIG, NPROD - 1, ++sig_seq, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
}
static pthread_t sig_target;
static void *signaller_main(void *arg) {
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        pthread_kill(sig_target, SIGUSR1);
        struct timespec ts = { 0, 50000 };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* ---- The drainer (the MPI's progress engine). ---- */
static void *drainer_main(void *arg) {
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        for (int s = 0; s < NSRC; s++) (void)mpitev_source_drain(&srcs[s], 64, MPITEV_CB_REQUIRE_NONE, NULL);
        (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    }
    return NULL;
}

/* ---- Registration churn. ---- */
static atomic_long churn_frees, churn_free_cbs, churn_events;
static void c_cb(const mpitev_instance *i, mpitev_reg r, int s, void *u) {
    (void)i; (void)r; (void)s; (void)u;
    atomic_fetch_add_explicit(&churn_events, 1, memory_order_relaxed);
}
static void c_dropped(mpitev_count_t n, mpitev_reg r, int si, int s, void *u) { (void)n; (void)r; (void)si; (void)s; (void)u; }
static void c_free(mpitev_reg r, int s, void *u) {
    (void)r; (void)s; (void)u;
    atomic_fetch_add(&churn_free_cbs, 1);
}
static void *churn_main(void *arg) {
    (void)arg;
    unsigned x = 12345;
    mpitev_reg regs[8];
    int have[8] = { 0 };
    static const char *const modes[] = { "true", "false", "default" };
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        x = x * 1103515245u + 12345u;
        int i = (int)(x >> 16) % 8, what = (int)(x >> 8) % 5;
        if (!have[i]) {
            mpitev_kv kv = { MPITEV_HINT_BUFFERED, modes[(x >> 4) % 3] };
            int ti;
            if (mpitev_type_index_of(&ev_type, &ti) || mpitev_reg_alloc(ti, NULL, &kv, 1, &regs[i])) fail("alloc", 0, 0);
            have[i] = 1;
        } else if (what == 0) {
            if (mpitev_reg_free(regs[i], NULL, c_free)) fail("free", 0, 0);
            atomic_fetch_add(&churn_frees, 1);
            have[i] = 0;
        } else if (what <= 2) { /* replace or remove a callback at some level */
            int lv = (int)(x >> 3) % 4;
            if (mpitev_reg_set_callback(regs[i], lv, (x & 1) ? c_cb : NULL, NULL, NULL, 0)) fail("set_callback", 0, 0);
        } else {
            if (mpitev_reg_set_dropped_handler(regs[i], (x & 2) ? c_dropped : NULL)) fail("dropped handler", 0, 0);
        }
    }
    for (int i = 0; i < 8; i++)
        if (have[i]) {
            if (mpitev_reg_free(regs[i], NULL, c_free)) fail("free", 0, 0);
            atomic_fetch_add(&churn_frees, 1);
        }
    return NULL;
}

/* ---- Memory: what the library holds through its allocator (sampled every 100 ms, and
 * its peak at the end) and resident memory. ---- */
enum { SOAK_MAX_MIB = 64 };
static long library_mib(long bytes) { return bytes >> 20; }
static void *memory_watch_main(void *arg) {
    (void)arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        long mib = library_mib(atomic_load(&counting_bytes));
        if (mib > SOAK_MAX_MIB) fail("library memory above the bound (MiB)", mib, SOAK_MAX_MIB);
        struct timespec ts = { 0, 100000000 };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static long rss_kb(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, res = 0;
    if (!f) return 0;
    if (fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
    fclose(f);
    return res * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    if (mpitev_set_allocator(&counting_allocator) || mpitev_init()) return 1;
    static const char *const names[NSRC] = { "soak_ord1", "soak_ord2", "soak_unord", "soak_sig" };
    for (int s = 0; s < NSRC; s++) {
        mpitev_source_desc d = { .name = names[s],
                                 .ordering = s == S_UNORD ? MPITEV_SOURCE_UNORDERED : MPITEV_SOURCE_ORDERED,
                                 .buffer_capacity = 1024 };
        if (mpitev_source_declare(&srcs[s], &d)) fail("source", s, 0);
    }
    mpitev_type_desc td = { .name = "soak_ev", .num_elements = 2, .elements = ev_el, .payload_size = sizeof(struct ev) };
    if (mpitev_type_declare(&ev_type, &td)) fail("type", 0, 0);
    mpitev_reg witness;
    mpitev_kv buffered = { MPITEV_HINT_BUFFERED, "true" };
    if (mpitev_reg_alloc(0, NULL, &buffered, 1, &witness) || mpitev_reg_set_dropped_handler(witness, w_dropped_cb) ||
        mpitev_reg_set_callback(witness, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, w_cb, NULL, NULL, 0))
        fail("witness", 0, 0);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &sa, NULL);

    /* Producers: ord1 on this thread's sibling, ord2, two unordered; the signal lands on
     * the ord1 producer (its handler raises on soak_sig, not on soak_ord1). */
    static prod p[4] = { { S_ORD1, 0 }, { S_ORD2, 1 }, { S_UNORD, 2 }, { S_UNORD, 3 } };
    pthread_t th[4], sig_th, drain_th, churn_th;
    int rc = 0;
    for (int i = 0; i < 4; i++) rc |= pthread_create(&th[i], NULL, producer_main, &p[i]);
    sig_target = th[0];
    rc |= pthread_create(&sig_th, NULL, signaller_main, NULL);
    rc |= pthread_create(&drain_th, NULL, drainer_main, NULL);
    rc |= pthread_create(&churn_th, NULL, churn_main, NULL);
    pthread_t watch_th;
    rc |= pthread_create(&watch_th, NULL, memory_watch_main, NULL);
    if (rc) fail("pthread_create", rc, 0);

    struct timespec half = { (time_t)(seconds / 2), (long)((seconds / 2 - (long)(seconds / 2)) * 1e9) };
    nanosleep(&half, NULL);
    long rss_mid = rss_kb();
    nanosleep(&half, NULL);
    long rss_end = rss_kb();
    atomic_store(&stop, 1);
    pthread_join(sig_th, NULL);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    pthread_join(drain_th, NULL);
    pthread_join(churn_th, NULL);
    pthread_join(watch_th, NULL);
    long peak_kib = atomic_load(&counting_peak_bytes) >> 10;
    if (library_mib(atomic_load(&counting_peak_bytes)) > SOAK_MAX_MIB)
        fail("library memory peak above the bound (MiB)", library_mib(atomic_load(&counting_peak_bytes)), SOAK_MAX_MIB);
    /* Quiescent: deliver what is left, then end the witness (its leftover drops are
     * reported before its free callback). */
    signal(SIGUSR1, SIG_IGN);
    for (int s = 0; s < NSRC; s++) (void)mpitev_source_drain(&srcs[s], MPITEV_DRAIN_ALL, MPITEV_CB_REQUIRE_NONE, NULL);
    if (mpitev_reg_free(witness, NULL, c_free)) fail("witness free", 0, 0);
    atomic_fetch_add(&churn_frees, 1);
    for (int i = 0; i < 100 && atomic_load(&churn_free_cbs) < atomic_load(&churn_frees); i++)
        (void)mpitev_progress(MPITEV_CB_REQUIRE_NONE, NULL);
    if (mpitev_finalize()) fail("finalize", 0, 0);

    long total_raised = 0, total_dropped = 0;
    for (int s = 0; s < NSRC; s++) {
        long r = atomic_load(&raised[s]), d = atomic_load(&w_delivered[s]), x = atomic_load(&w_dropped[s]);
        total_raised += r;
        total_dropped += x;
        if (d + x != r) fail("witness: delivered + dropped != raised", d + x, r);
    }
    if (atomic_load(&churn_free_cbs) != atomic_load(&churn_frees))
        fail("free callbacks != frees", atomic_load(&churn_free_cbs), atomic_load(&churn_frees));
    /* Memory: the second half may not keep growing (4 MiB of slack for the allocator). */
    /* Checked in long runs only (a short run is still warming up: rings, slot chunks,
     * the allocator's arenas). */
    if (!SOAK_SANITIZED && seconds >= 30 && rss_end - rss_mid > 4096) fail("resident memory grew in the second half (KiB)", rss_mid, rss_end);
    printf("soak: %.0f s, %ld raised (%ld from the signal handler), %ld dropped and reported, all accounted; "
           "%ld churn frees, %ld churn callbacks; library memory %ld KiB at most; RSS %ld -> %ld KiB\n",
           seconds, total_raised, atomic_load(&raised[S_SIG]), total_dropped, atomic_load(&churn_frees),
           atomic_load(&churn_events), peak_kib, rss_mid, rss_end);
    return 0;
}
