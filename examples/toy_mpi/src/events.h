/* events.h -- toy_mpi's MPI_T events: the one list that declares them, and the two
 * macros that raise them.
 *
 * The events are mpitev's event catalogue (include/mpitev/catalog.h,
 * docs/event-catalogue.md): the names, payloads and bindings every MPI that vendors
 * mpitev raises, so a tool reads the toy exactly as it reads MPICH or Open MPI. The toy
 * raises every catalogue family, plus types of its own (toympi_ prefix).
 *
 * ADDING AN EVENT TYPE. First look for one that already says it: toympi_coll_begin/_end
 * cover every collective, MPI_Barrier included (op TOYMPI_COLL_*, rank, size, seq), so a
 * new collective needs an op code and its description text, not a type. Otherwise:
 *  1. One EV(...) entry in one of the lists below (a catalogue entry,
 *     MPITEV_CAT_<NAME>(EV), or a toy-only one in the same format with a TOYMPI_L_*
 *     payload list next to the others; a payload fits events.c's 64-byte records). It
 *     gets its list's MPI_T category. List order is MPI_T index order: tools look types
 *     up by name, so indices may change between releases, but only an entry at the very
 *     end of TOYMPI_EVENTS (a new list there) leaves every other index as it was; one
 *     inside moves the indices after it. Append where you can.
 *  2. Raise it where it happens (mpitev's MPITEV_RAISE_EVENT, through the macros at the
 *     end of this file): in the engine (frame handlers, queues, protocol steps) with
 *     TOYMPI_RAISE_ENGINE (win.h's TOYMPI_RAISE_WIN for a window); at the API level (the
 *     entry or exit of an MPI call) with TOYMPI_RAISE_API, never a bare
 *     MPITEV_RAISE_EVENT: it counts the tool code an immediate delivery runs in
 *     toympi_g.in_tool, so an MPI_Finalize or MPI_Init called from that callback is
 *     refused instead of tearing MPI down under the call that runs it. API-level events
 *     go in the PMPI_ entry point, not in an internal function other calls reuse
 *     (coll.c's toympi_*_impl, also MPI_Finalize's barrier), and a raise bound to a
 *     communicator goes where the call holds it (coll.c's begin() and finish()).
 *  3. The entry's level column is a promise to tools that nothing checks (catalog.h's
 *     generators drop it): a callback registered at that level (or a stricter one) is
 *     never skipped as unsafe. So the cb_safety of a raise that may deliver at once (a
 *     type not always buffered), and the level of every drain that delivers the type,
 *     must not be more restrictive than the column.
 *  4. A new category too: a new list at the end of TOYMPI_EVENTS, its
 *     MPITEV_CATALOG_DEFINE and declare call in events.c (in TOYMPI_EVENTS order), and
 *     a row in events.c's category table.
 * No count is written anywhere: TOYMPI_EV_NUM_TYPES counts the list, and
 * tests/test_events.c checks that MPI_T shows exactly its entries, each by name at its
 * index (an entry whose list events.c does not declare fails there).
 * Everything else is generated from the list by mpitev's macros (catalog.h's
 * MPITEV_CATALOG_TYPES and MPITEV_CATALOG_DEFINE): the payload struct, the element list
 * checked against it, the element-name enum tools read (MPI_T_enum_get_item), the type
 * object, its declaration at init (events.c) with the verbosity, binding and flags of the
 * line, and a typed raise whose arguments are evaluated only when a tool listens.
 *
 * Two sources (docs/implementors-guide.md section 9 walks through the reasoning):
 *
 *   toympi_events_src_api      "toympi_api": the application thread's MPI calls, raised
 *                              at API entry/exit where no internal state is held. Types
 *                              raised here deliver immediately, by default at
 *                              MPITEV_CB_REQUIRE_NONE (the tool may call MPI).
 *   toympi_events_src_engine   "toympi_progress": the progress and matching engine (frame
 *                              handlers, posted/unexpected queues, protocol steps, the
 *                              one-sided target and origin), also when an MPI call such
 *                              as MPI_Irecv enters it. Raised with queues or the receive
 *                              state machine half-updated, so at
 *                              MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, and always buffered
 *                              (MPITEV_TYPE_ALWAYS_BUFFERED types, buffered_by_default
 *                              source); toympi_progress_poll (progress.c) drains it where
 *                              tool code may run.
 *
 * Both are MPITEV_SOURCE_ORDERED: toy_mpi provides at most MPI_THREAD_SERIALIZED and has
 * no progress thread, so one control flow at a time raises on each of them.
 *
 * Bound object: a communicator's ev_key (or a window's, for the one-sided family and
 * win_free), a number assigned at creation and never reused (MPI_COMM_WORLD 1,
 * MPI_COMM_SELF 2), so a registration on a freed object never matches a later one, and a
 * tool can register on the predefined communicators before MPI_Init. Matching-engine
 * events find the communicator from the context id (collective traffic, context id + 1,
 * belongs to the same communicator). comm_create and win_create are bound to the parent
 * communicator (catalog.h, "objects"). */
#ifndef TOYMPI_EVENTS_H
#define TOYMPI_EVENTS_H

#include "toympi_internal.h"

#include <mpitev/catalog.h>

#include "matching.h"

/* ------------------------------------------------------------ toy-only payloads
 * Request ids are per-process numbers (toympi_request_t.ev_id, never reused). */
#define TOYMPI_L_RENDEZVOUS(X)                                                             \
    X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT) X(uint64_t, request_id, MPITEV_DTYPE_UINT64) \
    X(int32_t, step, MPITEV_DTYPE_INT32) X(int32_t, peer, MPITEV_DTYPE_INT32)               \
    X(int32_t, tag, MPITEV_DTYPE_INT32)
#define TOYMPI_L_REQUEST_FREE(X)                                                           \
    X(uint64_t, request_id, MPITEV_DTYPE_UINT64) X(int32_t, peer, MPITEV_DTYPE_INT32)       \
    X(int32_t, tag, MPITEV_DTYPE_INT32) X(int32_t, is_send, MPITEV_DTYPE_INT32)
#define TOYMPI_L_COLL(X)                                                                   \
    X(int32_t, op, MPITEV_DTYPE_INT32) X(int32_t, rank, MPITEV_DTYPE_INT32)                 \
    X(int32_t, size, MPITEV_DTYPE_INT32) X(int32_t, seq, MPITEV_DTYPE_INT32)

/* Collectives, the op element of coll_begin / coll_end (numbers, not names: a tool can
 * size every element from its MPI datatype, which it cannot do for text). */
enum {
    TOYMPI_COLL_BARRIER = 0, TOYMPI_COLL_BCAST, TOYMPI_COLL_REDUCE, TOYMPI_COLL_ALLREDUCE,
    TOYMPI_COLL_GATHER, TOYMPI_COLL_GATHERV, TOYMPI_COLL_SCATTER, TOYMPI_COLL_SCATTERV,
    TOYMPI_COLL_ALLGATHER, TOYMPI_COLL_ALLTOALL
};
#define TOYMPI_COLL_OPS_TEXT                                                              \
    "op: 0 MPI_Barrier, 1 MPI_Bcast, 2 MPI_Reduce, 3 MPI_Allreduce, 4 MPI_Gather, "        \
    "5 MPI_Gatherv, 6 MPI_Scatter, 7 MPI_Scatterv, 8 MPI_Allgather, 9 MPI_Alltoall"

/* ------------------------------------------------------------------ the event types
 * In declaration order, which is their MPI_T event index. The entry format is the
 * catalogue's: EV(name, payload layout, binding, flags, verbosity, safety level,
 * description). The toy-only ones: */
#define TOYMPI_EV_RENDEZVOUS(EV)                                                           \
    EV(toympi_rendezvous, TOYMPI_L_RENDEZVOUS, MPI_COMM, MPITEV_TYPE_ALWAYS_BUFFERED,      \
       TUNER_DETAIL, ASYNC_SIGNAL_SAFE,                                                    \
       "rendezvous handshake step: 0 request-to-send sent, 1 request-to-send matched and " \
       "clear-to-send sent, 2 clear-to-send received by the sender")
/* toympi_request_free: raised at NONE at API level, at ASYNC_SIGNAL_SAFE where the engine
 * completes a request MPI_Request_free detached (request.c): its level is the stricter. */
#define TOYMPI_EV_REQUEST_FREE(EV)                                                         \
    EV(toympi_request_free, TOYMPI_L_REQUEST_FREE, MPI_COMM, 0, USER_DETAIL,                \
       ASYNC_SIGNAL_SAFE,                                                                  \
       "a user request was freed (completed by the Wait/Test family, MPI_Request_free, or " \
       "completion after MPI_Request_free)")
#define TOYMPI_EV_COLL(EV)                                                                 \
    EV(toympi_coll_begin, TOYMPI_L_COLL, MPI_COMM, 0, USER_BASIC, NONE,                    \
       "a collective operation starts on the communicator (seq: collectives started on "  \
       "it so far; " TOYMPI_COLL_OPS_TEXT ")")                                            \
    EV(toympi_coll_end, TOYMPI_L_COLL, MPI_COMM, 0, USER_BASIC, NONE,                      \
       "a collective operation finished on the communicator (" TOYMPI_COLL_OPS_TEXT ")")

/* All of them, in four MPI_T categories (events.c declares each list with its own). */
#define TOYMPI_EVENTS_P2P(EV)                                                              \
    MPITEV_CATALOG_MATCHING(EV) MPITEV_CATALOG_TRANSFER(EV) TOYMPI_EV_RENDEZVOUS(EV)       \
    TOYMPI_EV_REQUEST_FREE(EV)
#define TOYMPI_EVENTS_RMA(EV) MPITEV_CATALOG_ONESIDED(EV)
#define TOYMPI_EVENTS_COLL(EV) TOYMPI_EV_COLL(EV)
#define TOYMPI_EVENTS_OBJECTS(EV) MPITEV_CATALOG_OBJECTS(EV)
#define TOYMPI_EVENTS(EV)                                                                  \
    TOYMPI_EVENTS_P2P(EV) TOYMPI_EVENTS_RMA(EV) TOYMPI_EVENTS_COLL(EV) TOYMPI_EVENTS_OBJECTS(EV)

/* Everything mpitev generates per type: struct NAME_payload, NAME_type, NAME_declare and
 * the typed raise behind MPITEV_RAISE_EVENT(NAME, ...). */
MPITEV_CATALOG_TYPES(TOYMPI_EVENTS)

/* Their number. */
#define TOYMPI__EVENT_ONE(name, layout, bind, flags, verbosity, level, text) +1
enum { TOYMPI_EV_NUM_TYPES = 0 TOYMPI_EVENTS(TOYMPI__EVENT_ONE) };

/* ------------------------------------------------------------ sources and lifecycle */
extern mpitev_source toympi_events_src_api TOYMPI_HIDDEN;
extern mpitev_source toympi_events_src_engine TOYMPI_HIDDEN;

/* MPI_T_init_thread and MPI_Init each call toympi_events_init, MPI_T_finalize and
 * MPI_Finalize each call toympi_events_finalize: one mpitev_init / mpitev_finalize each
 * (the core counts them). The first init declares the sources and types; declarations
 * live for the process, and declaring again is a no-op. */
int toympi_events_init(void) TOYMPI_HIDDEN;
void toympi_events_finalize(void) TOYMPI_HIDDEN;
/* Where tool code may call MPI: MPITEV_CB_REQUIRE_NONE between MPI_Init and the start of
 * MPI_Finalize's teardown, MPITEV_CB_REQUIRE_MPI_RESTRICTED before and after (MPI_T only). */
int toympi_events_level(void) TOYMPI_HIDDEN;
/* What the engine buffered (and the API source's buffered registrations) is delivered by
 * toympi_progress_poll (progress.c), the one drain; the callbacks run counted in
 * toympi_g.in_tool. */

/* Object key of the communicator owning a context id (NULL if none: such an instance is
 * delivered to no communicator-bound registration). A table indexed by context pair,
 * kept by comm.c through toympi_events_ctx_bind when a communicator takes or gives back
 * its pair: the engine raises several events per message and only has the context id,
 * so the lookup is a shift, a mask and a load. Context ids are below
 * TOYMPI_MAX_CONTEXTS (comm.c's pair allocator, on both sides of a connection); the mask
 * only keeps a corrupt one inside the table. */
#define TOYMPI_EV_KEY(c) ((const void *)(uintptr_t)(c)->ev_key)
extern const void *toympi_events_ctx_keys[TOYMPI_MAX_CONTEXTS / 2] TOYMPI_HIDDEN;
static inline const void *toympi_events_ctx_key(uint32_t context_id)
{
    return toympi_events_ctx_keys[(context_id / 2) % (TOYMPI_MAX_CONTEXTS / 2)];
}
/* c took the pair of context_id (at creation), or NULL: the pair is given back. */
void toympi_events_ctx_bind(uint32_t context_id, const toympi_comm_t *c) TOYMPI_HIDDEN;
#define TOYMPI_EV_KEY_WORLD 1u
#define TOYMPI_EV_KEY_SELF 2u

/* MPI_T categories (the toy has no cvars or pvars, so these are all of them), for mpit.c. */
typedef struct {
    const char *name, *desc;
} toympi_category_t;
int toympi_events_num_categories(void) TOYMPI_HIDDEN;
const toympi_category_t *toympi_events_category(int i) TOYMPI_HIDDEN;

/* ---------------------------------------------------------------------- raising
 * Every event is raised where it happens, with mpitev's typed raise MPITEV_RAISE_EVENT,
 * through one of the two macros below; each fixes what its kind of site has in common
 * (the source, the callback safety level, the object key). The arguments after the key
 * are the payload, one per element in table order. The key and the payload are evaluated
 * only when a tool listens to the type: with no tool, a raise site is one load and an
 * untaken branch; built with -DMPITEV_DISABLE, it is nothing. */

/* The matching and progress engine's events: engine source, raised at
 * MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE inside toympi_transport_poll's frame handlers (the
 * connection's receive state machine is between a header and its payload) or in the
 * middle of a queue operation. A callback that called MPI would re-enter the transport
 * mid-frame; in a threaded MPI this is where the matching lock is held, and with hardware
 * matching it is a completion handler. So nothing but async-signal-safe code may run
 * here, and the types are always buffered: tool code only sees them from the drain in
 * progress.c. context_id: the message's or request's; its communicator is the object. */
#define TOYMPI_RAISE_ENGINE(NAME, context_id, ...)                                         \
    MPITEV_RAISE_EVENT(NAME, &toympi_events_src_engine, toympi_events_ctx_key(context_id), \
                       MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, __VA_ARGS__)

/* The events of the MPI calls themselves (API entry and exit): a registration that does
 * not ask for buffering gets them at once, so the tool code they may run is counted in
 * toympi_g.in_tool (an MPI call it may not make is refused: toympi_internal.h). The
 * caller gives the source and the level: normally the API source at
 * MPITEV_CB_REQUIRE_NONE (nothing internal is held); see each site. */
#define TOYMPI_RAISE_API(NAME, source, key, cb_safety, ...)                                \
    do {                                                                                   \
        toympi_g.in_tool++;                                                                \
        MPITEV_RAISE_EVENT(NAME, (source), (key), (cb_safety), __VA_ARGS__);               \
        toympi_g.in_tool--;                                                                \
    } while (0)

/* ---------------------------------------------------------------------- payload values */
/* Rendezvous steps (toympi_rendezvous). */
enum { TOYMPI_RNDV_RTS_SENT = 0, TOYMPI_RNDV_CTS_SENT = 1, TOYMPI_RNDV_CTS_RECEIVED = 2 };

/* The catalogue's wildcard: a receive pattern's MPI_ANY_SOURCE (-2 in the toy) and
 * MPI_ANY_TAG are MPITEV_CATALOG_ANY (-1) in every payload. */
static inline int32_t toympi_ev_source(int src)
{
    return src == MPI_ANY_SOURCE ? MPITEV_CATALOG_ANY : src;
}
/* The tag of a message or receive on context ctx: the toy's own traffic (collectives,
 * MPI_Finalize's barrier, communicator construction: the odd, collective context of a
 * communicator's pair, comm.c) is MPITEV_CATALOG_INTERNAL (-2), whatever tag it uses. */
static inline int32_t toympi_ev_tag_of(uint32_t ctx, int tag)
{
    if (ctx & TOYMPI_CTX_COLL_OFFSET)
        return MPITEV_CATALOG_INTERNAL;
    return tag == MPI_ANY_TAG ? MPITEV_CATALOG_ANY : tag;
}

/* Peer of a request in its communicator: the destination of a send; the matched source
 * of a receive once matched (else the receive pattern). */
static inline int32_t toympi_ev_peer(const toympi_request_t *r)
{
    if (r->kind == TOYMPI_REQ_SEND)
        return r->dest;
    return toympi_ev_source(r->status.MPI_SOURCE != MPI_ANY_SOURCE ? r->status.MPI_SOURCE : r->src);
}
static inline int32_t toympi_ev_tag(const toympi_request_t *r)
{
    if (r->kind == TOYMPI_REQ_RECV && r->status.MPI_TAG != MPI_ANY_TAG)
        return toympi_ev_tag_of(r->context_id, r->status.MPI_TAG);
    return toympi_ev_tag_of(r->context_id, r->tag);
}
/* Bytes of a request: a send's message size; a receive's capacity until it matched
 * (recv_posted), then what it got (0 if cancelled). */
static inline mpitev_count_t toympi_ev_bytes(const toympi_request_t *r)
{
    if (r->kind == TOYMPI_REQ_SEND ||
        (r->status.MPI_SOURCE == MPI_ANY_SOURCE && !r->status.toympi_cancelled))
        return (mpitev_count_t)r->bytes;
    return (mpitev_count_t)r->status.toympi_count;
}

/* The payload of the catalogue's request layout (MPITEV_CATALOG_L_REQUEST: send_posted,
 * recv_posted, transfer_begin/_end, request_complete) for request r. */
#define TOYMPI_EV_REQUEST(r)                                                               \
    toympi_ev_bytes(r), (r)->ev_id, toympi_ev_peer(r), toympi_ev_tag(r),                    \
        (int32_t)((r)->kind == TOYMPI_REQ_SEND)

#endif
