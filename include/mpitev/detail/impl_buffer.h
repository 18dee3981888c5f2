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

/* Full ring (or payload larger than a record), cold: count one drop, at ring position
 * pos, for each registration of the set the instance was raised to on src (buffered
 * there, object matching, not freed since the set was published). */
MPITEV__COLD static void mpitev__buffer_drop(mpitev_source *src, const struct mpitev__regset *set, const void *object,
                                             uint64_t pos) {
    int any = 0, si = src->mpitev__index, mask = mpitev__bufmask(src);
    for (int k = 0; k < set->n; k++) {
        const mpitev__regref *r = &set->ref[k];
        if (!(r->buffered & mask)) continue;
        if (r->bound && r->object != object) continue;
        if (atomic_load_explicit(&r->slot->gen, memory_order_acquire) != (uint32_t)(r->handle >> 32)) continue;
        const mpitev__cbset *c = atomic_load_explicit(&r->slot->cbs, memory_order_acquire);
        if (!c || !c->dropped) continue; /* no handler: nothing is recorded (16.3.8.5) */
        atomic_fetch_add_explicit(&r->slot->drops[si], 1, memory_order_relaxed);
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

/* Copy a payload into a record without calling memcpy: a call anywhere on the raise
 * body would make it save registers on every raise. 8..16 bytes (the usual few
 * elements) are two overlapping words; longer ones a word loop ending on an
 * overlapping word; shorter ones overlapping halves or bytes. Reads stay within
 * [s, s + n): the extent ends with the last element (no trailing padding). */
MPITEV__INLINE void mpitev__copy_payload(unsigned char *d, const unsigned char *s, size_t n) {
    uint64_t a, b;
    if (MPITEV__LIKELY(n - 8 <= 8)) { /* 8..16 */
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n > 16) {
        for (size_t i = 0; i < n - 8; i += 8) {
            memcpy(&a, s + i, 8);
            memcpy(d + i, &a, 8);
            MPITEV__OPAQUE(i); /* keep a loop: gcc would turn it into a memcpy call */
        }
        memcpy(&b, s + n - 8, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4);
        memcpy(d + n - 4, &y, 4);
    } else {
        for (size_t i = 0; i < n; i++) {
            d[i] = s[i];
            MPITEV__OPAQUE(i);
        }
    }
}

/* Raise side, inside the raise's grace section (which keeps `set` alive until the
 * record is published; the set's free then waits for the drains): write one record
 * naming the set. Returns 1, or 0 when the instance must be counted as dropped at ring
 * position *pos (full ring, or payload larger than a record: the caller's cold path
 * runs mpitev__buffer_drop). No walk of the set, no call, no lock, no allocation; on
 * an ordered source (ordered == 1, a compile-time constant at the call site) no atomic
 * read-modify-write either. */
MPITEV__INLINE void mpitev__rec_write(mpitev__rec *r, const struct mpitev__regset *set, const void *object,
                                      int64_t ts, const void *payload, size_t len) {
    r->ts = ts;
    r->object = object;
    if (MPITEV__LIKELY(payload != NULL)) {
        r->set = (uintptr_t)set;
        mpitev__copy_payload(mpitev__rec_payload(r), (const unsigned char *)payload, len);
    } else {
        r->set = (uintptr_t)set | MPITEV__REC_NO_PAYLOAD;
    }
}

MPITEV__INLINE int mpitev__buffer_put(mpitev_source *src, const struct mpitev__regset *set, const void *object,
                                      int64_t ts, const void *payload, int ordered, uint64_t *pos) {
    size_t len = set->extent;
    if (ordered) {
        unsigned char *w = src->mpitev__wr;
        if (MPITEV__UNLIKELY(len > src->mpitev__wpayload || (w >= src->mpitev__wstop && !mpitev__spsc_refill(src)))) {
            *pos = atomic_load_explicit(&src->mpitev__wtail, memory_order_relaxed);
            return 0;
        }
        w = src->mpitev__wr; /* the refill may have wrapped */
        mpitev__rec_write((mpitev__rec *)(void *)w, set, object, ts, payload, len);
        mpitev__spsc_publish(src, w);
        return 1;
    }
    struct mpitev__srcbuf *b = src->mpitev__buf;
    if (MPITEV__UNLIKELY(len > b->payload_max)) {
        *pos = atomic_load_explicit(&b->tail, memory_order_relaxed);
        return 0;
    }
    if (MPITEV__UNLIKELY(!mpitev__mpsc_reserve(b, pos))) return 0;
    mpitev__rec_write(mpitev__rec_at(b, *pos), set, object, ts, payload, len);
    mpitev__mpsc_publish(b, *pos);
    return 1;
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

/* Deliver one buffered instance to registration r of the record's set. Returns 1 if a
 * callback ran. The slot is valid: the registration's free waits for this drain
 * (mpitev__buffers_passed); its generation says whether it is still the registration
 * the set listed. */
MPITEV__INLINE int mpitev__drain_one(mpitev_source *src, const mpitev__regref *r, int cb_safety,
                                     const mpitev_instance *inst, int too_deep) {
    mpitev__slot *s = r->slot;
    uint32_t gen = (uint32_t)(r->handle >> 32);
    uint32_t g = atomic_load_explicit(&s->gen, memory_order_acquire);
    const mpitev__cbset *c = atomic_load_explicit(&s->cbs, memory_order_acquire);
    if (MPITEV__LIKELY(g == gen)) {
        int l = c ? c->pick[cb_safety] : -1;
        if (MPITEV__LIKELY(l >= 0 && !too_deep)) {
            c->fn[l](inst, mpitev__mkreg(r->handle), cb_safety, c->ud[l], c->ext[l]);
            return 1;
        }
        mpitev__count_drop(s, c, src, 1); /* no callback safe at the drain's level */
    } else {
        /* Freed (after the set was published; the slot cannot be reused before this
         * drain passed the record). Discarded: counted, reported before free_cb. */
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

/* Drain with the claim held, specialised by ring kind (mpsc) and by too_deep (the
 * drain runs nested deeper than MPITEV_MAX_DEPTH: every instance is counted dropped),
 * both compile-time constants. Returns the number of callbacks run. The ring geometry
 * is copied to locals: the callbacks are opaque calls, after which fields of *b would
 * be reloaded. */
MPITEV__INLINE int mpitev__drain_ring(mpitev_source *src, struct mpitev__srcbuf *b, int max, int cb_safety, int mpsc,
                                      int too_deep, int bd) {
    int gp = mpitev__drain_grace_enter(b);
    uint64_t head = atomic_load_explicit(&b->head, memory_order_relaxed); /* only claim holders store it */
    /* hmax: where max stops the drain; stop: below it, records are known published
     * (spsc) and within max, so the common record costs one compare of head. */
    const uint64_t hmax = max < 0 ? UINT64_MAX : head + (unsigned)max;
    uint64_t stop = mpsc ? hmax : head;
    unsigned char *const base = b->base, *const rend = base + mpitev__srcbuf_bytes(b);
    const size_t stride = b->stride;
    unsigned char *rp = base + (size_t)(head & b->mask) * stride; /* the record at head */
    int delivered = 0;
    mpitev_instance inst;
    inst.mpitev__magic = MPITEV__INSTANCE_MAGIC;
    inst.mpitev__source = src->mpitev__index;
    mpitev__tls_depth++; /* callbacks run one delivery level deeper */
    for (;;) {
        if (MPITEV__UNLIKELY(head == stop)) {
            if (mpsc || head == hmax) break;
            /* acquire: pairs with the release in mpitev__spsc_publish */
            uint64_t t = atomic_load_explicit(&src->mpitev__wtail, memory_order_acquire);
            stop = t < hmax ? t : hmax;
            if (head == stop) break;
        }
        mpitev__rec *r = (mpitev__rec *)(void *)rp;
        /* acquire: pairs with the release in mpitev__mpsc_publish. A reserved but
         * unpublished record stops the drain here (never skipped). */
        if (mpsc && atomic_load_explicit(&r->seq, memory_order_acquire) != head + 1) break;
        /* Report drops that happened before this record was raised (or at an earlier
         * drain), never ones raised after it: E3, E4 dropped, handler before E5. */
        mpitev__drain_report(src, b, head, cb_safety);
        /* The set is alive: its free waits for this drain (mpitev__set_drains_passed). */
        uintptr_t sv = r->set;
        const struct mpitev__regset *set = (const struct mpitev__regset *)(sv & ~MPITEV__REC_NO_PAYLOAD);
        const void *object = r->object;
        inst.mpitev__type = set->type;
        inst.mpitev__timestamp = r->ts;
        inst.mpitev__payload = (sv & MPITEV__REC_NO_PAYLOAD) ? NULL : mpitev__rec_payload(r);
        /* The registrations the instance was raised to: listed in the set, buffered on
         * this source (the set's precomputed list), object matching. */
        const mpitev__regref *ref = set->bref[bd], *end = set->bend[bd];
        if (MPITEV__LIKELY(end - ref == 1)) { /* the usual one buffered registration */
            if (!ref->bound || ref->object == object) delivered += mpitev__drain_one(src, ref, cb_safety, &inst, too_deep);
        } else {
            for (; ref != end; ref++) {
                if (ref->bound && ref->object != object) continue;
                delivered += mpitev__drain_one(src, ref, cb_safety, &inst, too_deep);
            }
        }
        if (mpsc) mpitev__mpsc_consume(b, r, head);
        else mpitev__spsc_consume(b, r, head);
        head++;
        rp += stride;
        if (MPITEV__UNLIKELY(rp == rend)) rp = base;
    }
    /* And what is due at the end, so a tool hears of losses without waiting for the
     * next instance. */
    mpitev__drain_report(src, b, head, cb_safety);
    mpitev__tls_depth--;
    mpitev__drain_grace_exit(b, gp);
    return delivered;
}

/* Nested deeper than MPITEV_MAX_DEPTH (rare): out of line. */
MPITEV__NOINLINE static int mpitev__drain_too_deep(mpitev_source *src, struct mpitev__srcbuf *b, int max,
                                                   int cb_safety) {
    int bd = src->mpitev__buffered_default;
    return b->mpsc ? mpitev__drain_ring(src, b, max, cb_safety, 1, 1, bd) : mpitev__drain_ring(src, b, max, cb_safety, 0, 1, bd);
}

static int mpitev__drain_claimed(mpitev_source *src, struct mpitev__srcbuf *b, int max, int cb_safety) {
    if (MPITEV__UNLIKELY(mpitev__tls_depth >= MPITEV_MAX_DEPTH)) return mpitev__drain_too_deep(src, b, max, cb_safety);
    /* Specialised by buffered_by_default too (which list of the set to walk). */
    if (src->mpitev__buffered_default)
        return b->mpsc ? mpitev__drain_ring(src, b, max, cb_safety, 1, 0, 1) : mpitev__drain_ring(src, b, max, cb_safety, 0, 0, 1);
    return b->mpsc ? mpitev__drain_ring(src, b, max, cb_safety, 1, 0, 0) : mpitev__drain_ring(src, b, max, cb_safety, 0, 0, 0);
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

/* "Frees wait for drains". An item (a registration slot, or a registration set that
 * records may name) that may appear in records of some sources can complete once every
 * drain has passed the producer positions taken after its grace period: every raise
 * that could still reach it had left by then, so every record reaching it lies below.
 * on: it may appear on every source; bysrc: on sources buffered_by_default. snap holds
 * MPITEV_MAX_SOURCES positions, *taken is 0 until the snapshot is taken. Runs outside the
 * mutex by the reclaiming thread, or under it from progress (never concurrently). */
static int mpitev__drains_passed_snap(uint64_t *snap, int *taken, int on, int bysrc) {
    if (!on && !bysrc) return 1;
    if (!*taken) {
        int n = atomic_load_explicit(&mpitev__S->nsources, memory_order_acquire);
        for (int i = 0; i < n; i++) {
            mpitev_source *src = atomic_load_explicit(&mpitev__S->sources[i], memory_order_relaxed);
            int may = on || src->mpitev__buffered_default;
            /* acquire: orders the snapshot after the grace period's observations */
            snap[i] = may ? atomic_load_explicit(mpitev__ring_tail(src), memory_order_acquire) : 0;
        }
        *taken = n + 1;
    }
    for (int i = 0; i < *taken - 1; i++) {
        mpitev_source *src = atomic_load_explicit(&mpitev__S->sources[i], memory_order_relaxed);
        /* acquire: pairs with the release store of head in mpitev__*_consume, so every
         * read of the record (set, slot, callbacks) and every callback the drain ran on
         * records below the snapshot happened before us. */
        uint64_t head = atomic_load_explicit(&src->mpitev__buf->head, memory_order_acquire);
        if ((int64_t)(head - snap[i]) < 0) return 0;
    }
    return 1;
}

/* A registration: records reach it through the sets listing it, on the sources where
 * its mode buffers (the drain skips other entries without touching the slot). */
static int mpitev__buffers_passed(mpitev__slot *s) {
    return mpitev__drains_passed_snap(s->bufsnap, &s->bufsnap_taken, s->buffered == MPITEV__BUF_ON,
                                      s->buffered == MPITEV__BUF_SOURCE);
}

/* A retired registration set with entries that may buffer (set->bufsnap != NULL). */
static int mpitev__set_drains_passed(struct mpitev__regset *set) {
    if (!set->bufsnap) return 1;
    return mpitev__drains_passed_snap(set->bufsnap, &set->bufsnap_taken, set->n_on > 0, set->n_src > 0);
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
