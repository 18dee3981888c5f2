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

/* -------------------------------------------------- matching decisions */
toympi_request_t *toympi_match_arrival(uint32_t ctx, int src, int tag, size_t bytes,
                                       toympi_ux_kind_t kind, int peer_world, uint64_t sreq_id,
                                       toympi_unexpected_t **ux)
{
    uint64_t seq = ++arrivals;
    TOYMPI_RAISE_ENGINE(toympi_message_arrived, ctx, (int32_t)ctx, src, tag,
                        kind == TOYMPI_UX_RTS ? TOYMPI_EV_RENDEZVOUS_PROTO : TOYMPI_EV_EAGER,
                        (mpitev_count_t)bytes, seq);
    TOYMPI_RAISE_ENGINE(toympi_search_posted_begin, ctx, (int32_t)ctx, src, tag,
                        (int32_t)posted.length, -1, seq, 0);
    toympi_request_t *r = posted_match(&posted, ctx, src, tag);
    TOYMPI_RAISE_ENGINE(toympi_search_posted_end, ctx, (int32_t)ctx, src, tag,
                        (int32_t)posted.length, r != NULL, seq, r ? r->ev_id : 0);
    *ux = NULL;
    if (r) {
        TOYMPI_RAISE_ENGINE(toympi_posted_remove, ctx, (int32_t)ctx, r->src, r->tag,
                            (int32_t)posted.length, r->ev_id);
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
    TOYMPI_RAISE_ENGINE(toympi_unexpected_insert, ctx, (int32_t)ctx, src, tag,
                        (int32_t)unexpected.length, (mpitev_count_t)bytes, seq);
    *ux = u;
    return NULL;
}

toympi_unexpected_t *toympi_match_post(toympi_request_t *r)
{
    const uint32_t ctx = r->context_id;
    TOYMPI_RAISE_ENGINE(toympi_search_unexpected_begin, ctx, (int32_t)ctx, r->src, r->tag,
                        (int32_t)unexpected.length, -1, r->ev_id, 0);
    toympi_unexpected_t *u = unexpected_match(&unexpected, ctx, r->src, r->tag, 1);
    TOYMPI_RAISE_ENGINE(toympi_search_unexpected_end, ctx, (int32_t)ctx, r->src, r->tag,
                        (int32_t)unexpected.length, u != NULL, r->ev_id, u ? u->seq : 0);
    if (!u) {
        posted_append(&posted, r);
        TOYMPI_RAISE_ENGINE(toympi_posted_insert, ctx, (int32_t)ctx, r->src, r->tag,
                            (int32_t)posted.length, r->ev_id);
        return NULL;
    }
    TOYMPI_RAISE_ENGINE(toympi_unexpected_remove, ctx, (int32_t)ctx, u->src, u->tag,
                        (int32_t)unexpected.length, (mpitev_count_t)u->bytes, u->seq);
    return u;
}

int toympi_match_cancel(toympi_request_t *r)
{
    if (!posted_remove(&posted, r))
        return 0;
    TOYMPI_RAISE_ENGINE(toympi_posted_remove, r->context_id, (int32_t)r->context_id, r->src,
                        r->tag, (int32_t)posted.length, r->ev_id);
    return 1;
}

const toympi_unexpected_t *toympi_match_probe(uint32_t ctx, int src, int tag)
{
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
    posted.head = posted.tail = NULL;
    posted.length = 0;
}
