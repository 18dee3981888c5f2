/* mpitev implementation: registrations (handles, callbacks, hints, free) and lifecycle.
 *
 * Every function here is a registry writer: it takes the registry mutex, changes
 * writer-side state, publishes immutable snapshots (registration sets, callback sets)
 * with release stores and retires the old ones through a grace period. Raises never
 * take the mutex; see impl_deliver.h. Tool code (free callbacks) never runs under it. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/impl_registration.h is internal: include <mpitev/mpitev.h> instead"
#endif

/* Hint keys the core understands (docs/tool-writers-guide.md). */
#define MPITEV_HINT_BUFFERED "mpitev_buffered"

static uint64_t mpitev__handle_bits(uint32_t index, uint32_t gen) {
    return ((uint64_t)gen << 32) | (uint64_t)(index + 1u);
}
static mpitev_reg mpitev__mkreg(uint64_t bits) {
    mpitev_reg r;
    r.bits = bits;
    return r;
}

/* The slot a handle names if the handle is current, else NULL. Never dereferences
 * anything the handle alone points to: index is bounds-checked against slots that exist
 * (chunks are never freed before finalize), then the generation must match. */
static mpitev__slot *mpitev__slot_of(mpitev_reg reg) {
    uint32_t lo = (uint32_t)(reg.bits & 0xffffffffu), gen = (uint32_t)(reg.bits >> 32);
    if (lo == 0 || (gen & 1u) == 0) return NULL;
    uint32_t index = lo - 1;
    if (index >= atomic_load_explicit(&mpitev__S->nslots, memory_order_acquire)) return NULL;
    mpitev__slot *chunk = atomic_load_explicit(&mpitev__S->chunks[index / MPITEV__CHUNK_SLOTS], memory_order_acquire);
    if (!chunk) return NULL;
    mpitev__slot *s = &chunk[index % MPITEV__CHUNK_SLOTS];
    if (atomic_load_explicit(&s->gen, memory_order_acquire) != gen) return NULL;
    return s;
}

MPITEV_API int mpitev_reg_is_valid(mpitev_reg reg) {
    return mpitev__is_initialized() && mpitev__slot_of(reg) != NULL;
}

/* Generation new slots start at (even). The last finalize raises it above every
 * generation handed out so far, so a handle kept from an earlier init/finalize session
 * stays stale in the next one instead of naming a new registration in the same slot. */
static uint32_t mpitev__gen_floor;

/* Take a free slot, growing by one chunk when needed (mutex held). */
static mpitev__slot *mpitev__slot_take(void) {
    if (!mpitev__S->free_slots) {
        uint32_t n = atomic_load_explicit(&mpitev__S->nslots, memory_order_relaxed);
        uint32_t c = n / MPITEV__CHUNK_SLOTS;
        if (c >= MPITEV__MAX_CHUNKS) return NULL;
        mpitev__slot *chunk = (mpitev__slot *)mpitev__zalloc(sizeof(mpitev__slot) * MPITEV__CHUNK_SLOTS, MPITEV_CACHE_LINE);
        if (!chunk) return NULL;
        for (int i = MPITEV__CHUNK_SLOTS - 1; i >= 0; i--) {
            chunk[i].index = n + (uint32_t)i;
            atomic_store_explicit(&chunk[i].gen, mpitev__gen_floor, memory_order_relaxed);
            chunk[i].next_free = mpitev__S->free_slots;
            mpitev__S->free_slots = &chunk[i];
        }
        atomic_store_explicit(&mpitev__S->chunks[c], chunk, memory_order_release);
        atomic_store_explicit(&mpitev__S->nslots, n + MPITEV__CHUNK_SLOTS, memory_order_release);
    }
    mpitev__slot *s = mpitev__S->free_slots;
    mpitev__S->free_slots = s->next_free;
    s->next_free = NULL;
    return s;
}

static size_t mpitev__regset_bytes(int n, int may_buffer) {
    /* ref[n], then (when some entry may buffer) the drain's two lists (at most n each)
     * and the producer snapshot. */
    return sizeof(struct mpitev__regset) + sizeof(mpitev__regref) * (size_t)n * (may_buffer ? 3 : 1) +
           (may_buffer ? sizeof(uint64_t) * MPITEV_MAX_SOURCES : 0);
}

/* Give a set back (mutex held; no raise or drain can reach it any more). */
static void mpitev__regset_free(struct mpitev__regset *set) {
    if (set) mpitev__free(set, set->bytes, MPITEV_CACHE_LINE);
}

/* Rebuild type's registration set with `add` added or `del` removed; publish it and
 * retire the old one (mutex held). */
static int mpitev__regset_update(mpitev_type *t, mpitev__slot *add, mpitev__slot *del) {
    struct mpitev__regset *old = atomic_load_explicit(&t->mpitev__regs, memory_order_relaxed);
    int n = old ? old->n : 0, m = n + (add ? 1 : 0) - (del ? 1 : 0);
    struct mpitev__regset *nw = NULL;
    if (m > 0) {
        int may = add && add->buffered != MPITEV__BUF_OFF;
        for (int i = 0; i < n; i++)
            if (old->ref[i].slot != del) may |= old->ref[i].buffered != MPITEV__BUF_OFF;
        size_t bytes = mpitev__regset_bytes(m, may);
        nw = (struct mpitev__regset *)mpitev__zalloc(bytes, MPITEV_CACHE_LINE);
        if (!nw) return MPITEV_ERR_NO_MEM;
        int k = 0;
        for (int i = 0; i < n; i++)
            if (old->ref[i].slot != del) nw->ref[k++] = old->ref[i];
        if (add) {
            mpitev__regref *r = &nw->ref[k++];
            r->slot = add;
            r->handle = mpitev__handle_bits(add->index, atomic_load_explicit(&add->gen, memory_order_relaxed));
            r->object = add->object;
            r->bound = add->bound;
            r->buffered = add->buffered;
        }
        nw->n = k;
        nw->type = t;
        nw->extent = t->mpitev__extent;
        nw->bytes = bytes;
        int n_off = 0;
        for (int i = 0; i < k; i++) {
            nw->n_on += nw->ref[i].buffered == MPITEV__BUF_ON;
            nw->n_src += nw->ref[i].buffered == MPITEV__BUF_SOURCE;
            n_off += nw->ref[i].buffered == MPITEV__BUF_OFF;
        }
        /* What a raise does, by the source's buffered_by_default (0 or 1). */
        for (int d = 0; d < 2; d++)
            nw->need[d] = (unsigned char)(((nw->n_on || (d && nw->n_src)) ? MPITEV__NEED_RING : 0) |
                                          ((n_off || (!d && nw->n_src)) ? MPITEV__NEED_NOW : 0));
        /* The drain's lists (mpitev__drain_ring): buffered entries by buffered_by_default. */
        mpitev__regref *bl = &nw->ref[k];
        for (int d = 0; d < 2; d++) {
            int bmask = d ? (MPITEV__BUF_ON | MPITEV__BUF_SOURCE) : MPITEV__BUF_ON;
            nw->bref[d] = bl;
            for (int i = 0; may && i < k; i++)
                if (nw->ref[i].buffered & bmask) *bl++ = nw->ref[i];
            nw->bend[d] = bl;
        }
        nw->bufsnap = may ? (uint64_t *)(void *)&nw->ref[3 * k] : NULL;
    }
    /* release: the set's contents are visible to whoever loads the pointer (acquire in
     * mpitev__raise, relaxed + later acquire for the fast path check). */
    atomic_store_explicit(&t->mpitev__regs, nw, memory_order_release);
    /* A set some entry may buffer from can be named by records: its free also waits
     * for the drains (mpitev__set_drains_passed). */
    if (old) mpitev__retire(&old->retired, old->bufsnap ? MPITEV__RETIRED_SET : MPITEV__RETIRED_MEMORY, old->bytes,
                            MPITEV_CACHE_LINE);
    if (add) add->in_set = 1;
    if (del) del->in_set = 0;
    return MPITEV_SUCCESS;
}

static void mpitev__cbset_pick(mpitev__cbset *c) {
    c->ncallbacks = 0;
    for (int l = 0; l < MPITEV_CB_LEVELS; l++) c->ncallbacks += c->fn[l] != NULL;
    for (int r = 0; r < MPITEV_CB_LEVELS; r++) {
        c->pick[r] = -1;
        for (int l = r; l < MPITEV_CB_LEVELS; l++)
            if (c->fn[l]) { c->pick[r] = (signed char)l; break; }
    }
}

/* Copy the current callback set for modification (mutex held). */
static mpitev__cbset *mpitev__cbset_copy(mpitev__slot *s) {
    mpitev__cbset *c = (mpitev__cbset *)mpitev__zalloc(sizeof *c, _Alignof(mpitev__cbset));
    mpitev__cbset *old = atomic_load_explicit(&s->cbs, memory_order_relaxed);
    if (c && old) *c = *old;
    return c;
}

/* Publish a new callback set and keep the type's registration set in step: a
 * registration is listed (raised to) while it has at least one callback (mutex held). */
static int mpitev__cbset_publish(mpitev__slot *s, mpitev__cbset *c) {
    mpitev__cbset_pick(c);
    int want = c->ncallbacks > 0;
    if (want && !s->in_set) {
        int rc = mpitev__regset_update(s->type, s, NULL);
        if (rc) { mpitev__free(c, sizeof *c, _Alignof(mpitev__cbset)); return rc; }
    }
    mpitev__cbset *old = atomic_load_explicit(&s->cbs, memory_order_relaxed);
    atomic_store_explicit(&s->cbs, c, memory_order_release); /* pairs with acquire in delivery */
    if (old) mpitev__retire(&old->retired, MPITEV__RETIRED_MEMORY, sizeof *old, _Alignof(mpitev__cbset));
    if (!want && s->in_set && mpitev__regset_update(s->type, NULL, s) != MPITEV_SUCCESS) {
        /* Out of memory while unlisting: the registration stays listed with no callback,
         * which raises treat as "not listening" (no drop counted). */
    }
    return MPITEV_SUCCESS;
}

static int mpitev__default_buffered_forced(const mpitev_type *t) {
    return (t->mpitev__desc.flags & MPITEV_TYPE_ALWAYS_BUFFERED) != 0;
}

/* The mpitev_buffered hint: "true"/"1" buffered, "false"/"0" immediate, "default" as
 * the source says; -1 for anything else. */
static int mpitev__buffered_hint(const char *v) {
    if (strcmp(v, "true") == 0 || strcmp(v, "1") == 0) return MPITEV__BUF_ON;
    if (strcmp(v, "false") == 0 || strcmp(v, "0") == 0) return MPITEV__BUF_OFF;
    if (strcmp(v, "default") == 0) return MPITEV__BUF_SOURCE;
    return -1;
}
static const char *mpitev__buffered_name(int mode) {
    return mode == MPITEV__BUF_ON ? "true" : mode == MPITEV__BUF_OFF ? "false" : "default";
}

static int mpitev__apply_hints(mpitev__slot *s, const mpitev_kv *kv, int n, int at_alloc) {
    for (int i = 0; i < n; i++) {
        if (strcmp(kv[i].key, MPITEV_HINT_BUFFERED) == 0) {
            /* The delivery mode can only be chosen at allocation: later changes are
             * ignored (and get_info shows the mode in use), as 16.3.8.4 allows. */
            if (!at_alloc) continue;
            int mode = mpitev__buffered_hint(kv[i].value);
            if (mode < 0) continue; /* not understood: ignored, get_info shows the mode */
            /* A type that must be buffered stays buffered whatever the tool asks. */
            if (!mpitev__default_buffered_forced(s->type)) s->buffered = mode;
            continue; /* recorded below as the mode in use */
        }
        int rc = mpitev__kv_put(&s->info, kv[i].key, kv[i].value);
        if (rc) return rc;
    }
    if (at_alloc || mpitev__kv_get(&s->info, MPITEV_HINT_BUFFERED)) {
        int rc = mpitev__kv_put(&s->info, MPITEV_HINT_BUFFERED, mpitev__buffered_name(s->buffered));
        if (rc) return rc;
    }
    return MPITEV_SUCCESS;
}

/* Default delivery mode for a new registration of type t: buffered if the type must be,
 * else whatever each source's buffered_by_default says (decided at raise time). */
static int mpitev__default_buffered(const mpitev_type *t) {
    return mpitev__default_buffered_forced(t) ? MPITEV__BUF_ON : MPITEV__BUF_SOURCE;
}

static void mpitev__slot_release(mpitev__slot *s) {
    mpitev__kv_clear(&s->info);
    for (int l = 0; l < MPITEV_CB_LEVELS; l++) mpitev__kv_clear(&s->cbinfo[l]);
    for (int i = 0; i < MPITEV_MAX_SOURCES; i++) atomic_store_explicit(&s->drops[i], 0, memory_order_relaxed);
    s->type = NULL;
    s->object = NULL;
    s->free_cb = NULL;
    s->free_ud = NULL;
    s->free_ext = NULL;
    s->bufsnap_taken = 0;
    if (s->zombie) return; /* may still be listed in a set: never reuse */
    s->next_free = mpitev__S->free_slots;
    mpitev__S->free_slots = s;
}

MPITEV_API int mpitev_reg_alloc(int type_index, const void *object, const mpitev_kv *info, int ninfo,
                                mpitev_reg *reg) {
    if (!mpitev__is_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    mpitev_type *t = mpitev__type_at(type_index);
    if (!t) return MPITEV_ERR_INVALID_INDEX;
    if (!reg) return MPITEV_ERR_INVALID_ARG;
    int rc = mpitev__kv_check(info, ninfo);
    if (rc) return rc;
    if (!mpitev__lock_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    mpitev__slot *s = mpitev__slot_take();
    if (!s) { mpitev__unlock(); return MPITEV_ERR_NO_MEM; }
    s->type = t;
    s->bound = t->mpitev__desc.bind != MPITEV_BIND_NO_OBJECT;
    s->object = s->bound ? object : NULL;
    s->buffered = mpitev__default_buffered(t);
    s->in_set = 0;
    s->zombie = 0;
    atomic_store_explicit(&s->cbs, NULL, memory_order_relaxed);
    rc = mpitev__apply_hints(s, info, ninfo, 1);
    if (rc) {
        mpitev__slot_release(s);
        mpitev__unlock();
        return rc;
    }
    uint32_t gen = atomic_load_explicit(&s->gen, memory_order_relaxed) + 1; /* odd: live */
    atomic_store_explicit(&s->gen, gen, memory_order_release);
    *reg = mpitev__mkreg(mpitev__handle_bits(s->index, gen));
    mpitev__unlock();
    return MPITEV_SUCCESS;
}

/* Common prologue: initialised, mutex taken, handle current. */
static int mpitev__lock_slot(mpitev_reg reg, mpitev__slot **out) {
    if (!mpitev__lock_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    *out = mpitev__slot_of(reg);
    if (!*out) { mpitev__unlock(); return MPITEV_ERR_INVALID_HANDLE; }
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_reg_set_info(mpitev_reg reg, const mpitev_kv *info, int ninfo) {
    mpitev__slot *s;
    int rc = mpitev__lock_slot(reg, &s);
    if (rc) return rc;
    rc = mpitev__kv_check(info, ninfo);
    if (!rc) rc = mpitev__apply_hints(s, info, ninfo, 0);
    mpitev__unlock();
    return rc;
}

/* The visitor runs under the registry mutex: it must not call back into mpitev. */
MPITEV_API int mpitev_reg_get_info(mpitev_reg reg, mpitev_kv_visit_fn visit, void *ctx) {
    mpitev__slot *s;
    int rc = mpitev__lock_slot(reg, &s);
    if (rc) return rc;
    if (!visit) rc = MPITEV_ERR_INVALID_ARG;
    else mpitev__kv_visit(&s->info, visit, ctx);
    mpitev__unlock();
    return rc;
}

MPITEV_API int mpitev_reg_get_type(mpitev_reg reg, int *type_index) {
    mpitev__slot *s;
    int rc = mpitev__lock_slot(reg, &s);
    if (rc) return rc;
    if (!type_index) rc = MPITEV_ERR_INVALID_ARG;
    else *type_index = s->type->mpitev__index;
    mpitev__unlock();
    return rc;
}

MPITEV_API int mpitev_reg_set_callback(mpitev_reg reg, int cb_safety, mpitev_event_cb fn, void *user_data,
                                       mpitev_fnptr ext, const mpitev_kv *info, int ninfo) {
    mpitev__slot *s;
    int rc = mpitev__lock_slot(reg, &s);
    if (rc) return rc;
    if (!mpitev__valid_safety(cb_safety)) rc = MPITEV_ERR_INVALID_ARG;
    if (!rc) rc = mpitev__kv_check(info, ninfo);
    mpitev__cbset *c = rc ? NULL : mpitev__cbset_copy(s);
    if (!rc && !c) rc = MPITEV_ERR_NO_MEM;
    if (!rc) {
        c->fn[cb_safety] = fn;
        c->ud[cb_safety] = fn ? user_data : NULL;
        c->ext[cb_safety] = fn ? ext : NULL;
        /* Replacing (or removing) a callback replaces its hints too (16.3.8.4). Build
         * the new hints aside and swap them in only once the callback is published, so
         * running out of memory leaves callback and hints as they were. */
        mpitev__kvlist hints = { 0, 0, NULL };
        for (int i = 0; fn && i < ninfo && !rc; i++) rc = mpitev__kv_put(&hints, info[i].key, info[i].value);
        if (rc) mpitev__free(c, sizeof *c, _Alignof(mpitev__cbset));
        else rc = mpitev__cbset_publish(s, c);
        if (rc) {
            mpitev__kv_clear(&hints);
        } else {
            mpitev__kv_clear(&s->cbinfo[cb_safety]);
            s->cbinfo[cb_safety] = hints;
        }
    }
    mpitev__unlock();
    return rc;
}

MPITEV_API int mpitev_reg_callback_set_info(mpitev_reg reg, int cb_safety, const mpitev_kv *info, int ninfo) {
    mpitev__slot *s;
    int rc = mpitev__lock_slot(reg, &s);
    if (rc) return rc;
    if (!mpitev__valid_safety(cb_safety)) rc = MPITEV_ERR_INVALID_ARG;
    if (!rc) rc = mpitev__kv_check(info, ninfo);
    for (int i = 0; !rc && i < ninfo; i++) rc = mpitev__kv_put(&s->cbinfo[cb_safety], info[i].key, info[i].value);
    mpitev__unlock();
    return rc;
}

MPITEV_API int mpitev_reg_callback_get_info(mpitev_reg reg, int cb_safety, mpitev_kv_visit_fn visit, void *ctx) {
    mpitev__slot *s;
    int rc = mpitev__lock_slot(reg, &s);
    if (rc) return rc;
    if (!mpitev__valid_safety(cb_safety) || !visit) rc = MPITEV_ERR_INVALID_ARG;
    else mpitev__kv_visit(&s->cbinfo[cb_safety], visit, ctx);
    mpitev__unlock();
    return rc;
}

MPITEV_API int mpitev_reg_set_dropped_handler(mpitev_reg reg, mpitev_dropped_cb fn, mpitev_fnptr ext) {
    mpitev__slot *s;
    int rc = mpitev__lock_slot(reg, &s);
    if (rc) return rc;
    mpitev__cbset *c = mpitev__cbset_copy(s);
    if (!c) rc = MPITEV_ERR_NO_MEM;
    else {
        c->dropped = fn;
        c->dropped_ext = fn ? ext : NULL;
        if (!fn) /* "no data loss is recorded or reported until a new handler is set" */
            for (int i = 0; i < MPITEV_MAX_SOURCES; i++) atomic_store_explicit(&s->drops[i], 0, memory_order_relaxed);
        rc = mpitev__cbset_publish(s, c);
    }
    mpitev__unlock();
    return rc;
}

/* Completions collected under the mutex, run outside it. */
static void mpitev__report_drops_at_free(mpitev__slot *s, int cb_safety);
static int mpitev__buffers_passed(mpitev__slot *s);
static int mpitev__set_drains_passed(struct mpitev__regset *set);

/* May a retired item past its grace period complete, as far as drains go? */
static int mpitev__drains_passed(mpitev__retired *r) {
    if (r->kind == MPITEV__RETIRED_SET) return mpitev__set_drains_passed((struct mpitev__regset *)r);
    if (r->kind == MPITEV__RETIRED_REGISTRATION) return mpitev__buffers_passed((mpitev__slot *)r);
    return 1;
}

static void mpitev__run_completions(mpitev__retired *done, int cb_safety, int *nfree) {
    while (done) {
        mpitev__retired *r = done;
        done = r->next;
        if (!mpitev__drains_passed(r)) {
            /* Records naming it may still sit in a source buffer: wait for the drains
             * (mpitev__progress_locked_then_unlock looks again). */
            pthread_mutex_lock(&mpitev__S->lock);
            r->next = mpitev__S->bufwait_head;
            mpitev__S->bufwait_head = r;
            pthread_mutex_unlock(&mpitev__S->lock);
            continue;
        }
        if (r->kind != MPITEV__RETIRED_REGISTRATION) {
            pthread_mutex_lock(&mpitev__S->lock);
            mpitev__free(r, r->size, r->align);
            pthread_mutex_unlock(&mpitev__S->lock);
            continue;
        }
        mpitev__slot *s = (mpitev__slot *)r; /* retired is the slot's first member */
        mpitev_reg h = mpitev__mkreg(mpitev__handle_bits(s->index, atomic_load_explicit(&s->gen, memory_order_relaxed) - 1));
        mpitev__report_drops_at_free(s, cb_safety);
        if (s->free_cb) s->free_cb(h, cb_safety, s->free_ud, s->free_ext);
        if (nfree) (*nfree)++;
        pthread_mutex_lock(&mpitev__S->lock);
        /* A zombie stays listed in the type's set (unlisting ran out of memory), so a
         * drain may still meet it in a record and read its callbacks to count the
         * discard: they stay until finalize. */
        if (!s->zombie) {
            mpitev__cbset *c = atomic_load_explicit(&s->cbs, memory_order_relaxed);
            atomic_store_explicit(&s->cbs, NULL, memory_order_relaxed);
            mpitev__free(c, sizeof *c, _Alignof(mpitev__cbset));
        }
        mpitev__slot_release(s);
        pthread_mutex_unlock(&mpitev__S->lock);
    }
}

/* Poll grace periods and run what is due, unless we are inside a delivery (then the
 * caller's own raise is still in flight: work waits for the next progress call). */
static int mpitev__progress_locked_then_unlock(int cb_safety) {
    mpitev__retired *done = NULL;
    int nfree = 0;
    if (mpitev__tls_depth == 0 && !mpitev__S->reclaiming) {
        /* Frees that waited for drains first (they are older), then new grace ends. */
        for (mpitev__retired **pp = &mpitev__S->bufwait_head; *pp;) {
            mpitev__retired *r = *pp;
            if (mpitev__drains_passed(r)) {
                *pp = r->next;
                r->next = done;
                done = r;
            } else {
                pp = &r->next;
            }
        }
        mpitev__grace_poll(&done);
        if (done) mpitev__S->reclaiming = 1;
    }
    mpitev__unlock();
    if (done) {
        mpitev__run_completions(done, cb_safety, &nfree);
        pthread_mutex_lock(&mpitev__S->lock);
        mpitev__S->reclaiming = 0;
        pthread_mutex_unlock(&mpitev__S->lock);
    }
    return nfree;
}

MPITEV_API int mpitev_progress(int cb_safety) {
    if (!mpitev__valid_safety(cb_safety)) return 0;
    if (!mpitev__lock_initialized()) return 0;
    return mpitev__progress_locked_then_unlock(cb_safety);
}

MPITEV_API int mpitev_reg_free(mpitev_reg reg, void *user_data, mpitev_free_cb free_cb, mpitev_fnptr ext) {
    mpitev__slot *s;
    int rc = mpitev__lock_slot(reg, &s);
    if (rc) return rc;
    /* Invalidate the handle first: from here on raises skip it (they re-check gen). */
    atomic_store_explicit(&s->gen, atomic_load_explicit(&s->gen, memory_order_relaxed) + 1, memory_order_release);
    if (s->in_set && mpitev__regset_update(s->type, NULL, s) != MPITEV_SUCCESS) s->zombie = 1;
    s->free_cb = free_cb;
    s->free_ud = user_data;
    s->free_ext = free_cb ? ext : NULL;
    mpitev__retire(&s->retired, MPITEV__RETIRED_REGISTRATION, 0, 0);
    mpitev__progress_locked_then_unlock(MPITEV_CB_REQUIRE_NONE);
    return MPITEV_SUCCESS;
}

/* ---- Lifecycle. ---- */
MPITEV_API int mpitev_set_allocator(const mpitev_allocator *a) {
    if (a && (!a->alloc || !a->free)) return MPITEV_ERR_INVALID_ARG;
    pthread_mutex_lock(&mpitev__S->lock);
    int rc = MPITEV_SUCCESS;
    if (mpitev__S->refcount > 0) rc = MPITEV_ERR_NOT_SUPPORTED;
    else if (a) { mpitev__S->alloc = *a; mpitev__S->alloc_set = 1; }
    else mpitev__S->alloc_set = 0;
    pthread_mutex_unlock(&mpitev__S->lock);
    return rc;
}

MPITEV_API int mpitev_init(void) {
    pthread_mutex_lock(&mpitev__S->lock);
    if (mpitev__S->refcount++ == 0) {
        if (!mpitev__S->alloc_set) {
            mpitev__S->alloc.alloc = mpitev__default_alloc;
            mpitev__S->alloc.free = mpitev__default_free;
            mpitev__S->alloc.ctx = NULL;
        }
        mpitev__S->retired_head = NULL;
        mpitev__S->retired_tail = &mpitev__S->retired_head;
        mpitev__S->flip_outstanding = 0;
        mpitev__S->bufwait_head = NULL;
        atomic_store_explicit(&mpitev__S->initialized, 1, memory_order_release);
    }
    pthread_mutex_unlock(&mpitev__S->lock);
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_initialized(void) { return mpitev__is_initialized(); }

static void mpitev__buffers_finalize(int cb_safety);

/* The last finalize: no raise, drain or registry call may run concurrently. Pending
 * frees complete (their callbacks run at MPITEV_CB_REQUIRE_NONE), registrations still
 * alive are dropped without callbacks, declared types and sources are forgotten. */
MPITEV_API int mpitev_finalize(void) {
    pthread_mutex_lock(&mpitev__S->lock);
    if (mpitev__S->refcount == 0) { pthread_mutex_unlock(&mpitev__S->lock); return MPITEV_ERR_NOT_INITIALIZED; }
    if (--mpitev__S->refcount > 0) { pthread_mutex_unlock(&mpitev__S->lock); return MPITEV_SUCCESS; }
    mpitev__S->refcount = 1; /* keep the registry usable for the steps below */
    pthread_mutex_unlock(&mpitev__S->lock);

    mpitev__buffers_finalize(MPITEV_CB_REQUIRE_NONE);
    /* Free what is still alive, then run every completion (nobody raises now). */
    uint32_t nslots = atomic_load_explicit(&mpitev__S->nslots, memory_order_relaxed);
    for (uint32_t i = 0; i < nslots; i++) {
        mpitev__slot *s = &atomic_load_explicit(&mpitev__S->chunks[i / MPITEV__CHUNK_SLOTS], memory_order_relaxed)[i % MPITEV__CHUNK_SLOTS];
        uint32_t gen = atomic_load_explicit(&s->gen, memory_order_relaxed);
        if (gen & 1u) mpitev_reg_free(mpitev__mkreg(mpitev__handle_bits(s->index, gen)), NULL, NULL, NULL);
    }
    for (;;) {
        pthread_mutex_lock(&mpitev__S->lock);
        int busy = mpitev__S->retired_head != NULL || mpitev__S->reclaiming || mpitev__S->bufwait_head != NULL;
        if (!busy) break;
        mpitev__progress_locked_then_unlock(MPITEV_CB_REQUIRE_NONE);
    }
    /* Mutex held. Forget the catalog and give back the slot chunks. */
    int nt = atomic_load_explicit(&mpitev__S->ntypes, memory_order_relaxed);
    for (int i = 0; i < nt; i++) {
        mpitev_type *t = atomic_load_explicit(&mpitev__S->types[i], memory_order_relaxed);
        size_t bytes = sizeof(size_t) * (size_t)t->mpitev__desc.num_elements;
        mpitev__free(t->mpitev__disp, bytes, _Alignof(size_t));
        mpitev__free(t->mpitev__size, bytes, _Alignof(size_t));
        t->mpitev__disp = t->mpitev__size = NULL;
        t->mpitev__declared = 0;
        /* A set can outlive its registrations only when unlisting ran out of memory
         * (zombie slots, or no callback left): nobody raises now, give it back. */
        mpitev__regset_free(atomic_load_explicit(&t->mpitev__regs, memory_order_relaxed));
        atomic_store_explicit(&t->mpitev__regs, NULL, memory_order_relaxed);
        atomic_store_explicit(&mpitev__S->types[i], NULL, memory_order_relaxed);
    }
    atomic_store_explicit(&mpitev__S->ntypes, 0, memory_order_relaxed);
    int ns = atomic_load_explicit(&mpitev__S->nsources, memory_order_relaxed);
    for (int i = 0; i < ns; i++) {
        mpitev_source *s = atomic_load_explicit(&mpitev__S->sources[i], memory_order_relaxed);
        s->mpitev__declared = 0;
        s->mpitev__rkind = MPITEV__RK_NONE;
        atomic_store_explicit(&s->mpitev__active, 0, memory_order_relaxed); /* off the fast path */
        mpitev__srcbuf_destroy(s);
        atomic_store_explicit(&mpitev__S->sources[i], NULL, memory_order_relaxed);
    }
    atomic_store_explicit(&mpitev__S->nsources, 0, memory_order_relaxed);
    for (uint32_t c = 0; c < nslots / MPITEV__CHUNK_SLOTS; c++) {
        mpitev__slot *chunk = atomic_load_explicit(&mpitev__S->chunks[c], memory_order_relaxed);
        for (int i = 0; i < MPITEV__CHUNK_SLOTS; i++) {
            mpitev__cbset *zc = atomic_load_explicit(&chunk[i].cbs, memory_order_relaxed); /* zombies' */
            mpitev__free(zc, sizeof *zc, _Alignof(mpitev__cbset));
            uint32_t g = atomic_load_explicit(&chunk[i].gen, memory_order_relaxed);
            if (g >= mpitev__gen_floor) mpitev__gen_floor = (g | 1u) + 1u; /* even, above g */
        }
        mpitev__free(chunk, sizeof(mpitev__slot) * MPITEV__CHUNK_SLOTS, MPITEV_CACHE_LINE);
        atomic_store_explicit(&mpitev__S->chunks[c], NULL, memory_order_relaxed);
    }
    atomic_store_explicit(&mpitev__S->nslots, 0, memory_order_relaxed);
    mpitev__S->free_slots = NULL;
    mpitev__S->refcount = 0;
    atomic_store_explicit(&mpitev__S->initialized, 0, memory_order_release);
    pthread_mutex_unlock(&mpitev__S->lock);
    return MPITEV_SUCCESS;
}
