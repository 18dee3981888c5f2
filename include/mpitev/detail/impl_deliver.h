/* mpitev implementation: the raise slow path, drop accounting and instance accessors.
 *
 * Runs concurrently with every registry writer and with other raises; takes no lock and
 * allocates nothing. It reads only immutable snapshots (registration set, callback set)
 * loaded with acquire inside a grace section (impl_grace.h), so a writer can replace
 * them at any time and free the old ones once this raise has left. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/impl_deliver.h is internal: include <mpitev/mpitev.h> instead"
#endif

/* Count one lost instance for a registration on a source. Recorded only while a
 * dropped handler is set (16.3.8.5); reported by mpitev__flush_drops. */
static void mpitev__count_drop(mpitev__slot *slot, const mpitev__cbset *c, mpitev_source *src, uint64_t n) {
    if (!c || !c->dropped) return;
    atomic_fetch_add_explicit(&slot->drops[src->mpitev__index], n, memory_order_relaxed);
    MPITEV__FENCE_SEQ_CST(); /* FENCE P: pairs with FENCE D in mpitev__flush_drops */
    /* release: a thread that sees the flag also sees the count (acquire in flush). */
    atomic_store_explicit(&src->mpitev__drops_pending, 1, memory_order_release);
}

/* Report the drops of one registration on one source if a dropped handler and a callback
 * safe at cb_safety exist; else keep them pending. Returns 1 if some remain pending. */
static int mpitev__report_drops(mpitev__slot *slot, uint64_t handle, int si, int cb_safety) {
    if (atomic_load_explicit(&slot->drops[si], memory_order_relaxed) == 0) return 0;
    const mpitev__cbset *c = atomic_load_explicit(&slot->cbs, memory_order_acquire);
    int l = c ? c->pick[cb_safety] : -1;
    if (!c || !c->dropped || l < 0) return 1;
    uint64_t n = atomic_exchange_explicit(&slot->drops[si], 0, memory_order_acq_rel);
    if (n) c->dropped(mpitev__saturate(n), mpitev__mkreg(handle), si, cb_safety, c->ud[l], c->dropped_ext);
    return 0;
}

/* Before the next instance of a source is delivered, every registration with unreported
 * drops on it hears about them (16.3.8.5, "E3, E4 dropped: handler before E5"). Walks
 * the registration sets of all types; runs only when the source's flag is set. Must be
 * called inside a grace section on src. */
static void mpitev__flush_drops(mpitev_source *src, int cb_safety) {
    int si = src->mpitev__index, again = 0;
    atomic_store_explicit(&src->mpitev__drops_pending, 0, memory_order_relaxed);
    if (src->mpitev__buf) atomic_store_explicit(&src->mpitev__buf->drop_mark, MPITEV__NO_MARK, memory_order_relaxed);
    /* FENCE D: pairs with FENCE P in mpitev__count_drop / mpitev__buffer_drop. Either our
     * exchanges below see a producer's count, or its flag store is ordered after our
     * reset above (so the flag stays set for the next flush). Also an acquire fence for
     * the release flag stores. */
    MPITEV__FENCE_SEQ_CST();
    int nt = atomic_load_explicit(&mpitev__S->ntypes, memory_order_acquire);
    for (int i = 0; i < nt; i++) {
        mpitev_type *t = atomic_load_explicit(&mpitev__S->types[i], memory_order_relaxed);
        const struct mpitev__regset *set = atomic_load_explicit(&t->mpitev__regs, memory_order_acquire);
        for (int k = 0; set && k < set->n; k++) {
            const mpitev__regref *r = &set->ref[k];
            if (atomic_load_explicit(&r->slot->gen, memory_order_acquire) != (uint32_t)(r->handle >> 32)) continue;
            again |= mpitev__report_drops(r->slot, r->handle, si, cb_safety);
        }
    }
    if (again) atomic_store_explicit(&src->mpitev__drops_pending, 1, memory_order_relaxed);
}

/* At free time (after the grace period, outside any raise): report what is left. The
 * handler gets the user_data of the callback that would serve cb_safety, or of the
 * highest registered level if none would (the registration ends here; nothing may stay
 * unreported). */
static void mpitev__report_drops_at_free(mpitev__slot *s, int cb_safety) {
    const mpitev__cbset *c = atomic_load_explicit(&s->cbs, memory_order_acquire);
    if (!c || !c->dropped) return;
    int l = c->pick[cb_safety];
    for (int k = MPITEV_CB_LEVELS - 1; l < 0 && k >= 0; k--)
        if (c->fn[k]) l = k;
    mpitev_reg h = mpitev__mkreg(mpitev__handle_bits(s->index, atomic_load_explicit(&s->gen, memory_order_relaxed) - 1));
    for (int si = 0; si < MPITEV_MAX_SOURCES; si++) {
        uint64_t n = atomic_exchange_explicit(&s->drops[si], 0, memory_order_acq_rel);
        if (n) c->dropped(mpitev__saturate(n), h, si, cb_safety, l >= 0 ? c->ud[l] : NULL, c->dropped_ext);
    }
}

/* The registration modes that buffer on src: (ref.buffered & mask) != 0. */
MPITEV__INLINE int mpitev__bufmask(const mpitev_source *src) {
    return src->mpitev__buffered_default ? (MPITEV__BUF_ON | MPITEV__BUF_SOURCE) : MPITEV__BUF_ON;
}

/* Deliver one instance to every matching registration of a set (immediate delivery),
 * except those buffered on this source (bufmask). */
static void mpitev__deliver_set(const struct mpitev__regset *set, mpitev_source *src, const void *object,
                                int cb_safety, const mpitev_instance *inst, int bufmask, int too_deep) {
    for (int k = 0; k < set->n; k++) {
        const mpitev__regref *r = &set->ref[k];
        if (r->buffered & bufmask) continue; /* went to the source buffer */
        if (r->bound && r->object != object) continue;
        /* Skip registrations freed after this set was published: they are no longer
         * active, and skipping keeps late deliveries after mpitev_reg_free rare. */
        if (atomic_load_explicit(&r->slot->gen, memory_order_acquire) != (uint32_t)(r->handle >> 32)) continue;
        const mpitev__cbset *c = atomic_load_explicit(&r->slot->cbs, memory_order_acquire);
        if (!c || c->ncallbacks == 0) continue; /* no callback: not listening */
        int l = c->pick[cb_safety];
        if (l < 0 || too_deep) {
            mpitev__count_drop(r->slot, c, src, 1);
            continue;
        }
        c->fn[l](inst, mpitev__mkreg(r->handle), cb_safety, c->ud[l], c->ext[l]);
    }
}

/* One timestamp per raise (read at the raise site, raise.h), shared by the ring record
 * and the immediate deliveries. Ordered sources whose clock is not monotonic by
 * contract (MPITEV__RK_CLAMP: a custom clock) never give a timestamp below the previous
 * one; one control flow raises, so a plain read-modify-write of last_ts is enough. */
MPITEV__INLINE int64_t mpitev__timestamp_clamp(mpitev_source *src, int64_t ts) {
    if (MPITEV__UNLIKELY(ts < src->mpitev__last_ts)) ts = src->mpitev__last_ts;
    src->mpitev__last_ts = ts;
    return ts;
}

/* Immediate delivery of one instance (the part of a raise that runs tool code). Out of
 * line: a raise whose set has no immediate entry for its source never gets here. */
MPITEV__INLINE void mpitev__deliver_now(const struct mpitev__regset *set, mpitev_source *src, const void *object,
                                int cb_safety, const void *payload, int64_t ts) {
    mpitev_instance inst;
    inst.mpitev__magic = MPITEV__INSTANCE_MAGIC;
    inst.mpitev__source = src->mpitev__index;
    inst.mpitev__type = set->type;
    inst.mpitev__timestamp = ts;
    inst.mpitev__payload = (const unsigned char *)payload;
    mpitev__tls_depth++; /* tool code below runs one delivery level deeper */
    int too_deep = mpitev__tls_depth > MPITEV_MAX_DEPTH;
    /* Pending drops are reported (tool code: the dropped handler) only where tool code
     * may run; too deep, the instance itself is dropped and the report waits for the
     * next instance of src delivered at an allowed depth. */
    if (!too_deep && atomic_load_explicit(&src->mpitev__drops_pending, memory_order_relaxed))
        mpitev__flush_drops(src, cb_safety);
    mpitev__deliver_set(set, src, object, cb_safety, &inst, mpitev__bufmask(src), too_deep);
    mpitev__tls_depth--;
}

/* Buffered half of a raise (impl_buffer.h). */
MPITEV__INLINE void mpitev__rec_write(mpitev__rec *r, const struct mpitev__regset *set, const void *object,
                                      int64_t ts, const void *payload, size_t len);
MPITEV__INLINE int mpitev__buffer_put(mpitev_source *src, const struct mpitev__regset *set, const void *object,
                                      int64_t ts, const void *payload, int ordered, uint64_t *pos);
MPITEV__COLD static void mpitev__buffer_drop(mpitev_source *src, const struct mpitev__regset *set,
                                             const void *object, uint64_t pos);

/* The rest of a raise that needs more than writing one ring record where the producer
 * stands: immediate delivery (with or without a record), a record after a wrap or a
 * refill of an ordered ring, or counting a drop when the ring was full. Ends the
 * raise's grace section. The raise body reaches it by a tail call only, so the body's
 * common path (one record) makes no call and needs no callee-saved register. What to do
 * travels in the low bits of the set pointer (sets are MPITEV_CACHE_LINE-aligned):
 * MPITEV__REST_* flags, the grace token (mpitev__grace_enter_o), cb_safety. */
enum { MPITEV__REST_RING = 1, MPITEV__REST_NOW = 2, MPITEV__REST_DROP = 4, MPITEV__REST_TOKEN = 8,
       MPITEV__REST_SAFETY_SHIFT = 4, MPITEV__REST_BITS = 63 };
_Static_assert((int)MPITEV__NEED_RING == (int)MPITEV__REST_RING && (int)MPITEV__NEED_NOW == (int)MPITEV__REST_NOW,
               "need[] bits are rest bits");
_Static_assert(MPITEV_CACHE_LINE >= 64, "registration sets (MPITEV_CACHE_LINE-aligned) carry 6 flag bits");
MPITEV__NOINLINE static void mpitev__raise_rest(uintptr_t bits, mpitev_source *src, const void *object, uint64_t pos,
                                                const void *payload, int64_t ts) {
    const struct mpitev__regset *set = (const struct mpitev__regset *)(bits & ~(uintptr_t)MPITEV__REST_BITS);
    int ordered = src->mpitev__ordering == MPITEV_SOURCE_ORDERED;
    if (bits & MPITEV__REST_RING) {
        int ok = ordered ? mpitev__buffer_put(src, set, object, ts, payload, 1, &pos)
                         : mpitev__buffer_put(src, set, object, ts, payload, 0, &pos);
        if (!ok) bits |= MPITEV__REST_DROP;
    }
    if (bits & MPITEV__REST_DROP) mpitev__buffer_drop(src, set, object, pos);
    if (bits & MPITEV__REST_NOW)
        mpitev__deliver_now(set, src, object, (int)(bits >> MPITEV__REST_SAFETY_SHIFT) & 3, payload, ts);
    mpitev__grace_exit_o(src, (bits & MPITEV__REST_TOKEN) != 0, ordered, -1);
}

/* The raise body, specialised by ordering and clamping (compile-time constants at the
 * call sites): grace section, one acquire load of the set, then the set's precomputed
 * need[] for this source: only a ring record (the common buffered case: written inline,
 * no walk of the set, no tool code; on an ordered source where the producer stands, one
 * compare against wstop), or the rest out of line. outer (ordered only): the caller saw
 * active idle, so this raise is not nested and enters its grace section directly.
 * Ordered: clamp is 1 exactly for sources not MPITEV__RK_FAST (idle value !clamp). */
MPITEV__INLINE void mpitev__raise_o(mpitev_type *type, mpitev_source *src, const void *object, int cb_safety,
                                    const void *payload, int64_t ts, int ordered, int clamp, int outer) {
    int g = outer ? (mpitev__grace_enter_outer(src), 0) : mpitev__grace_enter_o(src, ordered);
    uintptr_t tok = g ? MPITEV__REST_TOKEN : 0;
    /* acquire: pairs with the release store in mpitev__regset_update (set contents). */
    const struct mpitev__regset *set = atomic_load_explicit(&type->mpitev__regs, memory_order_acquire);
    if (MPITEV__LIKELY(set != NULL)) {
        unsigned need = set->need[src->mpitev__buffered_default];
        if (clamp) ts = mpitev__timestamp_clamp(src, ts); /* once, shared by every registration */
        if (MPITEV__LIKELY(need == MPITEV__NEED_RING)) {
            if (ordered) {
                unsigned char *w = src->mpitev__wr;
                size_t len = set->extent;
                if (MPITEV__LIKELY(len <= src->mpitev__wpayload && w < src->mpitev__wstop)) {
                    mpitev__rec_write((mpitev__rec *)(void *)w, set, object, ts, payload, len);
                    mpitev__spsc_publish(src, w);
                    mpitev__grace_exit_o(src, g, 1, !clamp);
                    return;
                }
                /* wrap, ring full or payload too large: mpitev__buffer_put there */
                mpitev__raise_rest((uintptr_t)set | tok | MPITEV__REST_RING, src, object, 0, payload, ts);
                return;
            }
            uint64_t pos;
            if (MPITEV__UNLIKELY(!mpitev__buffer_put(src, set, object, ts, payload, 0, &pos))) {
                mpitev__raise_rest((uintptr_t)set | tok | MPITEV__REST_DROP, src, object, pos, NULL, 0);
                return;
            }
        } else if (need) {
            if (!mpitev__valid_safety(cb_safety)) cb_safety = MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
            mpitev__raise_rest((uintptr_t)set | tok | need | ((uintptr_t)cb_safety << MPITEV__REST_SAFETY_SHIFT), src,
                               object, 0, payload, ts);
            return;
        }
    }
    mpitev__grace_exit_o(src, g, ordered, ordered ? !clamp : -1);
}

/* Sources other than ordered with a monotonic clock (and undeclared ones: nothing). */
MPITEV__NOINLINE static void mpitev__raise_other(mpitev_type *type, mpitev_source *src, const void *object,
                                                 int cb_safety, const void *payload, int64_t ts) {
    int kind = src->mpitev__rkind;
    if (kind == MPITEV__RK_FAST) mpitev__raise_o(type, src, object, cb_safety, payload, ts, 1, 0, 0); /* nested */
    else if (kind == MPITEV__RK_CLAMP) mpitev__raise_o(type, src, object, cb_safety, payload, ts, 1, 1, 0);
    else if (kind == MPITEV__RK_UNORDERED) mpitev__raise_o(type, src, object, cb_safety, payload, ts, 0, 0, 0);
}

/* The raise slow path: someone listens to `type`. Out of line (not inlined at raise
 * sites, so the disabled raise stays one load and a branch). Registrations buffered on
 * this source get a ring record (no tool code runs); the others are delivered now.
 * src is not NULL: MPITEV_RAISE tests it at the raise site, where a constant address
 * makes the test free. One load and compare picks the common case: the active word is
 * 1 only on an ordered source with a clock monotonic by contract (MPITEV__RK_FAST) and
 * no raise on it in progress (impl_grace.h); it is 0 on every other source, declared
 * or not, and >= 2 inside a raise. Unordered sources come next; the others (nested,
 * custom clock, undeclared) go out of line. */
MPITEV__NOINLINE MPITEV_API void mpitev__raise(mpitev_type *type, mpitev_source *src, const void *object,
                                               int cb_safety, const void *payload, int64_t ts) {
    if (MPITEV__LIKELY(atomic_load_explicit(&src->mpitev__active, memory_order_relaxed) == 1))
        mpitev__raise_o(type, src, object, cb_safety, payload, ts, 1, 0, 1);
    else if (src->mpitev__rkind == MPITEV__RK_UNORDERED)
        mpitev__raise_o(type, src, object, cb_safety, payload, ts, 0, 0, 0);
    else
        mpitev__raise_other(type, src, object, cb_safety, payload, ts);
}

/* ---- Accessors used inside callbacks. The instance pointer is only valid during the
 * callback; a NULL or foreign pointer is rejected by the magic check where readable. */
static int mpitev__instance_ok(const mpitev_instance *i) {
    return i != NULL && i->mpitev__magic == MPITEV__INSTANCE_MAGIC && i->mpitev__type != NULL;
}

MPITEV_API int mpitev_instance_read(const mpitev_instance *i, int element, void *buffer) {
    if (!mpitev__instance_ok(i)) return MPITEV_ERR_INVALID_HANDLE;
    const mpitev_type *t = i->mpitev__type;
    if (element < 0 || element >= t->mpitev__desc.num_elements) return MPITEV_ERR_INVALID_INDEX;
    if (!buffer || !i->mpitev__payload) return MPITEV_ERR_INVALID_ARG;
    memcpy(buffer, i->mpitev__payload + t->mpitev__disp[element], t->mpitev__size[element]);
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_instance_copy(const mpitev_instance *i, void *buffer) {
    if (!mpitev__instance_ok(i)) return MPITEV_ERR_INVALID_HANDLE;
    if (!buffer) return MPITEV_ERR_INVALID_ARG;
    const mpitev_type *t = i->mpitev__type;
    if (t->mpitev__extent == 0) return MPITEV_SUCCESS;
    if (!i->mpitev__payload) return MPITEV_ERR_INVALID_ARG;
    memcpy(buffer, i->mpitev__payload, t->mpitev__extent);
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_instance_timestamp(const mpitev_instance *i, int64_t *ts) {
    if (!mpitev__instance_ok(i)) return MPITEV_ERR_INVALID_HANDLE;
    if (!ts) return MPITEV_ERR_INVALID_ARG;
    *ts = i->mpitev__timestamp;
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_instance_source(const mpitev_instance *i, int *source_index) {
    if (!mpitev__instance_ok(i)) return MPITEV_ERR_INVALID_HANDLE;
    if (!source_index) return MPITEV_ERR_INVALID_ARG;
    *source_index = i->mpitev__source;
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_instance_type(const mpitev_instance *i, int *type_index) {
    if (!mpitev__instance_ok(i)) return MPITEV_ERR_INVALID_HANDLE;
    if (!type_index) return MPITEV_ERR_INVALID_ARG;
    *type_index = i->mpitev__type->mpitev__index;
    return MPITEV_SUCCESS;
}
