/* mpitev implementation: the per-source rings that hold buffered event instances.
 *
 * Two bounded rings of fixed-size records share one layout (docs/buffers.md):
 *   - spsc: ordered sources. One control flow produces, so the producer owns the tail
 *     and publishes it with a plain release store; no atomic read-modify-write. Its
 *     side lives in the source's raise line (mpitev__wr, wstop, wtail, wstride,
 *     wpayload): the next record's address and a stop address below which records are
 *     known free with no wrap due, so a put is one compare, the stores and an add.
 *   - mpsc: unordered sources. Producers reserve a record with a CAS on `tail` and
 *     publish it through the record's own sequence word (Vyukov's bounded queue), so a
 *     producer preempted between reserve and publish never blocks the others.
 * Either way there is one consumer at a time: the drainer that won the source's claim
 * (impl_buffer.h). Producer and consumer counters live on separate cache lines.
 *
 * Positions are 64-bit and only grow (record `pos` lives at index pos & mask); they do
 * not wrap in any realistic run (2^64 records). */
#ifndef MPITEV__INSIDE
#error "mpitev/detail/impl_buffer_ring.h is internal: include <mpitev/mpitev.h> instead"
#endif

#define MPITEV__BUF_DEFAULT_CAPACITY 512u
#define MPITEV__BUF_DEFAULT_PAYLOAD 64u
#define MPITEV__BUF_MAX_CAPACITY (1u << 24)
#define MPITEV__BUF_MAX_PAYLOAD (1u << 16)
#define MPITEV__NO_MARK UINT64_MAX

/* A registration's delivery mode (mpitev__slot.buffered, mpitev__regref.buffered). A
 * raise on source s buffers for ref r when (r.buffered & mask(s)) != 0, where mask(s)
 * is MPITEV__BUF_ON, plus MPITEV__BUF_SOURCE when s is buffered_by_default. */
enum { MPITEV__BUF_OFF = 0, MPITEV__BUF_ON = 1, MPITEV__BUF_SOURCE = 2 };

/* Low bit of mpitev__rec.set: the raise passed no payload (sets are cache-line aligned). */
#define MPITEV__REC_NO_PAYLOAD ((uintptr_t)1)

/* One record: what a raise knows, by value, plus the registration set it loaded. The
 * set names the registrations the instance was raised to ("raised while active" is
 * "listed in the set", as for immediate delivery); the drain decides per registration.
 * The set outlives every record naming it: its free waits for the drains
 * (mpitev__set_drains_passed), and so does the free of every registration listed in a
 * set that may buffer (mpitev__buffers_passed), so the slots it names stay valid. */
typedef struct mpitev__rec {
    _Atomic uint64_t seq;        /* mpsc only: pos+1 published, pos+capacity consumed */
    int64_t ts;                  /* taken once per raise, shared with immediate delivery */
    uintptr_t set;               /* const struct mpitev__regset * | MPITEV__REC_NO_PAYLOAD */
    const void *object;          /* the raise's object key (bound registrations match it) */
    /* payload follows (8-byte aligned: no element type needs more) */
} mpitev__rec;

struct mpitev__srcbuf {
    /* Producer line: written by raises, read by the drainer once per drain and by the
     * free-completion snapshot. */
    _Alignas(MPITEV_CACHE_LINE) _Atomic uint64_t tail; /* mpsc: next position to reserve
                                      * (spsc: the source's mpitev__wtail) */
    _Atomic uint64_t drop_mark;      /* position of the first unreported full-buffer drop */
    /* Consumer line: written by the drainer only. */
    _Alignas(MPITEV_CACHE_LINE) _Atomic uint64_t head; /* next position to consume */
    _Atomic int claim;               /* one drainer at a time (try-claim) */
    _Atomic uint64_t grace[2];       /* drainers' grace-period counters (RMW: any thread) */
    /* Immutable after creation. */
    _Alignas(MPITEV_CACHE_LINE) unsigned char *base;
    uint64_t mask;
    uint32_t capacity;
    uint32_t stride;                 /* bytes per record, multiple of 8 */
    uint32_t payload_max;            /* largest payload a record holds */
    int mpsc;
};

static size_t mpitev__srcbuf_bytes(const struct mpitev__srcbuf *b) {
    return (size_t)b->capacity * b->stride;
}

static mpitev__rec *mpitev__rec_at(const struct mpitev__srcbuf *b, uint64_t pos) {
    return (mpitev__rec *)(void *)(b->base + (size_t)(pos & b->mask) * b->stride);
}

static unsigned char *mpitev__rec_payload(mpitev__rec *r) { return (unsigned char *)(r + 1); }

/* Create the ring of a source being declared (registry mutex held). */
static int mpitev__srcbuf_create(mpitev_source *s, const mpitev_source_desc *d) {
    uint32_t want = d->buffer_capacity ? d->buffer_capacity : MPITEV__BUF_DEFAULT_CAPACITY;
    uint32_t psize = d->buffer_record_size ? d->buffer_record_size : MPITEV__BUF_DEFAULT_PAYLOAD;
    if (want > MPITEV__BUF_MAX_CAPACITY || psize > MPITEV__BUF_MAX_PAYLOAD) return MPITEV_ERR_INVALID_ARG;
    uint32_t cap = 2; /* at least 2: a power of two, so pos & mask indexes */
    while (cap < want) cap <<= 1;
    struct mpitev__srcbuf *b = (struct mpitev__srcbuf *)mpitev__zalloc(sizeof *b, MPITEV_CACHE_LINE);
    if (!b) return MPITEV_ERR_NO_MEM;
    b->capacity = cap;
    b->mask = cap - 1;
    b->payload_max = (psize + 7u) & ~7u;
    b->stride = (uint32_t)sizeof(mpitev__rec) + b->payload_max;
    b->mpsc = d->ordering == MPITEV_SOURCE_UNORDERED;
    b->base = (unsigned char *)mpitev__zalloc(mpitev__srcbuf_bytes(b), MPITEV_CACHE_LINE);
    if (!b->base) {
        mpitev__free(b, sizeof *b, MPITEV_CACHE_LINE);
        return MPITEV_ERR_NO_MEM;
    }
    /* mpsc: record i is free for the producer of position i. */
    for (uint32_t i = 0; b->mpsc && i < cap; i++)
        atomic_init(&mpitev__rec_at(b, i)->seq, i);
    atomic_init(&b->drop_mark, MPITEV__NO_MARK);
    s->mpitev__buf = b;
    /* spsc producer side (unused on mpsc rings): all records free, head 0. */
    s->mpitev__wr = b->base;
    s->mpitev__wstop = b->base + mpitev__srcbuf_bytes(b);
    atomic_init(&s->mpitev__wtail, 0);
    s->mpitev__wstride = b->stride;
    s->mpitev__wpayload = b->payload_max;
    s->mpitev__buf_capacity = cap;
    s->mpitev__buf_record_size = b->payload_max;
    return MPITEV_SUCCESS;
}

/* Finalize only (nothing raises or drains). */
static void mpitev__srcbuf_destroy(mpitev_source *s) {
    struct mpitev__srcbuf *b = s->mpitev__buf;
    if (!b) return;
    mpitev__free(b->base, mpitev__srcbuf_bytes(b), MPITEV_CACHE_LINE);
    mpitev__free(b, sizeof *b, MPITEV_CACHE_LINE);
    s->mpitev__buf = NULL;
}

/* ---- spsc: ordered sources. Producer contract: one control flow at a time (the
 * source's own); consumer contract: the claim holder. ---- */

/* The published tail of src's ring (the drainer's and free completions' view). */
static _Atomic uint64_t *mpitev__ring_tail(mpitev_source *s) {
    return s->mpitev__ordering == MPITEV_SOURCE_ORDERED ? &s->mpitev__wtail : &s->mpitev__buf->tail;
}

/* The producer reached wstop (cold): wrap if at the end of the ring, then recompute
 * wstop from the consumer's head. Returns 1 if the record at wr is free, 0 when the
 * ring is full. Invariant: wr is the address of position wtail, or the end of the ring
 * when wtail is a multiple of the capacity not yet wrapped; [wr, wstop) are free
 * records of the current lap (head only grows: a stale wstop is conservative). */
MPITEV__COLD static int mpitev__spsc_refill(mpitev_source *s) {
    struct mpitev__srcbuf *b = s->mpitev__buf;
    uint64_t p = atomic_load_explicit(&s->mpitev__wtail, memory_order_relaxed); /* only we store it */
    if (s->mpitev__wr == b->base + mpitev__srcbuf_bytes(b)) s->mpitev__wr = b->base;
    /* acquire: pairs with the release store of head in mpitev__spsc_consume, so the
     * drainer's reads of the records we are about to overwrite are finished. */
    uint64_t head = atomic_load_explicit(&b->head, memory_order_acquire);
    uint64_t avail = head + b->capacity - p, to_end = b->capacity - (p & b->mask);
    s->mpitev__wstop = s->mpitev__wr + (size_t)(avail < to_end ? avail : to_end) * b->stride;
    return avail != 0;
}

/* After writing the record at wr: advance and publish. */
MPITEV__INLINE void mpitev__spsc_publish(mpitev_source *s, unsigned char *wr) {
    s->mpitev__wr = wr + s->mpitev__wstride;
    /* release: the record's contents before the new tail; pairs with the acquire load of
     * the tail in mpitev__drain_ring. Single producer: load and store, no RMW. */
    atomic_store_explicit(&s->mpitev__wtail, atomic_load_explicit(&s->mpitev__wtail, memory_order_relaxed) + 1,
                          memory_order_release);
}

MPITEV__INLINE void mpitev__spsc_consume(struct mpitev__srcbuf *b, mpitev__rec *r, uint64_t head) {
    (void)r;
    /* release: our reads of the record (and the callbacks run on it) happen before a
     * producer reuses it (acquire in mpitev__spsc_refill) and before a free completion
     * sees we passed it (acquire in mpitev__buffers_passed). */
    atomic_store_explicit(&b->head, head + 1, memory_order_release);
}

/* ---- mpsc: unordered sources. Producer contract: any number of threads, lock-free;
 * consumer contract: the claim holder. ---- */

/* Reserve position *pos: 1, or 0 when full (*pos is then where the drop happened). */
MPITEV__INLINE int mpitev__mpsc_reserve(struct mpitev__srcbuf *b, uint64_t *pos) {
    uint64_t p = atomic_load_explicit(&b->tail, memory_order_relaxed);
    for (;;) {
        mpitev__rec *r = mpitev__rec_at(b, p);
        /* acquire: pairs with the release in mpitev__mpsc_consume (the drainer is done
         * with the record's previous lap). */
        uint64_t seq = atomic_load_explicit(&r->seq, memory_order_acquire);
        int64_t diff = (int64_t)(seq - p);
        if (diff == 0) {
            /* relaxed CAS: it only hands out positions; the record's contents are
             * published by the release store of seq in mpitev__mpsc_publish. */
            if (atomic_compare_exchange_weak_explicit(&b->tail, &p, p + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                *pos = p;
                return 1;
            }
        } else if (diff < 0) {
            *pos = p; /* the record of the previous lap is not consumed yet: full */
            return 0;
        } else {
            p = atomic_load_explicit(&b->tail, memory_order_relaxed); /* raced: retry */
        }
    }
}

MPITEV__INLINE void mpitev__mpsc_publish(struct mpitev__srcbuf *b, uint64_t pos) {
    /* release: the record's contents before its sequence; pairs with the acquire load in
     * mpitev__drain_ring. */
    atomic_store_explicit(&mpitev__rec_at(b, pos)->seq, pos + 1, memory_order_release);
}

/* Consumer side (the record at head if published): mpitev__drain_ring. */
MPITEV__INLINE void mpitev__mpsc_consume(struct mpitev__srcbuf *b, mpitev__rec *r, uint64_t head) {
    /* release: pairs with the acquire in mpitev__mpsc_reserve of the next lap. */
    atomic_store_explicit(&r->seq, head + b->capacity, memory_order_release);
    /* release: pairs with the acquire in mpitev__buffers_passed (free completion). */
    atomic_store_explicit(&b->head, head + 1, memory_order_release);
}
