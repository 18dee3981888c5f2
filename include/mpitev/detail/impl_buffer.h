/* mpitev implementation: buffered delivery. The raise side copies an instance into its
 * source's ring (impl_buffer_ring.h); mpitev_source_drain delivers it later from the
 * MPI progress engine; frees of buffered registrations wait for the drains.
 *
 * Drop accounting (16.3.8.5) with buffers, in one place:
 *  - full ring (or payload larger than a record): counted at the raise for each
 *    registration the instance was meant for; the ring's drop_mark remembers the first
 *    such position, so the drain reports the drop after the records raised before it
 *    and before any record raised after it;
 *  - at the drain, no callback safe at the drain's level (or nesting too deep): counted
 *    and reported before the next record of the source is delivered;
 *  - at the drain, a registration freed since the raise: counted (discarded) and
 *    reported by the free completion, before the free callback.
 * Counting and reporting are a store-buffering pair: a producer adds to the count, then
 * FENCE P, then sets drop_mark and drops_pending; the reporter clears drops_pending and
 * drop_mark, then FENCE D, then exchanges the counts (mpitev__flush_drops). Either the
 * reporter sees the count, or the producer's flag store lands after the reset and the
 * next drain iteration reports it. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/impl_buffer.h is internal: include <mpitev/mpitev.h> instead"
#endif

/* Count one full-ring drop for each of n registrations at ring position pos. Cold. */
MPITEV__COLD static void mpitev__buffer_drop(mpitev_source *src, const mpitev__regref *const *refs, int n,
                                             uint64_t pos) {
    int any = 0, si = src->mpitev__index;
    for (int i = 0; i < n; i++) {
        const mpitev__cbset *c = atomic_load_explicit(&refs[i]->slot->cbs, memory_order_acquire);
        if (!c || !c->dropped) continue; /* no handler: nothing is recorded (16.3.8.5) */
        atomic_fetch_add_explicit(&refs[i]->slot->drops[si], 1, memory_order_relaxed);
        any = 1;
    }
    if (!any) return;
    MPITEV__FENCE_SEQ_CST(); /* FENCE P: pairs with FENCE D in mpitev__flush_drops */
    /* The first unreported drop wins: reporting at the earliest position is never late. */
    uint64_t none = MPITEV__NO_MARK;
    atomic_compare_exchange_strong_explicit(&src->mpitev__buf->drop_mark, &none, pos, memory_order_relaxed,
                                            memory_order_relaxed);
    /* release: pairs with the acquire fence in the drain's check (drop_mark visible) */
    atomic_store_explicit(&src->mpitev__drops_pending, 1, memory_order_release);
}

/* Small payloads are the rule (a few elements): two overlapping word copies beat a
 * memcpy call on the raise path. */
MPITEV__INLINE void mpitev__copy_payload(unsigned char *d, const unsigned char *s, size_t n) {
    if (n >= 8 && n <= 16) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else {
        memcpy(d, s, n);
    }
}

/* Write one record for up to MPITEV_BUFFER_REGS_PER_RECORD registrations, or drop. */
MPITEV__INLINE void mpitev__buffer_put(mpitev_source *src, mpitev_type *type, int64_t ts, const void *payload,
                                       const mpitev__regref *const *refs, int n) {
    struct mpitev__srcbuf *b = src->mpitev__buf;
    size_t len = type->mpitev__extent;
    uint64_t pos;
    mpitev__rec *r;
    if (MPITEV__UNLIKELY(len > b->payload_max)) {
        mpitev__buffer_drop(src, refs, n, atomic_load_explicit(&b->tail, memory_order_relaxed));
        return;
    }
    r = b->mpsc ? mpitev__mpsc_reserve(b, &pos) : mpitev__spsc_reserve(b, &pos);
    if (MPITEV__UNLIKELY(!r)) {
        mpitev__buffer_drop(src, refs, n, pos);
        return;
    }
    r->ts = ts;
    r->type = type;
    r->nregs = (uint32_t)n;
    for (int i = 0; i < n; i++) r->reg[i] = refs[i]->handle;
    if (MPITEV__LIKELY(payload != NULL)) {
        r->flags = 0;
        mpitev__copy_payload(mpitev__rec_payload(r), (const unsigned char *)payload, len);
    } else {
        r->flags = MPITEV__REC_NO_PAYLOAD;
    }
    if (b->mpsc) mpitev__mpsc_publish(b, pos);
    else mpitev__spsc_publish(b, pos);
}

/* Raise side, inside the raise's grace section: buffer the instance for every matching
 * registration whose mode selects buffering on src. Returns how many refs of the set
 * are buffered on src (matching or not), so the caller can skip immediate delivery
 * when that is all of them. No lock, no allocation, no system call. */
MPITEV__INLINE int mpitev__buffer_raise(const struct mpitev__regset *set, mpitev_source *src, mpitev_type *type,
                                        const void *object, int64_t ts, const void *payload, int mask) {
    const mpitev__regref *pick[MPITEV_BUFFER_REGS_PER_RECORD];
    int nbuf = 0, np = 0;
    for (int k = 0; k < set->n; k++) {
        const mpitev__regref *r = &set->ref[k];
        if (!(r->buffered & mask)) continue;
        nbuf++;
        if (r->bound && r->object != object) continue;
        /* Freed since the set was published: not active any more (as immediate). */
        if (atomic_load_explicit(&r->slot->gen, memory_order_acquire) != (uint32_t)(r->handle >> 32)) continue;
        pick[np++] = r;
        if (np == MPITEV_BUFFER_REGS_PER_RECORD) {
            mpitev__buffer_put(src, type, ts, payload, pick, np);
            np = 0;
        }
    }
    if (np) mpitev__buffer_put(src, type, ts, payload, pick, np);
    return nbuf;
}

/* ---- Drain side. ---- */

/* A drainer's grace section: like mpitev__grace_enter, but on the ring's own counters
 * with read-modify-writes, since any thread may drain (see impl_grace.h for the proof;
 * FENCE R here pairs with FENCE W2 in mpitev__grace_poll the same way). */
static int mpitev__drain_grace_enter(struct mpitev__srcbuf *b) {
    for (;;) {
        uint64_t e = atomic_load_explicit(&mpitev__S->epoch, memory_order_acquire);
        int p = (int)(e & 1);
        atomic_fetch_add_explicit(&b->grace[p], 1, memory_order_relaxed);
        MPITEV__FENCE_SEQ_CST(); /* FENCE R: pairs with FENCE W2 in mpitev__grace_poll */
        if (atomic_load_explicit(&mpitev__S->epoch, memory_order_relaxed) == e) return p;
        atomic_fetch_sub_explicit(&b->grace[p], 1, memory_order_relaxed);
    }
}
static void mpitev__drain_grace_exit(struct mpitev__srcbuf *b, int p) {
    /* release: pairs with the acquire in mpitev__sources_quiet */
    atomic_fetch_sub_explicit(&b->grace[p], 1, memory_order_release);
}

/* Deliver one buffered instance to the registration named by handle h. Returns 1 if a
 * callback ran. The slot exists (chunks live until finalize); its generation says
 * whether the registration is the one the record was written for. */
MPITEV__INLINE int mpitev__drain_one(mpitev_source *src, uint64_t h, int cb_safety, const mpitev_instance *inst,
                                     int too_deep) {
    uint32_t index = (uint32_t)h - 1u, gen = (uint32_t)(h >> 32);
    mpitev__slot *chunk = atomic_load_explicit(&mpitev__S->chunks[index / MPITEV__CHUNK_SLOTS], memory_order_acquire);
    mpitev__slot *s = &chunk[index % MPITEV__CHUNK_SLOTS];
    uint32_t g = atomic_load_explicit(&s->gen, memory_order_acquire);
    const mpitev__cbset *c = atomic_load_explicit(&s->cbs, memory_order_acquire);
    if (MPITEV__LIKELY(g == gen)) {
        int l = c ? c->pick[cb_safety] : -1;
        if (MPITEV__LIKELY(l >= 0 && !too_deep)) {
            c->fn[l](inst, mpitev__mkreg(h), cb_safety, c->ud[l], c->ext[l]);
            return 1;
        }
        mpitev__count_drop(s, c, src, 1); /* no callback safe at the drain's level */
    } else if (g == gen + 1u) {
        /* Freed after the raise; its completion waits for us (mpitev__buffers_passed), so
         * the callbacks are still there. Discarded: counted, reported before free_cb. */
        mpitev__count_drop(s, c, src, 1);
    }
    return 0;
}

/* Report pending drops of src whose position the drain has reached (head). */
MPITEV__INLINE void mpitev__drain_report(mpitev_source *src, struct mpitev__srcbuf *b, uint64_t head, int cb_safety) {
    /* acquire: pairs with the release flag stores (drop_mark and counts visible) */
    if (MPITEV__LIKELY(!atomic_load_explicit(&src->mpitev__drops_pending, memory_order_acquire))) return;
    uint64_t mark = atomic_load_explicit(&b->drop_mark, memory_order_relaxed);
    if (mark == MPITEV__NO_MARK || (int64_t)(head - mark) >= 0) mpitev__flush_drops(src, cb_safety);
}

/* Drain with the claim held. Returns the number of callbacks run. */
static int mpitev__drain_claimed(mpitev_source *src, struct mpitev__srcbuf *b, int max, int cb_safety) {
    int gp = mpitev__drain_grace_enter(b);
    uint64_t head = atomic_load_explicit(&b->head, memory_order_relaxed); /* only claim holders store it */
    uint64_t limit = head;
    int delivered = 0, too_deep = mpitev__tls_depth >= MPITEV_MAX_DEPTH;
    mpitev_instance inst;
    inst.mpitev__magic = MPITEV__INSTANCE_MAGIC;
    inst.mpitev__source = src->mpitev__index;
    mpitev__tls_depth++; /* callbacks run one delivery level deeper */
    for (int i = 0; max < 0 || i < max; i++) {
        mpitev__rec *r = b->mpsc ? mpitev__mpsc_peek(b, head) : mpitev__spsc_peek(b, head, &limit);
        if (!r) break;
        /* Report drops that happened before this record was raised (or at an earlier
         * drain), never ones raised after it: E3, E4 dropped, handler before E5. */
        mpitev__drain_report(src, b, head, cb_safety);
        inst.mpitev__type = r->type;
        inst.mpitev__timestamp = r->ts;
        inst.mpitev__payload = (r->flags & MPITEV__REC_NO_PAYLOAD) ? NULL : mpitev__rec_payload(r);
        for (uint32_t k = 0; k < r->nregs; k++) delivered += mpitev__drain_one(src, r->reg[k], cb_safety, &inst, too_deep);
        if (b->mpsc) mpitev__mpsc_consume(b, r, head);
        else mpitev__spsc_consume(b, r, head);
        head++;
    }
    /* And what is due at the end, so a tool hears of losses without waiting for the
     * next instance. */
    mpitev__drain_report(src, b, head, cb_safety);
    mpitev__tls_depth--;
    mpitev__drain_grace_exit(b, gp);
    return delivered;
}

MPITEV_API int mpitev_source_drain(mpitev_source *src, int max, int cb_safety) {
    if (!mpitev__is_initialized()) return -MPITEV_ERR_NOT_INITIALIZED;
    if (!src || !src->mpitev__declared || !src->mpitev__buf || !mpitev__valid_safety(cb_safety))
        return -MPITEV_ERR_INVALID_ARG;
    struct mpitev__srcbuf *b = src->mpitev__buf;
    int n = 0;
    /* acquire/release on the claim: the next drainer sees this one's head and reads. A
     * loser (another drainer, or a callback draining its own source) returns 0. */
    if (!atomic_exchange_explicit(&b->claim, 1, memory_order_acquire)) {
        n = mpitev__drain_claimed(src, b, max, cb_safety);
        atomic_store_explicit(&b->claim, 0, memory_order_release);
    }
    /* Deferred work (free completions), so one call per progress iteration is enough.
     * trylock: the progress engine never waits for a tool thread's registry call; the
     * next call catches up. */
    if (mpitev__tls_depth == 0 && pthread_mutex_trylock(&mpitev__S->lock) == 0) {
        if (mpitev__S->refcount > 0) mpitev__progress_locked_then_unlock(cb_safety);
        else mpitev__unlock();
    }
    return n;
}

/* Free completion of slot s (outside the mutex, by the reclaiming thread, or under it
 * from progress): may it complete? Buffered registrations wait until every drain has
 * passed the producer positions taken after the free's grace period: every raise that
 * could still name s had left by then, so every record naming s lies below. */
static int mpitev__buffers_passed(mpitev__slot *s) {
    if (s->buffered == MPITEV__BUF_OFF) return 1;
    if (!s->bufsnap_taken) {
        int n = atomic_load_explicit(&mpitev__S->nsources, memory_order_acquire);
        for (int i = 0; i < n; i++) {
            mpitev_source *src = atomic_load_explicit(&mpitev__S->sources[i], memory_order_relaxed);
            int may = s->buffered == MPITEV__BUF_ON || src->mpitev__buffered_default;
            /* acquire: orders the snapshot after the grace period's observations */
            s->bufsnap[i] = may ? atomic_load_explicit(&src->mpitev__buf->tail, memory_order_acquire) : 0;
        }
        s->bufsnap_taken = n + 1;
    }
    for (int i = 0; i < s->bufsnap_taken - 1; i++) {
        mpitev_source *src = atomic_load_explicit(&mpitev__S->sources[i], memory_order_relaxed);
        /* acquire: pairs with the release store of head in mpitev__*_consume, so every
         * callback the drain ran on records below the snapshot happened before us. */
        uint64_t head = atomic_load_explicit(&src->mpitev__buf->head, memory_order_acquire);
        if ((int64_t)(head - s->bufsnap[i]) < 0) return 0;
    }
    return 1;
}

/* Last finalize, before live registrations go: deliver what is left at cb_safety
 * (nothing raises any more); what cannot be delivered is counted and reported by the
 * frees that follow (mpitev__report_drops_at_free), before their free callbacks. */
static void mpitev__buffers_finalize(int cb_safety) {
    int n = atomic_load_explicit(&mpitev__S->nsources, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        mpitev_source *src = atomic_load_explicit(&mpitev__S->sources[i], memory_order_relaxed);
        if (src && src->mpitev__buf) mpitev_source_drain(src, -1, cb_safety);
    }
}
