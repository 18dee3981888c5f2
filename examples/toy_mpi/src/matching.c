/* matching.c -- the posted-receive and unexpected-message queues, the
 * matching decisions and the matching-engine events (see matching.h).
 *
 * Every TOYMPI_RAISE_ENGINE in this file is a matching-engine event: engine
 * source, raised at MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, always buffered
 * (events.h). They run inside a frame handler (the connection's receive state
 * machine sits between a header and its payload) or between a queue update and
 * the protocol step that follows it, so no tool code may run here; the progress
 * engine delivers them (toympi_progress_poll). */
#include "matching.h"

#include <stdlib.h>

#include "events.h"

typedef struct {
    toympi_request_t *head, *tail;
    size_t length;
} posted_queue_t;

typedef struct {
    toympi_unexpected_t *head, *tail;
    size_t length;
} unexpected_queue_t;

static posted_queue_t posted;
static unexpected_queue_t unexpected;
static uint64_t arrivals; /* envelopes that arrived: their seq numbers (MPI_T events) */

int toympi_match(uint32_t r_ctx, int r_src, int r_tag, uint32_t m_ctx, int m_src, int m_tag)
{
    return r_ctx == m_ctx && (r_src == MPI_ANY_SOURCE || r_src == m_src) &&
           (r_tag == MPI_ANY_TAG || r_tag == m_tag);
}

/* ------------------------------------------------------ the two queues */
static void posted_append(posted_queue_t *q, toympi_request_t *r)
{
    r->next_posted = NULL;
    if (q->tail)
        q->tail->next_posted = r;
    else
        q->head = r;
    q->tail = r;
    q->length++;
}

static void posted_unlink(posted_queue_t *q, toympi_request_t *prev, toympi_request_t *r)
{
    if (prev)
        prev->next_posted = r->next_posted;
    else
        q->head = r->next_posted;
    if (q->tail == r)
        q->tail = prev;
    r->next_posted = NULL;
    q->length--;
}

/* first posted receive matching an incoming message; removed from q */
static toympi_request_t *posted_match(posted_queue_t *q, uint32_t ctx, int src, int tag)
{
    toympi_request_t *prev = NULL;
    for (toympi_request_t *r = q->head; r; prev = r, r = r->next_posted) {
        if (toympi_match(r->context_id, r->src, r->tag, ctx, src, tag)) {
            posted_unlink(q, prev, r);
            return r;
        }
    }
    return NULL;
}

/* remove a specific receive (cancel); returns 1 if it was queued */
static int posted_remove(posted_queue_t *q, toympi_request_t *r)
{
    toympi_request_t *prev = NULL;
    for (toympi_request_t *p = q->head; p; prev = p, p = p->next_posted) {
        if (p == r) {
            posted_unlink(q, prev, p);
            return 1;
        }
    }
    return 0;
}

static void unexpected_append(unexpected_queue_t *q, toympi_unexpected_t *u)
{
    u->next = NULL;
    if (q->tail)
        q->tail->next = u;
    else
        q->head = u;
    q->tail = u;
    q->length++;
}

/* first unexpected message matching a receive pattern; removed if remove */
static toympi_unexpected_t *unexpected_match(unexpected_queue_t *q, uint32_t ctx, int src, int tag,
                                             int remove)
{
    toympi_unexpected_t *prev = NULL;
    for (toympi_unexpected_t *u = q->head; u; prev = u, u = u->next) {
        if (!toympi_match(ctx, src, tag, u->context_id, u->src, u->tag))
            continue;
        if (remove) {
            if (prev)
                prev->next = u->next;
            else
                q->head = u->next;
            if (q->tail == u)
                q->tail = prev;
            u->next = NULL;
            q->length--;
        }
        return u;
    }
    return NULL;
}

/* ------------------------------------------------ messages ahead of their communicator
 * A message may arrive before this process has created its communicator (the sender
 * created it first): its context id has no key yet, and an event raised now would reach
 * no registration. A tool can only register on the communicator once it exists, so
 * while someone listens to the arrival events such a message is marked, and its
 * message_arrived and unexpected_insert are raised when the communicator first looks at
 * the unexpected queue (a receive posted or a probe on it), before that search's events
 * (docs/event-catalogue.md, "Semantics"). Nothing of this runs when nobody listens. */
static size_t orphans; /* unexpected entries marked ev_orphan */

static int arrival_events_wanted(void)
{
    return MPITEV_ENABLED(&message_arrived_type) || MPITEV_ENABLED(&unexpected_insert_type);
}

static void raise_unexpected_insert(const toympi_unexpected_t *u)
{
    TOYMPI_RAISE_ENGINE(unexpected_insert, u->context_id, (mpitev_count_t)u->bytes, u->seq,
                        u->src, toympi_ev_tag_of(u->context_id, u->tag), (int32_t)unexpected.length);
}

/* The communicator of ctx exists now: raise what its early messages missed. */
static void raise_orphans(uint32_t ctx)
{
    for (toympi_unexpected_t *u = unexpected.head; u && orphans > 0; u = u->next) {
        if (u->ev_orphan && u->context_id / 2 == ctx / 2) {
            u->ev_orphan = 0;
            orphans--;
            TOYMPI_RAISE_ENGINE(message_arrived, u->context_id, (mpitev_count_t)u->bytes, u->seq,
                                u->src, toympi_ev_tag_of(u->context_id, u->tag));
            raise_unexpected_insert(u);
        }
    }
}

/* -------------------------------------------------- matching decisions */
toympi_request_t *toympi_match_arrival(uint32_t ctx, int src, int tag, size_t bytes,
                                       toympi_ux_kind_t kind, int peer_world, uint64_t sreq_id,
                                       toympi_unexpected_t **ux)
{
    uint64_t seq = ++arrivals;
    TOYMPI_RAISE_ENGINE(message_arrived, ctx, (mpitev_count_t)bytes, seq, src, toympi_ev_tag_of(ctx, tag));
    TOYMPI_RAISE_ENGINE(search_posted_begin, ctx, seq, 0, src, toympi_ev_tag_of(ctx, tag), (int32_t)posted.length,
                        -1);
    toympi_request_t *r = posted_match(&posted, ctx, src, tag);
    TOYMPI_RAISE_ENGINE(search_posted_end, ctx, seq, r ? r->ev_id : 0, src, toympi_ev_tag_of(ctx, tag),
                        (int32_t)posted.length, r != NULL);
    *ux = NULL;
    if (r) {
        TOYMPI_RAISE_ENGINE(posted_remove, ctx, r->ev_id, toympi_ev_source(r->src),
                            toympi_ev_tag_of(ctx, r->tag), (int32_t)posted.length);
        return r;
    }
    toympi_unexpected_t *u = toympi_calloc(1, sizeof *u);
    u->kind = kind;
    u->context_id = ctx;
    u->src = src;
    u->tag = tag;
    u->peer_world = peer_world;
    u->bytes = bytes;
    u->sreq_id = sreq_id;
    u->seq = seq;
    unexpected_append(&unexpected, u);
    if (arrival_events_wanted() && toympi_events_ctx_key(ctx) == NULL) {
        u->ev_orphan = 1; /* its communicator does not exist here yet */
        orphans++;
    }
    raise_unexpected_insert(u);
    *ux = u;
    return NULL;
}

toympi_unexpected_t *toympi_match_post(toympi_request_t *r)
{
    const uint32_t ctx = r->context_id;
    if (orphans > 0)
        raise_orphans(ctx);
    TOYMPI_RAISE_ENGINE(search_unexpected_begin, ctx, 0, r->ev_id, toympi_ev_source(r->src),
                        toympi_ev_tag_of(ctx, r->tag), (int32_t)unexpected.length, -1);
    toympi_unexpected_t *u = unexpected_match(&unexpected, ctx, r->src, r->tag, 1);
    TOYMPI_RAISE_ENGINE(search_unexpected_end, ctx, u ? u->seq : 0, r->ev_id,
                        toympi_ev_source(r->src), toympi_ev_tag_of(ctx, r->tag),
                        (int32_t)unexpected.length, u != NULL);
    if (!u) {
        posted_append(&posted, r);
        TOYMPI_RAISE_ENGINE(posted_insert, ctx, r->ev_id, toympi_ev_source(r->src),
                            toympi_ev_tag_of(ctx, r->tag), (int32_t)posted.length);
        return NULL;
    }
    TOYMPI_RAISE_ENGINE(unexpected_remove, ctx, (mpitev_count_t)u->bytes, u->seq, u->src,
                        toympi_ev_tag_of(ctx, u->tag), (int32_t)unexpected.length);
    return u;
}

int toympi_match_cancel(toympi_request_t *r)
{
    if (!posted_remove(&posted, r))
        return 0;
    TOYMPI_RAISE_ENGINE(posted_remove, r->context_id, r->ev_id, toympi_ev_source(r->src),
                        toympi_ev_tag_of(r->context_id, r->tag), (int32_t)posted.length);
    return 1;
}

const toympi_unexpected_t *toympi_match_probe(uint32_t ctx, int src, int tag)
{
    if (orphans > 0)
        raise_orphans(ctx);
    return unexpected_match(&unexpected, ctx, src, tag, 0);
}

void toympi_unexpected_free(toympi_unexpected_t *u)
{
    free(u->payload);
    free(u);
}

size_t toympi_match_posted_length(void) { return posted.length; }
size_t toympi_match_unexpected_length(void) { return unexpected.length; }

void toympi_match_finalize(void)
{
    /* messages nobody received: drop them (an eager one whose payload was still
     * arriving is not freed: its buffer was the transport's receive destination) */
    toympi_unexpected_t *u;
    while ((u = unexpected.head) != NULL) {
        unexpected.head = u->next;
        if (u->payload_ready || u->kind == TOYMPI_UX_RTS)
            toympi_unexpected_free(u);
    }
    unexpected.tail = NULL;
    unexpected.length = 0;
    orphans = 0;
    posted.head = posted.tail = NULL;
    posted.length = 0;
}
