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

/* Deliver one instance to every matching registration of a set (immediate delivery),
 * except those buffered on this source (bufmask, see impl_buffer_ring.h; 0: none). */
static void mpitev__deliver_set(const struct mpitev__regset *set, mpitev_source *src, const void *object,
                                int cb_safety, const mpitev_instance *inst, int bufmask) {
    int too_deep = mpitev__tls_depth > MPITEV_MAX_DEPTH;
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

static int64_t mpitev__timestamp(mpitev_source *src) {
    int64_t ts = src->mpitev__clock.now ? src->mpitev__clock.now(src->mpitev__clock.ctx) : 0;
    if (src->mpitev__ordering == MPITEV_SOURCE_ORDERED) {
        /* One control flow raises: a plain read-modify-write of last_ts is enough. */
        if (ts < src->mpitev__last_ts) ts = src->mpitev__last_ts;
        src->mpitev__last_ts = ts;
    }
    return ts;
}

/* Immediate delivery of one instance (the part of a raise that runs tool code). */
static void mpitev__deliver_now(const struct mpitev__regset *set, mpitev_type *type, mpitev_source *src,
                                const void *object, int cb_safety, const void *payload, int64_t ts, int bufmask) {
    mpitev_instance inst;
    inst.mpitev__magic = MPITEV__INSTANCE_MAGIC;
    inst.mpitev__source = src->mpitev__index;
    inst.mpitev__type = type;
    inst.mpitev__timestamp = ts;
    inst.mpitev__payload = (const unsigned char *)payload;
    mpitev__tls_depth++; /* tool code below runs one delivery level deeper */
    if (atomic_load_explicit(&src->mpitev__drops_pending, memory_order_relaxed))
        mpitev__flush_drops(src, cb_safety);
    mpitev__deliver_set(set, src, object, cb_safety, &inst, bufmask);
    mpitev__tls_depth--;
}

/* Buffered half of a raise (impl_buffer.h). */
MPITEV__INLINE int mpitev__buffer_raise(const struct mpitev__regset *set, mpitev_source *src, mpitev_type *type,
                                        const void *object, int64_t ts, const void *payload, int mask);

/* The raise slow path: someone listens to `type`. Cold and out of line. Registrations
 * buffered on this source get a copy in its ring (no tool code runs); the others are
 * delivered now. */
MPITEV__COLD MPITEV_API void mpitev__raise(mpitev_type *type, mpitev_source *src, const void *object,
                                           int cb_safety, const void *payload) {
    if (!src || !src->mpitev__declared) return; /* undeclared source: nothing to track grace on */
    if (!mpitev__valid_safety(cb_safety)) cb_safety = MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
    int p = mpitev__grace_enter(src);
    const struct mpitev__regset *set = atomic_load_explicit(&type->mpitev__regs, memory_order_acquire);
    if (set) {
        int64_t ts = mpitev__timestamp(src); /* once, shared by every registration */
        int bufmask = 0, nbuf = 0;
        if (set->nbuffered) {
            bufmask = src->mpitev__buffered_default ? (MPITEV__BUF_ON | MPITEV__BUF_SOURCE) : MPITEV__BUF_ON;
            nbuf = mpitev__buffer_raise(set, src, type, object, ts, payload, bufmask);
        }
        if (nbuf < set->n) mpitev__deliver_now(set, type, src, object, cb_safety, payload, ts, bufmask);
    }
    mpitev__grace_exit(src, p);
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
