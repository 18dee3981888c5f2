/* mpitev detail: the objects an implementor allocates (event types, sources) and the
 * instance a callback sees. Their fields are internal (mpitev__ prefix): use the API.
 * They live in the implementor's storage (usually static) so that the raise fast path
 * is one load from a link-time-constant address. ABI rule: fields are only appended. */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/objects.h is internal: include <mpitev/mpitev.h> instead"
#endif
#ifndef MPITEV_DETAIL_OBJECTS_H
#define MPITEV_DETAIL_OBJECTS_H

#include <stdatomic.h>

struct mpitev__regset;
struct mpitev__srcbuf;

/* An event type. Zero-initialised storage is a valid "not declared, nobody listens". */
typedef struct mpitev_type {
    /* The one word the raise fast path reads: the immutable set of registrations that
     * have at least one callback, or NULL when nobody listens. Published with release by
     * registry writers; the raise path re-reads it with acquire inside its grace section. */
    _Atomic(struct mpitev__regset *) mpitev__regs;
    int mpitev__declared;
    int mpitev__index;
    mpitev_type_desc mpitev__desc;   /* copy of the declaration */
    size_t *mpitev__disp;            /* num_elements displacements */
    size_t *mpitev__size;            /* num_elements element sizes */
    size_t mpitev__extent;
} mpitev_type;

/* Per-source reader counters for grace periods, one per epoch parity (unordered
 * sources; see impl_grace.h). */
typedef struct mpitev__grace_counters {
    _Atomic uint64_t inflight[2];
} mpitev__grace_counters;

/* mpitev__rkind: what the raise dispatches on (one load and one compare). */
enum { MPITEV__RK_NONE = 0,       /* not declared: a raise does nothing */
       MPITEV__RK_FAST = 1,       /* ordered, clock monotonic by contract: no clamp */
       MPITEV__RK_CLAMP = 2,      /* ordered, other clock: timestamps clamped */
       MPITEV__RK_UNORDERED = 3 };
/* The value of a source's active word outside raises (impl_grace.h). */
#define MPITEV__IDLE(s) ((uint64_t)((s)->mpitev__rkind == MPITEV__RK_FAST))

/* An event source: an ordered control flow (or an unordered group of them) with a clock. */
typedef struct mpitev_source {
    int mpitev__declared;                    /* 0: no; 1: ordered; 2: unordered */
    int mpitev__index;
    int mpitev__ordering;
    int mpitev__buffered_default;
    const char *mpitev__name;
    const char *mpitev__desc;
    mpitev_clock mpitev__clock;
    struct mpitev__srcbuf *mpitev__buf;      /* buffered delivery; NULL until configured */
    uint32_t mpitev__buf_capacity;
    uint32_t mpitev__buf_record_size;
    /* Raise-side state on its own cache line: written by the raising thread(s), read by
     * the grace-period reclaimer (active) and the drainer (wtail). The w* fields are the
     * producer side of an ordered source's ring (impl_buffer_ring.h), kept here so that
     * a buffered raise touches this line, the set and the record only. */
    _Alignas(MPITEV_CACHE_LINE) _Atomic uint64_t mpitev__active; /* ordered: 2 + epoch of the
                                              * outermost raise in progress; outside
                                              * raises 1 if RK_FAST, else (and on any
                                              * other source) 0: the raise's dispatch */
    _Atomic int mpitev__drops_pending;       /* some registration has unreported drops here */
    int mpitev__rkind;                       /* MPITEV__RK_* */
    unsigned char *mpitev__wr;               /* ordered: next record to write */
    unsigned char *mpitev__wstop;            /* ordered: wr < wstop: free, no wrap due */
    _Atomic uint64_t mpitev__wtail;          /* ordered: next position (published) */
    uint32_t mpitev__wstride;                /* ordered: ring geometry copies */
    uint32_t mpitev__wpayload;
    int64_t mpitev__last_ts;                 /* ordered, clamped: last timestamp given */
    /* Unordered sources' grace counters (read-modify-writes from any raising thread). */
    _Alignas(MPITEV_CACHE_LINE) mpitev__grace_counters mpitev__grace;
    char mpitev__pad[MPITEV_CACHE_LINE];
} mpitev_source;

/* What a callback receives. Valid only during the callback it is passed to. */
struct mpitev_instance {
    uint32_t mpitev__magic;
    int mpitev__source;
    const mpitev_type *mpitev__type;
    int64_t mpitev__timestamp;
    const unsigned char *mpitev__payload;
};
#define MPITEV__INSTANCE_MAGIC 0x6d747631u /* "mtv1" */

#endif /* MPITEV_DETAIL_OBJECTS_H */
