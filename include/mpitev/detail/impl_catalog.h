/* mpitev implementation: the catalog of event types and sources.
 *
 * Declarations are writers (registry mutex); queries are lock-free readers. An entry is
 * fully written before its pointer is stored and the count is published with release;
 * readers load the count with acquire and only look below it. Entries are never removed
 * or moved before finalize, so indices are stable (MPI-4.1 16.3.8.1 and 16.3.8.3). */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/impl_catalog.h is internal: include <mpitev/mpitev.h> instead"
#endif

static size_t mpitev__dtype_size(mpitev_dtype t) {
    switch (t) {
    case MPITEV_INT8: case MPITEV_UINT8: return 1;
    case MPITEV_INT16: case MPITEV_UINT16: return 2;
    case MPITEV_INT32: case MPITEV_UINT32: return 4;
    case MPITEV_INT64: case MPITEV_UINT64: return 8;
    case MPITEV_CHAR: case MPITEV_SIGNED_CHAR: case MPITEV_UNSIGNED_CHAR: return 1;
    case MPITEV_SHORT: case MPITEV_UNSIGNED_SHORT: return sizeof(short);
    case MPITEV_INT: case MPITEV_UNSIGNED: return sizeof(int);
    case MPITEV_LONG: case MPITEV_UNSIGNED_LONG: return sizeof(long);
    case MPITEV_LONG_LONG: case MPITEV_UNSIGNED_LONG_LONG: return sizeof(long long);
    case MPITEV_FLOAT: return sizeof(float);
    case MPITEV_DOUBLE: return sizeof(double);
    case MPITEV_COUNT: return sizeof(mpitev_count_t);
    case MPITEV_OFFSET: return sizeof(mpitev_offset_t);
    case MPITEV_AINT: return sizeof(intptr_t);
    case MPITEV_UINTPTR: return sizeof(uintptr_t);
    case MPITEV_CHAR_ARRAY: return 1; /* per char */
    default: return 0;
    }
}

static size_t mpitev__dtype_align(mpitev_dtype t) {
    switch (t) {
    case MPITEV_SHORT: case MPITEV_UNSIGNED_SHORT: return _Alignof(short);
    case MPITEV_INT: case MPITEV_UNSIGNED: return _Alignof(int);
    case MPITEV_LONG: case MPITEV_UNSIGNED_LONG: return _Alignof(long);
    case MPITEV_LONG_LONG: case MPITEV_UNSIGNED_LONG_LONG: return _Alignof(long long);
    case MPITEV_FLOAT: return _Alignof(float);
    case MPITEV_DOUBLE: return _Alignof(double);
    case MPITEV_INT16: case MPITEV_UINT16: return _Alignof(int16_t);
    case MPITEV_INT32: case MPITEV_UINT32: return _Alignof(int32_t);
    case MPITEV_INT64: case MPITEV_UINT64: case MPITEV_COUNT: case MPITEV_OFFSET:
        return _Alignof(int64_t);
    case MPITEV_AINT: return _Alignof(intptr_t);
    case MPITEV_UINTPTR: return _Alignof(uintptr_t);
    default: return 1;
    }
}

static mpitev_type *mpitev__type_at(int index) {
    if (index < 0 || index >= atomic_load_explicit(&mpitev__S->ntypes, memory_order_acquire)) return NULL;
    return atomic_load_explicit(&mpitev__S->types[index], memory_order_relaxed);
}

static mpitev_source *mpitev__source_at(int index) {
    if (index < 0 || index >= atomic_load_explicit(&mpitev__S->nsources, memory_order_acquire)) return NULL;
    return atomic_load_explicit(&mpitev__S->sources[index], memory_order_relaxed);
}

/* Is the name already used by a declared type? (mutex held) */
static int mpitev__type_name_taken(const char *name) {
    int n = atomic_load_explicit(&mpitev__S->ntypes, memory_order_relaxed);
    for (int i = 0; i < n; i++)
        if (strcmp(atomic_load_explicit(&mpitev__S->types[i], memory_order_relaxed)->mpitev__desc.name, name) == 0)
            return 1;
    return 0;
}

/* Validate a declaration and compute the layout: natural alignment, ascending, first at 0. */
static int mpitev__layout(const mpitev_type_desc *d, size_t *disp, size_t *size, size_t *extent) {
    size_t off = 0, maxalign = 1;
    for (int i = 0; i < d->num_elements; i++) {
        const mpitev_element *e = &d->elements[i];
        if (e->dtype <= MPITEV_DTYPE_INVALID || e->dtype >= MPITEV_DTYPE_COUNT_) return MPITEV_ERR_INVALID_ARG;
        size_t n = 1;
        if (e->dtype == MPITEV_CHAR_ARRAY) {
            if (e->count <= 0) return MPITEV_ERR_INVALID_ARG;
            n = (size_t)e->count;
        } else if (e->count != 0 && e->count != 1) {
            return MPITEV_ERR_INVALID_ARG;
        }
        size_t a = mpitev__dtype_align(e->dtype);
        off = (off + a - 1) & ~(a - 1);
        if (e->expect_offset != MPITEV_ANY_OFFSET && (e->expect_offset < 0 || (size_t)e->expect_offset != off))
            return MPITEV_ERR_INVALID_ARG;
        disp[i] = off;
        size[i] = mpitev__dtype_size(e->dtype) * n;
        off += size[i];
        if (a > maxalign) maxalign = a;
    }
    /* The extent ends with the last element: it is what a tool computes from the
     * displacements and datatypes (16.3.8.6), so copy never writes past it. The raise
     * site's struct may be longer by its trailing padding, the rounded size below. */
    *extent = off;
    size_t struct_size = (off + maxalign - 1) & ~(maxalign - 1);
    if (d->payload_size != 0 && d->payload_size != struct_size) return MPITEV_ERR_INVALID_ARG;
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_type_declare(mpitev_type *t, const mpitev_type_desc *d) {
    if (!t || !d) return MPITEV_ERR_INVALID_ARG;
    if (!d->name || !d->name[0]) return MPITEV_ERR_INVALID_NAME;
    if (d->verbosity < MPITEV_VERBOSITY_USER_BASIC || d->verbosity > MPITEV_VERBOSITY_MPIDEV_ALL ||
        d->bind < 0 || d->bind >= MPITEV_BIND_KINDS || d->num_elements < 0 ||
        d->num_elements > MPITEV_MAX_ELEMENTS || (d->num_elements > 0 && !d->elements) ||
        (d->flags & ~(unsigned)MPITEV_TYPE_ALWAYS_BUFFERED) != 0)
        return MPITEV_ERR_INVALID_ARG;
    if (d->enumtype && (d->enumtype->num_items < 0 || (d->enumtype->num_items > 0 && !d->enumtype->items)))
        return MPITEV_ERR_INVALID_ARG;
    if (!mpitev__lock_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    int rc = MPITEV_SUCCESS;
    size_t *disp = NULL, *size = NULL, extent = 0, bytes = sizeof(size_t) * (size_t)d->num_elements;
    if (t->mpitev__declared) { rc = MPITEV_ERR_INVALID_ARG; goto out; }
    if (mpitev__type_name_taken(d->name)) { rc = MPITEV_ERR_INVALID_NAME; goto out; }
    int n = atomic_load_explicit(&mpitev__S->ntypes, memory_order_relaxed);
    if (n >= MPITEV__MAX_TYPES) { rc = MPITEV_ERR_NO_MEM; goto out; }
    disp = (size_t *)mpitev__alloc(bytes, _Alignof(size_t));
    size = (size_t *)mpitev__alloc(bytes, _Alignof(size_t));
    if (!disp || !size) { rc = MPITEV_ERR_NO_MEM; goto out; }
    rc = mpitev__layout(d, disp, size, &extent);
    if (rc != MPITEV_SUCCESS) goto out;
    atomic_store_explicit(&t->mpitev__regs, NULL, memory_order_relaxed);
    t->mpitev__desc = *d;
    t->mpitev__disp = disp;
    t->mpitev__size = size;
    t->mpitev__extent = extent;
    t->mpitev__index = n;
    t->mpitev__declared = 1;
    disp = size = NULL;
    atomic_store_explicit(&mpitev__S->types[n], t, memory_order_relaxed);
    atomic_store_explicit(&mpitev__S->ntypes, n + 1, memory_order_release); /* pairs with mpitev__type_at */
out:
    mpitev__free(disp, bytes, _Alignof(size_t));
    mpitev__free(size, bytes, _Alignof(size_t));
    mpitev__unlock();
    return rc;
}

MPITEV_API int mpitev_source_declare(mpitev_source *s, const mpitev_source_desc *d) {
    if (!s || !d) return MPITEV_ERR_INVALID_ARG;
    if (!d->name || !d->name[0]) return MPITEV_ERR_INVALID_NAME;
    if (d->ordering != MPITEV_SOURCE_ORDERED && d->ordering != MPITEV_SOURCE_UNORDERED)
        return MPITEV_ERR_INVALID_ARG;
    if (d->clock && (d->clock->ticks_per_second <= 0 || d->clock->max_ticks <= 0))
        return MPITEV_ERR_INVALID_ARG;
    if (!mpitev__lock_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    int rc = MPITEV_SUCCESS;
    int n = atomic_load_explicit(&mpitev__S->nsources, memory_order_relaxed);
    if (s->mpitev__declared) { rc = MPITEV_ERR_INVALID_ARG; goto out; }
    for (int i = 0; i < n; i++)
        if (strcmp(atomic_load_explicit(&mpitev__S->sources[i], memory_order_relaxed)->mpitev__name, d->name) == 0) {
            rc = MPITEV_ERR_INVALID_NAME;
            goto out;
        }
    if (n >= MPITEV_MAX_SOURCES) { rc = MPITEV_ERR_NO_MEM; goto out; }
    memset(s, 0, sizeof *s);
    s->mpitev__index = n;
    s->mpitev__ordering = d->ordering;
    s->mpitev__name = d->name;
    s->mpitev__desc = d->desc ? d->desc : "";
    s->mpitev__clock = d->clock ? *d->clock : mpitev__default_clock;
    s->mpitev__buf_capacity = d->buffer_capacity;
    s->mpitev__buf_record_size = d->buffer_record_size;
    s->mpitev__buffered_default = d->buffered_by_default != 0; /* 0 or 1: indexes regset.need */
    s->mpitev__last_ts = INT64_MIN;
    rc = mpitev__srcbuf_create(s, d); /* every source can buffer (impl_buffer_ring.h) */
    if (rc) { memset(s, 0, sizeof *s); goto out; }
    /* 1: declared ordered, 2: declared unordered (one load tells the raise both). */
    s->mpitev__declared = d->ordering == MPITEV_SOURCE_ORDERED ? 1 : 2;
    s->mpitev__rkind = d->ordering != MPITEV_SOURCE_ORDERED ? MPITEV__RK_UNORDERED
                       : mpitev__clock_monotonic(&s->mpitev__clock) ? MPITEV__RK_FAST : MPITEV__RK_CLAMP;
    atomic_store_explicit(&s->mpitev__active, MPITEV__IDLE(s), memory_order_relaxed); /* 1: RK_FAST */
    atomic_store_explicit(&mpitev__S->sources[n], s, memory_order_relaxed);
    atomic_store_explicit(&mpitev__S->nsources, n + 1, memory_order_release); /* pairs with mpitev__source_at */
out:
    mpitev__unlock();
    return rc;
}

MPITEV_API int mpitev_type_index(const mpitev_type *t) {
    return (t && t->mpitev__declared) ? t->mpitev__index : -1;
}
MPITEV_API int mpitev_source_index(const mpitev_source *s) {
    return (s && s->mpitev__declared) ? s->mpitev__index : -1;
}

MPITEV_API int mpitev_type_get_num(int *num) {
    if (!mpitev__is_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    if (!num) return MPITEV_ERR_INVALID_ARG;
    *num = atomic_load_explicit(&mpitev__S->ntypes, memory_order_acquire);
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_type_get_info(int index, mpitev_type_info *info) {
    if (!mpitev__is_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    mpitev_type *t = mpitev__type_at(index);
    if (!t) return MPITEV_ERR_INVALID_INDEX;
    if (!info) return MPITEV_ERR_INVALID_ARG;
    const mpitev_type_desc *d = &t->mpitev__desc;
    info->name = d->name;
    info->desc = d->desc ? d->desc : "";
    info->verbosity = d->verbosity;
    info->bind = d->bind;
    info->category = d->category;
    info->enumtype = d->enumtype;
    info->num_elements = d->num_elements;
    info->elements = d->elements;
    info->displacements = t->mpitev__disp;
    info->sizes = t->mpitev__size;
    info->extent = t->mpitev__extent;
    info->flags = d->flags;
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_type_get_index(const char *name, int *index) {
    if (!mpitev__is_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    if (!index) return MPITEV_ERR_INVALID_ARG;
    if (!name) return MPITEV_ERR_INVALID_NAME;
    int n = atomic_load_explicit(&mpitev__S->ntypes, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        if (strcmp(atomic_load_explicit(&mpitev__S->types[i], memory_order_relaxed)->mpitev__desc.name, name) == 0) {
            *index = i;
            return MPITEV_SUCCESS;
        }
    }
    return MPITEV_ERR_INVALID_NAME;
}

MPITEV_API int mpitev_source_get_num(int *num) {
    if (!mpitev__is_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    if (!num) return MPITEV_ERR_INVALID_ARG;
    *num = atomic_load_explicit(&mpitev__S->nsources, memory_order_acquire);
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_source_get_info(int index, mpitev_source_info *info) {
    if (!mpitev__is_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    mpitev_source *s = mpitev__source_at(index);
    if (!s) return MPITEV_ERR_INVALID_INDEX;
    if (!info) return MPITEV_ERR_INVALID_ARG;
    info->name = s->mpitev__name;
    info->desc = s->mpitev__desc;
    info->ordering = s->mpitev__ordering;
    info->ticks_per_second = s->mpitev__clock.ticks_per_second;
    info->max_ticks = s->mpitev__clock.max_ticks;
    info->has_now = s->mpitev__clock.now != NULL;
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_source_get_timestamp(int index, int64_t *ts) {
    if (!mpitev__is_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    mpitev_source *s = mpitev__source_at(index);
    if (!s) return MPITEV_ERR_INVALID_INDEX;
    if (!ts) return MPITEV_ERR_INVALID_ARG;
    if (!s->mpitev__clock.now) return MPITEV_ERR_NOT_SUPPORTED;
    *ts = s->mpitev__clock.now(s->mpitev__clock.ctx);
    return MPITEV_SUCCESS;
}

MPITEV_API const mpitev_clock *mpitev_clock_monotonic(void) { return &mpitev__default_clock; }

/* ---- Categories: the distinct category names of the types, in first-declared order. */
static const char *mpitev__category_nth(int k, int ntypes) {
    int seen = 0;
    for (int i = 0; i < ntypes; i++) {
        const char *c = atomic_load_explicit(&mpitev__S->types[i], memory_order_relaxed)->mpitev__desc.category;
        if (!c) continue;
        int first = 1;
        for (int j = 0; j < i && first; j++) {
            const char *p = atomic_load_explicit(&mpitev__S->types[j], memory_order_relaxed)->mpitev__desc.category;
            if (p && strcmp(p, c) == 0) first = 0;
        }
        if (first && seen++ == k) return c;
    }
    return NULL;
}

MPITEV_API int mpitev_category_get_num(int *num) {
    if (!mpitev__is_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    if (!num) return MPITEV_ERR_INVALID_ARG;
    int ntypes = atomic_load_explicit(&mpitev__S->ntypes, memory_order_acquire), k = 0;
    while (mpitev__category_nth(k, ntypes)) k++;
    *num = k;
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_category_get_name(int index, const char **name) {
    if (!mpitev__is_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    const char *c = index < 0 ? NULL : mpitev__category_nth(index, atomic_load_explicit(&mpitev__S->ntypes, memory_order_acquire));
    if (!c) return MPITEV_ERR_INVALID_INDEX;
    if (!name) return MPITEV_ERR_INVALID_ARG;
    *name = c;
    return MPITEV_SUCCESS;
}

MPITEV_API int mpitev_category_get_events(int index, int len, int indices[], int *num_events) {
    if (!mpitev__is_initialized()) return MPITEV_ERR_NOT_INITIALIZED;
    int ntypes = atomic_load_explicit(&mpitev__S->ntypes, memory_order_acquire);
    const char *c = index < 0 ? NULL : mpitev__category_nth(index, ntypes);
    if (!c) return MPITEV_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices)) return MPITEV_ERR_INVALID_ARG;
    int k = 0;
    for (int i = 0; i < ntypes; i++) {
        const char *p = atomic_load_explicit(&mpitev__S->types[i], memory_order_relaxed)->mpitev__desc.category;
        if (p && strcmp(p, c) == 0) {
            if (k < len) indices[k] = i;
            k++;
        }
    }
    if (num_events) *num_events = k;
    return MPITEV_SUCCESS;
}
