/* mpitev implementation: grace periods, i.e. knowing when no raise can still hold a
 * pointer to something a registry writer unpublished (an old registration set, an old
 * callback set, a registration being freed).
 *
 * Readers are raises (and drains). A raise counts itself in its source's
 * inflight[epoch & 1] for as long as it may use registry pointers. Writers never wait:
 * they stamp what they unpublish with the current epoch and put it on the retired list;
 * mpitev__grace_poll() (under the mutex) later flips the epoch and, once every source's
 * counter of the old parity is back to zero, hands the items back for freeing.
 *
 * Why it is right (store-buffering pairs, each fence names its partner):
 *   reader: e = load(epoch); inflight[e&1] += 1; FENCE R; e2 = load(epoch);
 *           if (e2 != e) undo and retry; set = load(type->regs) ...; inflight[e&1] -= 1
 *   poll:   (items unpublished before) FENCE W1; epoch = e+1; FENCE W2;
 *           check inflight[e&1] == 0 on every source
 *   - A reader validated with epoch e: FENCE R vs FENCE W2 means either the poll sees
 *     its increment (and waits for it), or the reader's e2 load sees e+1 (and it retries).
 *   - A reader validated with epoch >= e+1 read the flip, which W1 orders after the
 *     unpublish: it cannot load the old pointer.
 *   - A reader of an older parity was waited for by the previous flip, and only one flip
 *     is outstanding at a time.
 * The retry makes a reader wait for nobody: it only re-counts itself under the new
 * parity. An ordered source has one producer, so its counter is a plain load and store
 * (no read-modify-write); an unordered source uses fetch_add. Both use a fence. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/impl_grace.h is internal: include <mpitev/mpitev.h> instead"
#endif

/* A full (seq_cst) fence. Under ThreadSanitizer, a seq_cst read-modify-write of one
 * shared word: all such RMWs are totally ordered, which gives the same store-buffering
 * guarantee, and TSan understands it. */
#if defined(MPITEV__TSAN)
static _Atomic uint64_t mpitev__tsan_fence_word;
#define MPITEV__FENCE_SEQ_CST() ((void)atomic_fetch_add_explicit(&mpitev__tsan_fence_word, 0, memory_order_seq_cst))
#else
#define MPITEV__FENCE_SEQ_CST() atomic_thread_fence(memory_order_seq_cst)
#endif

/* `ordered` is the source's ordering when the caller knows it at compile time (the raise
 * path is specialised per ordering), else the runtime value: either way it must be
 * s->mpitev__ordering == MPITEV_SOURCE_ORDERED. */
MPITEV__INLINE void mpitev__counter_add(mpitev_source *s, int p, uint64_t d, memory_order mo, int ordered) {
    _Atomic uint64_t *c = &s->mpitev__grace.inflight[p];
    if (ordered) /* single producer: no RMW needed */
        atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + d, mo);
    else
        atomic_fetch_add_explicit(c, d, mo);
}

/* Enter a read-side section on source s; returns the parity to pass to grace_exit. */
MPITEV__INLINE int mpitev__grace_enter_o(mpitev_source *s, int ordered) {
    for (;;) {
        uint64_t e = atomic_load_explicit(&mpitev__S->epoch, memory_order_acquire);
        int p = (int)(e & 1);
        mpitev__counter_add(s, p, 1, memory_order_relaxed, ordered);
        MPITEV__FENCE_SEQ_CST(); /* FENCE R: pairs with FENCE W2 in mpitev__grace_poll */
        if (MPITEV__LIKELY(atomic_load_explicit(&mpitev__S->epoch, memory_order_relaxed) == e)) return p;
        mpitev__counter_add(s, p, (uint64_t)-1, memory_order_relaxed, ordered); /* flipped under us: recount */
    }
}

MPITEV__INLINE void mpitev__grace_exit_o(mpitev_source *s, int p, int ordered) {
    /* release: our reads of registry pointers happen before the poll sees zero (it loads
     * with acquire) and frees them. */
    mpitev__counter_add(s, p, (uint64_t)-1, memory_order_release, ordered);
}

/* Put an unpublished object on the retired list (mutex held). */
static void mpitev__retire(mpitev__retired *r, int kind, size_t size, size_t align) {
    r->next = NULL;
    r->kind = kind;
    r->size = size;
    r->align = align;
    r->epoch = atomic_load_explicit(&mpitev__S->epoch, memory_order_relaxed);
    *mpitev__S->retired_tail = r;
    mpitev__S->retired_tail = &r->next;
}

static int mpitev__sources_quiet(int parity) {
    int n = atomic_load_explicit(&mpitev__S->nsources, memory_order_relaxed);
    for (int i = 0; i < n; i++) {
        mpitev_source *s = atomic_load_explicit(&mpitev__S->sources[i], memory_order_relaxed);
        /* acquire: pairs with the release in mpitev__grace_exit */
        if (atomic_load_explicit(&s->mpitev__grace.inflight[parity], memory_order_acquire) != 0) return 0;
        /* Drainers of s count themselves apart (impl_buffer.h): the raise counter of an
         * ordered source is single-producer. Same acquire/release pairing. */
        if (s->mpitev__buf && atomic_load_explicit(&s->mpitev__buf->grace[parity], memory_order_acquire) != 0)
            return 0;
    }
    return 1;
}

/* Advance grace periods as far as possible without waiting (mutex held). Items whose
 * grace is over are moved to *done (in retirement order). Returns 1 if items remain. */
static int mpitev__grace_poll(mpitev__retired **done) {
    mpitev__retired **dtail = done;
    while (*dtail) dtail = &(*dtail)->next;
    for (;;) {
        if (!mpitev__S->retired_head) return 0;
        if (!mpitev__S->flip_outstanding) {
            uint64_t e = atomic_load_explicit(&mpitev__S->epoch, memory_order_relaxed);
            MPITEV__FENCE_SEQ_CST(); /* FENCE W1: unpublish before flip */
            atomic_store_explicit(&mpitev__S->epoch, e + 1, memory_order_release);
            MPITEV__FENCE_SEQ_CST(); /* FENCE W2: pairs with FENCE R */
            mpitev__S->flip_outstanding = 1;
            mpitev__S->waiting_epoch = e;
        }
        if (!mpitev__sources_quiet((int)(mpitev__S->waiting_epoch & 1))) return 1;
        mpitev__S->flip_outstanding = 0;
        /* Everything stamped <= waiting_epoch is unreachable now. */
        mpitev__retired **pp = &mpitev__S->retired_head;
        while (*pp) {
            mpitev__retired *r = *pp;
            if (r->epoch <= mpitev__S->waiting_epoch) {
                *pp = r->next;
                r->next = NULL;
                *dtail = r;
                dtail = &r->next;
            } else {
                pp = &r->next;
            }
        }
        mpitev__S->retired_tail = pp;
        while (*mpitev__S->retired_tail) mpitev__S->retired_tail = &(*mpitev__S->retired_tail)->next;
    }
}
