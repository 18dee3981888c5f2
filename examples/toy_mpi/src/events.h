/* events.h -- the places where toy_mpi raises MPI_T events, and what they carry.
 *
 * The event types and the two sources are declared in events.c; the MPI_T side (the
 * standard MPI_T_event_* / MPI_T_source_* entry points, enums, categories) is mpit.c.
 * Every hook below is one MPITEV_RAISE: when no tool listens it costs one load and one
 * untaken branch, and none of its arguments (object key, payload) is evaluated.
 *
 * Two sources (docs/implementors-guide.md section 9 walks through the reasoning):
 *
 *   toympi_events_src_api      "toympi_api": the application thread's MPI calls, raised
 *                              at API entry/exit where no internal state is held. Types
 *                              raised here deliver immediately, by default at
 *                              MPITEV_CB_REQUIRE_NONE (the tool may call MPI).
 *   toympi_events_src_engine   "toympi_progress": the progress and matching engine (frame
 *                              handlers, posted/unexpected queues, protocol steps), also
 *                              when an MPI call such as MPI_Irecv enters it. Raised with
 *                              queues or the receive state machine half-updated, so at
 *                              MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, and always buffered
 *                              (MPITEV_TYPE_ALWAYS_BUFFERED types, buffered_by_default
 *                              source); toympi_progress() drains it where tool code may
 *                              run (toympi_events_drain).
 *
 * Both are MPITEV_SOURCE_ORDERED: toy_mpi provides at most MPI_THREAD_SERIALIZED and has
 * no progress thread, so one control flow at a time raises on each of them.
 *
 * Bound object: every type binds to MPI_Comm. The key is the communicator's ev_key, a
 * number assigned at creation and never reused (MPI_COMM_WORLD 1, MPI_COMM_SELF 2), so a
 * registration on a freed communicator never matches a later one, and a tool can register
 * on the predefined communicators before MPI_Init. Matching-engine events find the
 * communicator from the context id (collective traffic, context id + 1, belongs to the
 * same communicator; the payload's context_id tells the two apart). */
#ifndef TOYMPI_EVENTS_H
#define TOYMPI_EVENTS_H

#include "toympi_internal.h"

#include <string.h>

#include <mpitev/mpitev.h>

#include "matching.h"

/* ------------------------------------------------------------ declarations (events.c) */
extern mpitev_source toympi_events_src_api TOYMPI_HIDDEN;
extern mpitev_source toympi_events_src_engine TOYMPI_HIDDEN;

enum {
    TOYMPI_EV_MESSAGE_ARRIVED,
    TOYMPI_EV_SEARCH_POSTED_BEGIN,
    TOYMPI_EV_SEARCH_POSTED_END,
    TOYMPI_EV_SEARCH_UNEXPECTED_BEGIN,
    TOYMPI_EV_SEARCH_UNEXPECTED_END,
    TOYMPI_EV_POSTED_INSERT,
    TOYMPI_EV_POSTED_REMOVE,
    TOYMPI_EV_UNEXPECTED_INSERT,
    TOYMPI_EV_UNEXPECTED_REMOVE,
    TOYMPI_EV_TRANSFER_BEGIN,
    TOYMPI_EV_TRANSFER_END,
    TOYMPI_EV_RENDEZVOUS,
    TOYMPI_EV_CANCEL,
    TOYMPI_EV_REQUEST_FREE,
    TOYMPI_EV_COLL_BEGIN,
    TOYMPI_EV_COLL_END,
    TOYMPI_EV_COMM_CREATE,
    TOYMPI_EV_COMM_FREE,
    TOYMPI_EV_NUM_TYPES
};
extern mpitev_type toympi_events_types[TOYMPI_EV_NUM_TYPES] TOYMPI_HIDDEN;
#define TOYMPI_EVT(k) (&toympi_events_types[TOYMPI_EV_##k])

/* Lifecycle, reference counted: MPI_T_init_thread and MPI_Init each take a reference
 * (the first one initialises mpitev and declares), MPI_T_finalize and MPI_Finalize each
 * give theirs back (the last one finalizes mpitev). */
int toympi_events_init(void) TOYMPI_HIDDEN;
void toympi_events_finalize(void) TOYMPI_HIDDEN;
/* Deliver what the engine buffered (and the API source's buffered registrations), calling
 * tool code at cb_safety. Called at the end of every toympi_progress() and in
 * MPI_Finalize. A nested call (a callback that calls MPI) returns at once. */
void toympi_events_drain(int cb_safety) TOYMPI_HIDDEN;
/* At the exit of every MPI call that may have entered the engine without going through
 * toympi_progress (eager sends complete at once; a receive may match a message already
 * in the unexpected queue; collectives end with such sends): drain there too, so every
 * event is delivered before the MPI call that raised it returns. Nothing internal is
 * held at an API exit, so the level is MPITEV_CB_REQUIRE_NONE. */
static inline void toympi_events_api_exit(void) { toympi_events_drain(MPITEV_CB_REQUIRE_NONE); }
/* Object key of the communicator owning a context id (NULL if none: such an instance is
 * delivered to no communicator-bound registration). */
const void *toympi_events_ctx_key(uint32_t context_id) TOYMPI_HIDDEN;
#define TOYMPI_EV_KEY(c) ((const void *)(uintptr_t)(c)->ev_key)
#define TOYMPI_EV_KEY_WORLD 1u
#define TOYMPI_EV_KEY_SELF 2u

/* MPI_T enums (one per event type, naming its elements) and categories, for mpit.c. */
int toympi_events_num_enums(void) TOYMPI_HIDDEN;
const mpitev_enum *toympi_events_enum(int i) TOYMPI_HIDDEN;
int toympi_events_enum_index(const mpitev_enum *e) TOYMPI_HIDDEN;
typedef struct {
    const char *name, *desc;
} toympi_category_t;
int toympi_events_num_categories(void) TOYMPI_HIDDEN;
const toympi_category_t *toympi_events_category(int i) TOYMPI_HIDDEN;

/* ---------------------------------------------------------------------- payloads
 * One struct per layout; events.c lists the members with MPITEV_ELEMENT_OF, so mpitev
 * checks each displacement against the struct. Request ids are per-process numbers
 * (toympi_request_t.ev_id, never reused); seq numbers count arrived envelopes. */
enum { TOYMPI_EV_EAGER = 0, TOYMPI_EV_RENDEZVOUS_PROTO = 1 };

struct toympi_ev_arrived {          /* message_arrived */
    int32_t context_id, source, tag, protocol;
    mpitev_count_t bytes;
    uint64_t seq;
};
struct toympi_ev_search_posted {    /* search_posted_begin (found = -1) / _end */
    int32_t context_id, source, tag, queue_length;
    int32_t found;
    uint64_t seq;
    uint64_t request_id;            /* the matched receive, 0 if none */
};
struct toympi_ev_search_unexpected { /* search_unexpected_begin (found = -1) / _end */
    int32_t context_id, source, tag, queue_length;
    int32_t found;
    uint64_t request_id;            /* the receive being posted */
    uint64_t seq;                   /* the matched message, 0 if none */
};
struct toympi_ev_posted {           /* posted_insert / posted_remove */
    int32_t context_id, source, tag, queue_length;
    uint64_t request_id;
};
struct toympi_ev_unexpected {       /* unexpected_insert / unexpected_remove */
    int32_t context_id, source, tag, queue_length;
    mpitev_count_t bytes;
    uint64_t seq;
};
struct toympi_ev_transfer {         /* transfer_begin / transfer_end */
    int32_t context_id, peer, tag, is_send;
    int32_t protocol;
    mpitev_count_t bytes;
    uint64_t request_id;
};
struct toympi_ev_rendezvous {       /* rendezvous handshake step */
    int32_t context_id, step, peer, tag;
    mpitev_count_t bytes;
    uint64_t request_id;
};
struct toympi_ev_request {          /* cancel (flag = cancelled) / request_free (flag = is_send) */
    int32_t context_id, peer, tag, flag;
    uint64_t request_id;
};
struct toympi_ev_coll {             /* coll_begin / coll_end */
    char name[16];                  /* first: a tool sizes an MPI_CHAR element by the
                                     * next displacement (16.3.8.3 gives no count) */
    int32_t context_id, rank, size, seq;
};
struct toympi_ev_comm {             /* comm_create / comm_free */
    int32_t context_id, rank, size, handle;
};

/* Rendezvous steps. */
enum { TOYMPI_RNDV_RTS_SENT = 0, TOYMPI_RNDV_CTS_SENT = 1, TOYMPI_RNDV_CTS_RECEIVED = 2 };

/* Peer of a request in its communicator: the destination of a send; the matched source
 * of a receive once matched (else the receive pattern). */
static inline int32_t toympi_ev_peer(const toympi_request_t *r)
{
    if (r->kind == TOYMPI_REQ_SEND)
        return r->dest;
    return r->status.MPI_SOURCE != MPI_ANY_SOURCE ? r->status.MPI_SOURCE : r->src;
}
static inline int32_t toympi_ev_tag(const toympi_request_t *r)
{
    if (r->kind == TOYMPI_REQ_RECV && r->status.MPI_TAG != MPI_ANY_TAG)
        return r->status.MPI_TAG;
    return r->tag;
}

/* ============================================================ the matching engine
 * Source: engine. Level: MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE. These run inside
 * toympi_transport_poll's frame handlers (the connection's receive state machine is
 * between a header and its payload) or in the middle of a queue operation. A callback
 * that called MPI would re-enter the transport mid-frame; in a threaded MPI this is where
 * the matching lock is held, and with hardware matching it is a completion handler. So
 * nothing but async-signal-safe code may run here, and the types are always buffered:
 * tool code only ever sees them from toympi_events_drain. */
#define TOYMPI_ENGINE_RAISE(k, key, ...)                                                     \
    MPITEV_RAISE(TOYMPI_EVT(k), &toympi_events_src_engine, (key),                           \
                 MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, __VA_ARGS__)

/* a message envelope (EAGER or RTS header) arrived from a peer */
static inline void toympi_ev_message_arrived(uint32_t context_id, int src, int tag, size_t bytes,
                                             int rendezvous, uint64_t seq)
{
    TOYMPI_ENGINE_RAISE(MESSAGE_ARRIVED, toympi_events_ctx_key(context_id),
                        &(struct toympi_ev_arrived){(int32_t)context_id, src, tag,
                                                    rendezvous ? TOYMPI_EV_RENDEZVOUS_PROTO
                                                               : TOYMPI_EV_EAGER,
                                                    (mpitev_count_t)bytes, seq});
}

/* search of the posted-receive queue for an arriving message */
static inline void toympi_ev_search_posted_begin(uint32_t context_id, int src, int tag,
                                                 size_t qlen, uint64_t seq)
{
    TOYMPI_ENGINE_RAISE(SEARCH_POSTED_BEGIN, toympi_events_ctx_key(context_id),
                        &(struct toympi_ev_search_posted){(int32_t)context_id, src, tag,
                                                          (int32_t)qlen, -1, seq, 0});
}
static inline void toympi_ev_search_posted_end(uint32_t context_id, int src, int tag,
                                               size_t qlen, uint64_t seq,
                                               const toympi_request_t *found)
{
    TOYMPI_ENGINE_RAISE(SEARCH_POSTED_END, toympi_events_ctx_key(context_id),
                        &(struct toympi_ev_search_posted){(int32_t)context_id, src, tag,
                                                          (int32_t)qlen, found != NULL, seq,
                                                          found ? found->ev_id : 0});
}

/* search of the unexpected-message queue for a newly posted receive */
static inline void toympi_ev_search_unexpected_begin(const toympi_request_t *r, size_t qlen)
{
    TOYMPI_ENGINE_RAISE(SEARCH_UNEXPECTED_BEGIN, toympi_events_ctx_key(r->context_id),
                        &(struct toympi_ev_search_unexpected){(int32_t)r->context_id, r->src,
                                                              r->tag, (int32_t)qlen, -1,
                                                              r->ev_id, 0});
}
static inline void toympi_ev_search_unexpected_end(const toympi_request_t *r, size_t qlen,
                                                   const toympi_unexpected_t *found)
{
    TOYMPI_ENGINE_RAISE(SEARCH_UNEXPECTED_END, toympi_events_ctx_key(r->context_id),
                        &(struct toympi_ev_search_unexpected){(int32_t)r->context_id, r->src,
                                                              r->tag, (int32_t)qlen,
                                                              found != NULL, r->ev_id,
                                                              found ? found->seq : 0});
}

static inline void toympi_ev_posted_insert(const toympi_request_t *r, size_t qlen)
{
    TOYMPI_ENGINE_RAISE(POSTED_INSERT, toympi_events_ctx_key(r->context_id),
                        &(struct toympi_ev_posted){(int32_t)r->context_id, r->src, r->tag,
                                                   (int32_t)qlen, r->ev_id});
}
static inline void toympi_ev_posted_remove(const toympi_request_t *r, size_t qlen)
{
    TOYMPI_ENGINE_RAISE(POSTED_REMOVE, toympi_events_ctx_key(r->context_id),
                        &(struct toympi_ev_posted){(int32_t)r->context_id, r->src, r->tag,
                                                   (int32_t)qlen, r->ev_id});
}
static inline void toympi_ev_unexpected_insert(const toympi_unexpected_t *u, size_t qlen)
{
    TOYMPI_ENGINE_RAISE(UNEXPECTED_INSERT, toympi_events_ctx_key(u->context_id),
                        &(struct toympi_ev_unexpected){(int32_t)u->context_id, u->src, u->tag,
                                                       (int32_t)qlen,
                                                       (mpitev_count_t)u->bytes, u->seq});
}
static inline void toympi_ev_unexpected_remove(const toympi_unexpected_t *u, size_t qlen)
{
    TOYMPI_ENGINE_RAISE(UNEXPECTED_REMOVE, toympi_events_ctx_key(u->context_id),
                        &(struct toympi_ev_unexpected){(int32_t)u->context_id, u->src, u->tag,
                                                       (int32_t)qlen,
                                                       (mpitev_count_t)u->bytes, u->seq});
}

/* payload movement; is_send tells the side; rendezvous: via RTS/CTS/DATA. bytes: the
 * message size (send) or the bytes delivered into the receive buffer (receive). */
static inline void toympi_ev_transfer(int k, const toympi_request_t *r, int is_send,
                                      int rendezvous)
{
    MPITEV_RAISE(&toympi_events_types[k], &toympi_events_src_engine,
                 toympi_events_ctx_key(r->context_id), MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE,
                 &(struct toympi_ev_transfer){
                     (int32_t)r->context_id, toympi_ev_peer(r), toympi_ev_tag(r), is_send,
                     rendezvous ? TOYMPI_EV_RENDEZVOUS_PROTO : TOYMPI_EV_EAGER,
                     (mpitev_count_t)(is_send ? r->bytes : (size_t)r->status.toympi_count),
                     r->ev_id});
}
static inline void toympi_ev_transfer_begin(const toympi_request_t *r, int is_send, int rendezvous)
{
    toympi_ev_transfer(TOYMPI_EV_TRANSFER_BEGIN, r, is_send, rendezvous);
}
static inline void toympi_ev_transfer_end(const toympi_request_t *r, int is_send, int rendezvous)
{
    toympi_ev_transfer(TOYMPI_EV_TRANSFER_END, r, is_send, rendezvous);
}

/* rendezvous handshake steps (TOYMPI_RNDV_*): r is the send request for RTS_SENT and
 * CTS_RECEIVED, the matched receive for CTS_SENT */
static inline void toympi_ev_rendezvous(const toympi_request_t *r, int step)
{
    TOYMPI_ENGINE_RAISE(RENDEZVOUS, toympi_events_ctx_key(r->context_id),
                        &(struct toympi_ev_rendezvous){
                            (int32_t)r->context_id, step, toympi_ev_peer(r), toympi_ev_tag(r),
                            (mpitev_count_t)(r->kind == TOYMPI_REQ_SEND
                                                 ? r->bytes
                                                 : (size_t)r->status.toympi_count),
                            r->ev_id});
}

/* ================================================================= API level
 * Source: api. The caller says the level (see each call site); at API entry/exit with no
 * internal state held it is MPITEV_CB_REQUIRE_NONE. */
static inline void toympi_ev_cancel(const toympi_request_t *r, int cancelled, int cb_safety)
{
    MPITEV_RAISE(TOYMPI_EVT(CANCEL), &toympi_events_src_api, toympi_events_ctx_key(r->context_id),
                 cb_safety,
                 &(struct toympi_ev_request){(int32_t)r->context_id, toympi_ev_peer(r),
                                             toympi_ev_tag(r), cancelled, r->ev_id});
}

/* A user request is freed: from MPI_Wait/Test/.../Request_free at API level (api source,
 * NONE), or, for a request MPI_Request_free detached while active, when the engine
 * completes it (engine source, ASYNC_SIGNAL_SAFE). */
static inline void toympi_ev_request_free(const toympi_request_t *r, int in_engine)
{
    MPITEV_RAISE(TOYMPI_EVT(REQUEST_FREE),
                 in_engine ? &toympi_events_src_engine : &toympi_events_src_api,
                 toympi_events_ctx_key(r->context_id),
                 in_engine ? MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE : MPITEV_CB_REQUIRE_NONE,
                 &(struct toympi_ev_request){(int32_t)r->context_id, toympi_ev_peer(r),
                                             toympi_ev_tag(r), r->kind == TOYMPI_REQ_SEND,
                                             r->ev_id});
}

/* Collective entry (after argument checks, before any internal operation) and exit
 * (after completion, before the error handler): NONE. name: "MPI_Bcast", ... */
static inline void toympi_ev_coll(int k, const toympi_comm_t *c, const char *name)
{
    if (MPITEV_ENABLED(&toympi_events_types[k])) { /* strncpy only when someone listens */
        struct toympi_ev_coll p = {{0}, (int32_t)c->context_id, c->rank, c->size,
                                   (int32_t)c->coll_seq};
        strncpy(p.name, name, sizeof p.name - 1);
        MPITEV_RAISE(&toympi_events_types[k], &toympi_events_src_api, TOYMPI_EV_KEY(c),
                     MPITEV_CB_REQUIRE_NONE, &p);
    }
}
static inline void toympi_ev_coll_begin(toympi_comm_t *c, const char *name)
{
    c->coll_seq++;
    toympi_ev_coll(TOYMPI_EV_COLL_BEGIN, c, name);
}
static inline void toympi_ev_coll_end(const toympi_comm_t *c, const char *name)
{
    toympi_ev_coll(TOYMPI_EV_COLL_END, c, name);
}

/* Communicator created (complete, before the call returns) or about to be freed (still
 * complete). cb_safety: NONE from MPI_Comm_dup/split/free; MPI_RESTRICTED from MPI_Init
 * and MPI_Finalize (MPI is not usable there). */
static inline void toympi_ev_comm(int k, const toympi_comm_t *c, int cb_safety)
{
    MPITEV_RAISE(&toympi_events_types[k], &toympi_events_src_api, TOYMPI_EV_KEY(c), cb_safety,
                 &(struct toympi_ev_comm){(int32_t)c->context_id, c->rank, c->size,
                                          (int32_t)toympi_comm_handle(c)});
}
static inline void toympi_ev_comm_create(const toympi_comm_t *c, int cb_safety)
{
    toympi_ev_comm(TOYMPI_EV_COMM_CREATE, c, cb_safety);
}
static inline void toympi_ev_comm_free(const toympi_comm_t *c, int cb_safety)
{
    toympi_ev_comm(TOYMPI_EV_COMM_FREE, c, cb_safety);
}

#endif
