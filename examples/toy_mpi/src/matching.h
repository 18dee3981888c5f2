/* matching.h -- MPI message matching: the posted-receive queue and the
 * unexpected-message queue. Pure data structures (no I/O), so they can be
 * unit tested in isolation.
 *
 * Matching rule (MPI-4.1 §3.5): a receive (context, source, tag) matches a
 * message (context', source', tag') iff context == context', source is
 * MPI_ANY_SOURCE or == source', tag is MPI_ANY_TAG or == tag'. Both queues
 * are FIFO and always searched from the head, which together with FIFO
 * per-peer transport gives the non-overtaking guarantee. */
#ifndef TOYMPI_MATCHING_H
#define TOYMPI_MATCHING_H

#include "toympi_internal.h"

typedef enum { TOYMPI_UX_EAGER = 1, TOYMPI_UX_RTS = 2 } toympi_ux_kind_t;

/* A message that arrived before a matching receive was posted. */
typedef struct toympi_unexpected {
    toympi_ux_kind_t kind;
    uint32_t context_id;
    int src; /* sender's rank in the communicator */
    int tag;
    int peer_world;    /* connection (world rank) it arrived on */
    size_t bytes;      /* full message size */
    uint64_t sreq_id;  /* rendezvous: sender's request id */
    void *payload;     /* eager: buffered payload (malloc) */
    int payload_ready; /* eager: all payload bytes have arrived */
    toympi_request_t *claimed; /* receive that matched while payload in flight */
    uint64_t seq;      /* arrival number (MPI_T events) */
    struct toympi_unexpected *next;
} toympi_unexpected_t;

typedef struct {
    toympi_request_t *head, *tail;
    size_t length;
} toympi_posted_queue_t;

typedef struct {
    toympi_unexpected_t *head, *tail;
    size_t length;
} toympi_unexpected_queue_t;

int toympi_match(uint32_t r_ctx, int r_src, int r_tag, uint32_t m_ctx, int m_src, int m_tag)
    TOYMPI_HIDDEN;

void toympi_posted_append(toympi_posted_queue_t *q, toympi_request_t *r) TOYMPI_HIDDEN;
/* first posted receive matching an incoming message; removed from q */
toympi_request_t *toympi_posted_match(toympi_posted_queue_t *q, uint32_t ctx, int src, int tag)
    TOYMPI_HIDDEN;
/* remove a specific receive (cancel); returns 1 if it was queued */
int toympi_posted_remove(toympi_posted_queue_t *q, toympi_request_t *r) TOYMPI_HIDDEN;

void toympi_unexpected_append(toympi_unexpected_queue_t *q, toympi_unexpected_t *u)
    TOYMPI_HIDDEN;
/* first unexpected message matching a receive pattern; removed if remove */
toympi_unexpected_t *toympi_unexpected_match(toympi_unexpected_queue_t *q, uint32_t ctx, int src,
                                             int tag, int remove) TOYMPI_HIDDEN;

#endif
