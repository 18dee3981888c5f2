/* mpitev implementation: grace periods, i.e. knowing when no raise can still hold a
 * pointer to something a registry writer unpublished (an old registration set, an old
 * callback set, a registration being freed).
 *
 * Readers are raises (and drains). Writers never wait: they stamp what they unpublish
 * with the current epoch and put it on the retired list; mpitev__grace_poll() (under
 * the mutex) later flips the epoch from e to e+1 and, once every source is quiet for
 * epoch e, hands the items stamped <= e back for freeing.
 *
 * Ordered sources (one control flow raises): one word, active = 2 + the epoch the
 * outermost raise in progress loaded, or the source's idle value (< 2) when none is:
 * 1 for MPITEV__RK_FAST sources, 0 otherwise, so that the raise's dispatch is one
 * compare of this word with 1 (objects.h). Below, "idle" is a value < 2.
 *   reader: prev = active; if (idle) { e = load(epoch, acquire); active = e+2 (release);
 *           FENCE R }  set = load(type->regs) ...;  if (idle) active = prev (release)
 *   poll:   (items unpublished before) FENCE W1; epoch = e+1; FENCE W2;
 *           quiet for e if active < 2 || active > e+2, loaded with acquire
 * Why it is right (store-buffering pair FENCE R / FENCE W2, the reader's store of active
 * against the poll's store that unpublished the item, which precedes W2):
 *   - If the poll's load of active does not return the reader's store (or a later one),
 *     W2 precedes R in the fences' total order, so every load after R (the set, and all
 *     of a nested raise's loads) sees the unpublish: the reader cannot hold the item.
 *   - If it returns the reader's value a = e_r + 2: a <= e+2 means the reader may have
 *     loaded the epoch before the flip, and the poll waits. a > e+2 means it loaded
 *     e+1 or later, i.e. read the flip, which W1 orders after the unpublish (release
 *     store of epoch, acquire load): it cannot load the old pointer.
 *   - If it returns a later store: idle is an exit (release: the reader's reads happen
 *     before the poll's acquire, so it is done with the item); another raise's entry
 *     (release, and the first raise's exit is sequenced before it) is judged as above.
 *   - Nested raises (a callback raising on its own source, a signal handler) see prev
 *     >= 2 and keep the outer value: the oldest epoch in use, so the test stays
 *     conservative, and their loads all come after the outer raise's FENCE R.
 * No retry and no parity: a reader never waits and never re-reads the epoch; the word is
 * a plain load and store (single producer), no read-modify-write.
 *
 * Unordered sources (any thread raises): per-parity counters with read-modify-writes.
 *   reader: e = load(epoch); inflight[e&1] += 1; FENCE R; e2 = load(epoch);
 *           if (e2 != e) undo and retry; set = load(type->regs) ...; inflight[e&1] -= 1
 *   poll:   as above, then quiet for e if inflight[e&1] == 0
 *   - A reader validated with epoch e: FENCE R vs FENCE W2 means either the poll sees
 *     its increment (and waits for it), or the reader's e2 load sees e+1 (and it retries).
 *   - A reader validated with epoch >= e+1 read the flip, which W1 orders after the
 *     unpublish: it cannot load the old pointer.
 *   - A reader of an older parity was waited for by the previous flip, and only one flip
 *     is outstanding at a time.
 * The retry makes a reader wait for nobody: it only re-counts itself under the new
 * parity. Drainers count themselves the same way on their ring (impl_buffer.h). */
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

/* Enter a read-side section on source s. Returns the token for mpitev__grace_exit_o:
 * ordered sources, 1 if nested (an outer raise's section covers us), else 0; unordered
 * sources, the parity counted in. `ordered` is the source's ordering when the caller
 * knows it at compile time (the raise path is specialised per ordering), else the
 * runtime value: either way it must be s->mpitev__ordering == MPITEV_SOURCE_ORDERED. */
/* Ordered source, active seen idle (not nested): enter; the token is 0. */
MPITEV__INLINE void mpitev__grace_enter_outer(mpitev_source *s) {
    /* acquire: pairs with the release store of the flip (sees what W1 ordered). */
    uint64_t e = atomic_load_explicit(&mpitev__S->epoch, memory_order_acquire);
    /* release: a poll that reads this value after our previous exit also sees that
     * exit's reads done (see the proof above). Single producer: no RMW. */
    atomic_store_explicit(&s->mpitev__active, e + 2, memory_order_release);
    MPITEV__FENCE_SEQ_CST(); /* FENCE R: pairs with FENCE W2 in mpitev__grace_poll */
}

MPITEV__INLINE int mpitev__grace_enter_o(mpitev_source *s, int ordered) {
    if (ordered) {
        /* Only this source's control flow (or code nested in it) stores active. */
        if (atomic_load_explicit(&s->mpitev__active, memory_order_relaxed) >= 2) return 1;
        mpitev__grace_enter_outer(s);
        return 0;
    }
    for (;;) {
        uint64_t e = atomic_load_explicit(&mpitev__S->epoch, memory_order_acquire);
        int p = (int)(e & 1);
        atomic_fetch_add_explicit(&s->mpitev__grace.inflight[p], 1, memory_order_relaxed);
        MPITEV__FENCE_SEQ_CST(); /* FENCE R: pairs with FENCE W2 in mpitev__grace_poll */
        if (MPITEV__LIKELY(atomic_load_explicit(&mpitev__S->epoch, memory_order_relaxed) == e)) return p;
        /* flipped under us: recount */
        atomic_fetch_sub_explicit(&s->mpitev__grace.inflight[p], 1, memory_order_relaxed);
    }
}

/* idle: the source's MPITEV__IDLE value when the caller knows it at compile time, else
 * -1 (read from the source). */
MPITEV__INLINE void mpitev__grace_exit_o(mpitev_source *s, int tok, int ordered, int idle) {
    /* release: our reads of registry pointers happen before the poll sees us gone (it
     * loads with acquire) and frees them. */
    if (ordered) {
        if (!tok)
            atomic_store_explicit(&s->mpitev__active, idle >= 0 ? (uint64_t)idle : MPITEV__IDLE(s),
                                  memory_order_release);
    } else {
        atomic_fetch_sub_explicit(&s->mpitev__grace.inflight[tok], 1, memory_order_release);
    }
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

/* Every source quiet for epoch e (see the proof at the top). */
static int mpitev__sources_quiet(uint64_t e) {
    int parity = (int)(e & 1);
    int n = atomic_load_explicit(&mpitev__S->nsources, memory_order_relaxed);
    for (int i = 0; i < n; i++) {
        mpitev_source *s = atomic_load_explicit(&mpitev__S->sources[i], memory_order_relaxed);
        /* acquire: pairs with the release stores in mpitev__grace_enter_o/exit_o */
        if (s->mpitev__ordering == MPITEV_SOURCE_ORDERED) {
            uint64_t a = atomic_load_explicit(&s->mpitev__active, memory_order_acquire);
            if (a >= 2 && a <= e + 2) return 0;
        } else if (atomic_load_explicit(&s->mpitev__grace.inflight[parity], memory_order_acquire) != 0) {
            return 0;
        }
        /* Drainers of s count themselves apart (impl_buffer.h): the active word of an
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
        if (!mpitev__sources_quiet(mpitev__S->waiting_epoch)) return 1;
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
