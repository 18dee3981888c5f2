/* matching.h -- MPI message matching: the posted-receive queue, the
 * unexpected-message queue, the matching decisions and the matching-engine
 * MPI_T events, all in matching.c (as MPICH's receive queues and Open MPI's
 * ob1 matching keep them together). protocol.c calls in when an envelope
 * arrives and when a receive is posted, and does what follows a match (CTS,
 * payload transfer, completion). The queues are private to matching.c.
 *
 * Matching rule (MPI-4.1 §3.5): a receive (context, source, tag) matches a
 * message (context', source', tag') iff context == context', source is
 * MPI_ANY_SOURCE or == source', tag is MPI_ANY_TAG or == tag'. Both queues
 * are FIFO and always searched from the head, which together with FIFO
 * per-peer transport gives the non-overtaking guarantee.
 *
 * Events (TOYMPI_RAISE_ENGINE, events.h: engine source, ASYNC_SIGNAL_SAFE,
 * always buffered): each function below says which it raises, in order.
 * Queue lengths in payloads are the length after the insert or removal. */
#ifndef TOYMPI_MATCHING_H
#define TOYMPI_MATCHING_H

#include "toympi_internal.h"

typedef enum { TOYMPI_UX_EAGER = 1, TOYMPI_UX_RTS = 2 } toympi_ux_kind_t;

/* A message that arrived before a matching receive was posted. Matching
 * fills the envelope, size and seq; the protocol fields are protocol.c's. */
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
    int ev_orphan;     /* arrived before its communicator existed here, while a tool
                          listened: arrival events not raised yet (matching.c) */
    struct toympi_unexpected *next;
} toympi_unexpected_t;

/* The matching rule: does receive pattern r_* match message envelope m_*? */
int toympi_match(uint32_t r_ctx, int r_src, int r_tag, uint32_t m_ctx, int m_src, int m_tag)
    TOYMPI_HIDDEN;

/* An envelope (EAGER or RTS header) arrived from world rank peer_world.
 * Raises message_arrived (with the next arrival seq) and
 * search_posted_begin, searches the posted queue, raises search_posted_end.
 * Returns the earliest posted receive that matches, removed from the queue
 * (posted_remove), or NULL: the message was appended to the unexpected queue
 * (unexpected_insert) and *ux is its new entry (kind, envelope, peer_world,
 * bytes, sreq_id and seq set; payload is the protocol's to attach). */
toympi_request_t *toympi_match_arrival(uint32_t ctx, int src, int tag, size_t bytes,
                                       toympi_ux_kind_t kind, int peer_world, uint64_t sreq_id,
                                       toympi_unexpected_t **ux) TOYMPI_HIDDEN;

/* A receive r (r->context_id, r->src, r->tag) is posted. Raises
 * search_unexpected_begin, searches the unexpected queue, raises
 * search_unexpected_end. Returns the earliest arrived message that matches,
 * removed from the queue (unexpected_remove; the caller owns it and releases
 * it with toympi_unexpected_free), or NULL: r was appended to the posted
 * queue (posted_insert). */
toympi_unexpected_t *toympi_match_post(toympi_request_t *r) TOYMPI_HIDDEN;

/* MPI_Cancel of a receive: removes r if it is still posted (posted_remove)
 * and returns 1; returns 0 (no event) if it was not in the queue. */
int toympi_match_cancel(toympi_request_t *r) TOYMPI_HIDDEN;

/* MPI_Probe/Iprobe: the earliest arrived message matching the pattern, left
 * in the queue; NULL if none. No event: nothing changes. */
const toympi_unexpected_t *toympi_match_probe(uint32_t ctx, int src, int tag) TOYMPI_HIDDEN;

/* Release an entry returned by toympi_match_post (and its eager payload). */
void toympi_unexpected_free(toympi_unexpected_t *u) TOYMPI_HIDDEN;

/* Current queue lengths (what the events report), for tests and assertions. */
size_t toympi_match_posted_length(void) TOYMPI_HIDDEN;
size_t toympi_match_unexpected_length(void) TOYMPI_HIDDEN;

/* MPI_Finalize, after the transport is closed: drops the messages nobody
 * received and empties both queues (no events). Arrival seq numbers go on. */
void toympi_match_finalize(void) TOYMPI_HIDDEN;

#endif
