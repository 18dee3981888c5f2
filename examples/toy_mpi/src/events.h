/* events.h -- toy_mpi's MPI_T events: the one table that declares them, and the hooks
 * that raise them.
 *
 * ADDING AN EVENT TYPE: add one line to TOYMPI_EVENTS below (and, for a new payload
 * layout, one TOYMPI_L_* list next to the others), then raise it where it happens with
 * MPITEV_RAISE_EVENT (usually through a hook at the end of this file). Everything else
 * is generated from the table by mpitev's event macros (docs/implementors-guide.md,
 * "Declaring an event once"): the payload struct, the element list checked against it,
 * the element-name enum tools read (MPI_T_enum_get_item), the type object, its
 * declaration at init (events.c) with the category, verbosity and flags of the line, and
 * a typed raise whose arguments are evaluated only when a tool listens.
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
 *                              source); toympi_progress_poll (progress.c) drains it where
 *                              tool code may run.
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

#include <mpitev/mpitev.h>

#include "matching.h"

/* ------------------------------------------------------------------ payload layouts
 * One list of (C type, element name, datatype) per layout; several types may share one.
 * Request ids are per-process numbers (toympi_request_t.ev_id, never reused); seq
 * numbers count arrived envelopes. */
#define TOYMPI_L_ARRIVED(X)                                                                \
    X(int32_t, context_id, MPITEV_DTYPE_INT32) X(int32_t, source, MPITEV_DTYPE_INT32)       \
    X(int32_t, tag, MPITEV_DTYPE_INT32) X(int32_t, protocol, MPITEV_DTYPE_INT32)            \
    X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT) X(uint64_t, seq, MPITEV_DTYPE_UINT64)
#define TOYMPI_L_SEARCH_POSTED(X)                                                          \
    X(int32_t, context_id, MPITEV_DTYPE_INT32) X(int32_t, source, MPITEV_DTYPE_INT32)       \
    X(int32_t, tag, MPITEV_DTYPE_INT32) X(int32_t, queue_length, MPITEV_DTYPE_INT32)        \
    X(int32_t, found, MPITEV_DTYPE_INT32) X(uint64_t, seq, MPITEV_DTYPE_UINT64)             \
    X(uint64_t, request_id, MPITEV_DTYPE_UINT64)
#define TOYMPI_L_SEARCH_UNEXPECTED(X)                                                      \
    X(int32_t, context_id, MPITEV_DTYPE_INT32) X(int32_t, source, MPITEV_DTYPE_INT32)       \
    X(int32_t, tag, MPITEV_DTYPE_INT32) X(int32_t, queue_length, MPITEV_DTYPE_INT32)        \
    X(int32_t, found, MPITEV_DTYPE_INT32) X(uint64_t, request_id, MPITEV_DTYPE_UINT64)      \
    X(uint64_t, seq, MPITEV_DTYPE_UINT64)
#define TOYMPI_L_POSTED(X)                                                                 \
    X(int32_t, context_id, MPITEV_DTYPE_INT32) X(int32_t, source, MPITEV_DTYPE_INT32)       \
    X(int32_t, tag, MPITEV_DTYPE_INT32) X(int32_t, queue_length, MPITEV_DTYPE_INT32)        \
    X(uint64_t, request_id, MPITEV_DTYPE_UINT64)
#define TOYMPI_L_UNEXPECTED(X)                                                             \
    X(int32_t, context_id, MPITEV_DTYPE_INT32) X(int32_t, source, MPITEV_DTYPE_INT32)       \
    X(int32_t, tag, MPITEV_DTYPE_INT32) X(int32_t, queue_length, MPITEV_DTYPE_INT32)        \
    X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT) X(uint64_t, seq, MPITEV_DTYPE_UINT64)
#define TOYMPI_L_TRANSFER(X)                                                               \
    X(int32_t, context_id, MPITEV_DTYPE_INT32) X(int32_t, peer, MPITEV_DTYPE_INT32)         \
    X(int32_t, tag, MPITEV_DTYPE_INT32) X(int32_t, is_send, MPITEV_DTYPE_INT32)             \
    X(int32_t, protocol, MPITEV_DTYPE_INT32) X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT)   \
    X(uint64_t, request_id, MPITEV_DTYPE_UINT64)
#define TOYMPI_L_RENDEZVOUS(X)                                                             \
    X(int32_t, context_id, MPITEV_DTYPE_INT32) X(int32_t, step, MPITEV_DTYPE_INT32)         \
    X(int32_t, peer, MPITEV_DTYPE_INT32) X(int32_t, tag, MPITEV_DTYPE_INT32)                \
    X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT) X(uint64_t, request_id, MPITEV_DTYPE_UINT64)
#define TOYMPI_L_CANCEL(X)                                                                 \
    X(int32_t, context_id, MPITEV_DTYPE_INT32) X(int32_t, peer, MPITEV_DTYPE_INT32)         \
    X(int32_t, tag, MPITEV_DTYPE_INT32) X(int32_t, cancelled, MPITEV_DTYPE_INT32)           \
    X(uint64_t, request_id, MPITEV_DTYPE_UINT64)
#define TOYMPI_L_REQUEST_FREE(X)                                                           \
    X(int32_t, context_id, MPITEV_DTYPE_INT32) X(int32_t, peer, MPITEV_DTYPE_INT32)         \
    X(int32_t, tag, MPITEV_DTYPE_INT32) X(int32_t, is_send, MPITEV_DTYPE_INT32)             \
    X(uint64_t, request_id, MPITEV_DTYPE_UINT64)
#define TOYMPI_L_COLL(X)                                                                   \
    X(int32_t, op, MPITEV_DTYPE_INT32) X(int32_t, context_id, MPITEV_DTYPE_INT32)           \
    X(int32_t, rank, MPITEV_DTYPE_INT32) X(int32_t, size, MPITEV_DTYPE_INT32)               \
    X(int32_t, seq, MPITEV_DTYPE_INT32)
#define TOYMPI_L_COMM(X)                                                                   \
    X(int32_t, context_id, MPITEV_DTYPE_INT32) X(int32_t, rank, MPITEV_DTYPE_INT32)         \
    X(int32_t, size, MPITEV_DTYPE_INT32) X(int32_t, handle, MPITEV_DTYPE_INT32)

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
 * In declaration order, which is their MPI_T event index:
 *   EV(name, payload layout, flags, verbosity, category, description)
 * flags: MPITEV_TYPE_ALWAYS_BUFFERED for the engine's types (raised where no tool code
 * may run), 0 for API-level ones. Verbosity: MPITEV_VERBOSITY_<...>. Category: a
 * TOYMPI_CAT_* name (events.c lists the categories). */
#define TOYMPI_EVENTS(EV)                                                                  \
    EV(toympi_message_arrived, TOYMPI_L_ARRIVED, MPITEV_TYPE_ALWAYS_BUFFERED, TUNER_DETAIL, \
       P2P, "a message envelope (eager message or rendezvous request-to-send) arrived "    \
            "from a peer and is about to be matched; protocol 0 eager, 1 rendezvous; seq " \
            "numbers arrivals")                                                           \
    EV(toympi_search_posted_begin, TOYMPI_L_SEARCH_POSTED, MPITEV_TYPE_ALWAYS_BUFFERED,    \
       MPIDEV_DETAIL, P2P,                                                                \
       "start of the search of the posted-receive queue for an arrived message "          \
       "(queue_length entries; found is -1)")                                             \
    EV(toympi_search_posted_end, TOYMPI_L_SEARCH_POSTED, MPITEV_TYPE_ALWAYS_BUFFERED,      \
       MPIDEV_DETAIL, P2P,                                                                \
       "end of the search of the posted-receive queue: found 1 and the matched receive's " \
       "request_id, or found 0 (the message becomes unexpected)")                         \
    EV(toympi_search_unexpected_begin, TOYMPI_L_SEARCH_UNEXPECTED,                         \
       MPITEV_TYPE_ALWAYS_BUFFERED, MPIDEV_DETAIL, P2P,                                   \
       "start of the search of the unexpected-message queue for a receive being posted "  \
       "(source and tag are the receive's pattern; found is -1)")                         \
    EV(toympi_search_unexpected_end, TOYMPI_L_SEARCH_UNEXPECTED,                           \
       MPITEV_TYPE_ALWAYS_BUFFERED, MPIDEV_DETAIL, P2P,                                   \
       "end of the search of the unexpected-message queue: found 1 and the message's "    \
       "seq, or found 0 (the receive is posted)")                                         \
    EV(toympi_posted_insert, TOYMPI_L_POSTED, MPITEV_TYPE_ALWAYS_BUFFERED, MPIDEV_DETAIL,  \
       P2P, "a receive was appended to the posted-receive queue (queue_length after)")    \
    EV(toympi_posted_remove, TOYMPI_L_POSTED, MPITEV_TYPE_ALWAYS_BUFFERED, MPIDEV_DETAIL,  \
       P2P, "a receive left the posted-receive queue: matched or cancelled "              \
            "(queue_length after)")                                                       \
    EV(toympi_unexpected_insert, TOYMPI_L_UNEXPECTED, MPITEV_TYPE_ALWAYS_BUFFERED,         \
       MPIDEV_DETAIL, P2P,                                                                \
       "an arrived message matched no posted receive and was appended to the "            \
       "unexpected-message queue (queue_length after)")                                   \
    EV(toympi_unexpected_remove, TOYMPI_L_UNEXPECTED, MPITEV_TYPE_ALWAYS_BUFFERED,         \
       MPIDEV_DETAIL, P2P,                                                                \
       "a message left the unexpected-message queue: a receive matched it "               \
       "(queue_length after)")                                                            \
    EV(toympi_transfer_begin, TOYMPI_L_TRANSFER, MPITEV_TYPE_ALWAYS_BUFFERED, TUNER_DETAIL, \
       P2P, "payload movement of a request starts (is_send tells the side; protocol 0 "    \
            "eager, 1 rendezvous; bytes: message size, or bytes delivered to the receive " \
            "buffer)")                                                                    \
    EV(toympi_transfer_end, TOYMPI_L_TRANSFER, MPITEV_TYPE_ALWAYS_BUFFERED, TUNER_DETAIL,  \
       P2P, "payload movement of a request is complete (eager send: copied out; receive: " \
            "in the buffer; rendezvous send: DATA frame written)")                        \
    EV(toympi_rendezvous, TOYMPI_L_RENDEZVOUS, MPITEV_TYPE_ALWAYS_BUFFERED, TUNER_DETAIL,  \
       P2P, "rendezvous handshake step: 0 request-to-send sent, 1 request-to-send matched " \
            "and clear-to-send sent, 2 clear-to-send received by the sender")             \
    EV(toympi_cancel, TOYMPI_L_CANCEL, 0, USER_DETAIL, P2P,                                \
       "MPI_Cancel on a request: cancelled 1 if a posted receive was removed, 0 otherwise " \
       "(sends are never cancelled)")                                                     \
    EV(toympi_request_free, TOYMPI_L_REQUEST_FREE, 0, USER_DETAIL, P2P,                    \
       "a user request was freed (completed by the Wait/Test family, MPI_Request_free, or " \
       "completion after MPI_Request_free)")                                              \
    EV(toympi_coll_begin, TOYMPI_L_COLL, 0, USER_BASIC, COLL,                              \
       "a collective operation starts on the communicator (seq: collectives started on "  \
       "it so far; " TOYMPI_COLL_OPS_TEXT ")")                                            \
    EV(toympi_coll_end, TOYMPI_L_COLL, 0, USER_BASIC, COLL,                                \
       "a collective operation finished on the communicator (" TOYMPI_COLL_OPS_TEXT ")")  \
    EV(toympi_comm_create, TOYMPI_L_COMM, 0, USER_BASIC, COMM,                             \
       "a communicator was created (MPI_Init for the predefined ones, MPI_Comm_dup, "     \
       "MPI_Comm_split); handle: its MPI_Comm value")                                     \
    EV(toympi_comm_free, TOYMPI_L_COMM, 0, USER_BASIC, COMM,                               \
       "a communicator is about to be freed (MPI_Comm_free, or MPI_Finalize for the "     \
       "remaining ones)")

/* Everything mpitev generates per type: struct NAME_payload, NAME_type, NAME_declare and
 * the typed raise behind MPITEV_RAISE_EVENT(NAME, ...). */
#define TOYMPI__EVENT_TYPE(name, layout, flags, verbosity, category, text)                \
    MPITEV_EVENT_TYPE(name, layout)
TOYMPI_EVENTS(TOYMPI__EVENT_TYPE)

/* Their number. */
#define TOYMPI__EVENT_ONE(name, layout, flags, verbosity, category, text) +1
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
 * toympi_progress_poll (progress.c), the one drain, with MPITEV_DRAIN; the callbacks run
 * counted in toympi_g.in_tool. */
/* Object key of the communicator owning a context id (NULL if none: such an instance is
 * delivered to no communicator-bound registration). A table indexed by context pair,
 * kept by comm.c through toympi_events_ctx_bind when a communicator takes or gives back
 * its pair: the engine raises several events per message and only has the context id,
 * so the lookup is a shift, a mask and a load (a cached table scan cost 13 instructions
 * per event, and its call the raise's registers). Context ids are below
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

/* ---------------------------------------------------------------------- payload values */
enum { TOYMPI_EV_EAGER = 0, TOYMPI_EV_RENDEZVOUS_PROTO = 1 };

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

/* Every hook below is a macro toympi_ev_NAME (the enabled check, in place), a raise
 * function toympi_ev_NAME__raise (static inline, always inlined: the payload, the object
 * key, the record writes) and its out-of-line copy toympi_ev_NAME__call (never inlined,
 * TOYMPI_EV_OUTLINE), which the macro calls: a raise site nobody listens to is one load
 * and an untaken branch in the caller, whose code stays almost what it is without events
 * (no registers saved and no frame for a raise that does not happen); with a tool
 * attached, that raise pays one call.
 *
 * A function with several hooks on the message path (matching.c, protocol.c) instead
 * tests MPITEV_ANY_ENABLED() once and runs a copy of itself with the raises inlined
 * (TOYMPI_EV_INLINE(NAME, ...), the check and toympi_ev_NAME__raise in place), kept out
 * of line too: the copy without them pays that one test however many hooks it has, and
 * a tool's raises pay no call. */
#if defined(__GNUC__)
#define TOYMPI_EV_RAISE static inline __attribute__((always_inline, unused))
#define TOYMPI_EV_NOINLINE __attribute__((noinline, unused))
#else
#define TOYMPI_EV_RAISE static inline
#define TOYMPI_EV_NOINLINE
#endif
#define TOYMPI_EV_OUTLINE(name, params, args)                                              \
    static TOYMPI_EV_NOINLINE void toympi_ev_##name##__call params                         \
    {                                                                                      \
        toympi_ev_##name##__raise args;                                                    \
    }
#define TOYMPI_EV_INLINE(name, ...)                                                        \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_##name##_type))                                         \
            toympi_ev_##name##__raise(__VA_ARGS__, 0, NULL);                               \
    } while (0)
/* For the split: the function's body, always inlined, with a constant `ev` parameter
 * (TOYMPI_EV_OFF in the copy without hooks, TOYMPI_EV_ON or TOYMPI_EV_SECTION in the
 * copies with them), and its hooks written TOYMPI_EV_IF(ev, key, NAME, ...) (key: the
 * decision's TOYMPI_EV_SECTION_KEY, for the in-section raises); the copies with hooks
 * are TOYMPI_EV_NOINLINE.
 *
 * TOYMPI_EV_SECTION: the copy runs inside the engine source's raise section (mpitev's
 * MPITEV_SECTION_BEGIN / END, around the whole copy: TOYMPI_EV_SECTION_BEGIN() is 1 when
 * it entered it): its raises share one grace section instead of entering and leaving
 * one each (about 9 instructions less per raise: the idle test, the epoch, the
 * exchange, the exit and the second load of the type's set), and the type's set, loaded
 * inside the section, is their enabled check. TOYMPI_EV_SECTION_BEGIN() is 0 when a raise
 * or a section is already in progress on the engine source (a matching call from a
 * tool's callback, a decision called from inside another's section): the copy with
 * ordinary hooks (TOYMPI_EV_ON) runs then. Only the engine's hooks have the in-section
 * form (the `in_section` parameter of their raise functions). A section's raises all
 * concern one communicator, whose key the copy looks up once (TOYMPI_EV_SECTION_KEY,
 * about 4 instructions less per raise after the first). A section's code must not call
 * mpitev_finalize or MPI_T_finalize, and must not wait for another thread. */
enum { TOYMPI_EV_OFF = 0, TOYMPI_EV_ON = 1, TOYMPI_EV_SECTION = 2 };
#if defined(__GNUC__)
#define TOYMPI_EV_BODY static inline __attribute__((always_inline))
#else
#define TOYMPI_EV_BODY static inline
#endif
#define TOYMPI_EV_IF(ev, key, name, ...)                                                   \
    do {                                                                                   \
        if ((ev) == TOYMPI_EV_SECTION)                                                     \
            toympi_ev_##name##__raise(__VA_ARGS__, 1, (key));                              \
        else if (ev)                                                                       \
            TOYMPI_EV_INLINE(name, __VA_ARGS__);                                           \
    } while (0)
/* The key TOYMPI_EV_IF passes to an in-section raise: the communicator's key of context
 * id ctx, looked up once per decision (a section's raises all concern one communicator)
 * instead of once per raise; NULL in the other copies, whose raises look it up. */
#define TOYMPI_EV_SECTION_KEY(ev, ctx) ((ev) == TOYMPI_EV_SECTION ? toympi_events_ctx_key(ctx) : NULL)
#define TOYMPI_EV_SECTION_BEGIN() MPITEV_SECTION_BEGIN(&toympi_events_src_engine)
#define TOYMPI_EV_SECTION_END() MPITEV_SECTION_END(&toympi_events_src_engine)

/* ============================================================ the matching engine
 * Source: engine. Level: MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE. These run inside
 * toympi_transport_poll's frame handlers (the connection's receive state machine is
 * between a header and its payload) or in the middle of a queue operation. A callback
 * that called MPI would re-enter the transport mid-frame; in a threaded MPI this is where
 * the matching lock is held, and with hardware matching it is a completion handler. So
 * nothing but async-signal-safe code may run here, and the types are always buffered:
 * tool code only ever sees them from the drain in progress.c. The hooks take the engine's
 * own objects; the arguments after the key are the payload members, in table order; the
 * last two, in_section (a constant where the hook is inlined), which picks the in-section
 * raise (TOYMPI_EV_SECTION above) or the ordinary one, and section_key, the in-section
 * raise's object key (the decision's, TOYMPI_EV_SECTION_KEY: looked up once per
 * decision; the ordinary raise looks its key up itself). */
#define TOYMPI_ENGINE_RAISE(name, key, ...)                                                \
    do {                                                                                   \
        if (in_section)                                                                    \
            MPITEV_RAISE_EVENT_IN_SECTION(name, &toympi_events_src_engine, section_key,    \
                                          MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, __VA_ARGS__); \
        else                                                                               \
            MPITEV_RAISE_EVENT_CHECKED(name, &toympi_events_src_engine, (key),             \
                                       MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, __VA_ARGS__);  \
    } while (0)

/* a message envelope (EAGER or RTS header) arrived from a peer */
TOYMPI_EV_RAISE void toympi_ev_message_arrived__raise(uint32_t context_id, int src, int tag, size_t bytes,
                                             int rendezvous, uint64_t seq,
                                             const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_message_arrived, toympi_events_ctx_key(context_id),
                        (int32_t)context_id, src, tag,
                        rendezvous ? TOYMPI_EV_RENDEZVOUS_PROTO : TOYMPI_EV_EAGER,
                        (mpitev_count_t)bytes, seq);
}
TOYMPI_EV_OUTLINE(message_arrived, (uint32_t context_id, int src, int tag, size_t bytes, int rendezvous, uint64_t seq), (context_id, src, tag, bytes, rendezvous, seq, 0, NULL))
#define toympi_ev_message_arrived(context_id, src, tag, bytes, rendezvous, seq)            \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_message_arrived_type))                                  \
            toympi_ev_message_arrived__call((context_id), (src), (tag), (bytes), (rendezvous), (seq));\
    } while (0)

/* search of the posted-receive queue for an arriving message */
TOYMPI_EV_RAISE void toympi_ev_search_posted_begin__raise(uint32_t context_id, int src, int tag,
                                                 size_t qlen, uint64_t seq,
                                                 const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_search_posted_begin, toympi_events_ctx_key(context_id),
                        (int32_t)context_id, src, tag, (int32_t)qlen, -1, seq, 0);
}
TOYMPI_EV_OUTLINE(search_posted_begin, (uint32_t context_id, int src, int tag, size_t qlen, uint64_t seq), (context_id, src, tag, qlen, seq, 0, NULL))
#define toympi_ev_search_posted_begin(context_id, src, tag, qlen, seq)                     \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_search_posted_begin_type))                              \
            toympi_ev_search_posted_begin__call((context_id), (src), (tag), (qlen), (seq));\
    } while (0)
TOYMPI_EV_RAISE void toympi_ev_search_posted_end__raise(uint32_t context_id, int src, int tag,
                                               size_t qlen, uint64_t seq,
                                               const toympi_request_t *found,
                                               const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_search_posted_end, toympi_events_ctx_key(context_id),
                        (int32_t)context_id, src, tag, (int32_t)qlen, found != NULL, seq,
                        found ? found->ev_id : 0);
}
TOYMPI_EV_OUTLINE(search_posted_end, (uint32_t context_id, int src, int tag, size_t qlen, uint64_t seq, const toympi_request_t *found), (context_id, src, tag, qlen, seq, found, 0, NULL))
#define toympi_ev_search_posted_end(context_id, src, tag, qlen, seq, found)                \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_search_posted_end_type))                                \
            toympi_ev_search_posted_end__call((context_id), (src), (tag), (qlen), (seq), (found));\
    } while (0)

/* search of the unexpected-message queue for a newly posted receive */
TOYMPI_EV_RAISE void toympi_ev_search_unexpected_begin__raise(const toympi_request_t *r, size_t qlen,
                                                              const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_search_unexpected_begin, toympi_events_ctx_key(r->context_id),
                        (int32_t)r->context_id, r->src, r->tag, (int32_t)qlen, -1, r->ev_id, 0);
}
TOYMPI_EV_OUTLINE(search_unexpected_begin, (const toympi_request_t *r, size_t qlen), (r, qlen, 0, NULL))
#define toympi_ev_search_unexpected_begin(r, qlen)                                         \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_search_unexpected_begin_type))                          \
            toympi_ev_search_unexpected_begin__call((r), (qlen));                         \
    } while (0)
TOYMPI_EV_RAISE void toympi_ev_search_unexpected_end__raise(const toympi_request_t *r, size_t qlen,
                                                   const toympi_unexpected_t *found,
                                                   const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_search_unexpected_end, toympi_events_ctx_key(r->context_id),
                        (int32_t)r->context_id, r->src, r->tag, (int32_t)qlen, found != NULL,
                        r->ev_id, found ? found->seq : 0);
}
TOYMPI_EV_OUTLINE(search_unexpected_end, (const toympi_request_t *r, size_t qlen, const toympi_unexpected_t *found), (r, qlen, found, 0, NULL))
#define toympi_ev_search_unexpected_end(r, qlen, found)                                    \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_search_unexpected_end_type))                            \
            toympi_ev_search_unexpected_end__call((r), (qlen), (found));                  \
    } while (0)

/* the queues themselves (queue_length after the change) */
TOYMPI_EV_RAISE void toympi_ev_posted_insert__raise(const toympi_request_t *r, size_t qlen,
                                                    const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_posted_insert, toympi_events_ctx_key(r->context_id),
                        (int32_t)r->context_id, r->src, r->tag, (int32_t)qlen, r->ev_id);
}
TOYMPI_EV_OUTLINE(posted_insert, (const toympi_request_t *r, size_t qlen), (r, qlen, 0, NULL))
#define toympi_ev_posted_insert(r, qlen)                                                   \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_posted_insert_type))                                    \
            toympi_ev_posted_insert__call((r), (qlen));                                   \
    } while (0)
TOYMPI_EV_RAISE void toympi_ev_posted_remove__raise(const toympi_request_t *r, size_t qlen,
                                                    const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_posted_remove, toympi_events_ctx_key(r->context_id),
                        (int32_t)r->context_id, r->src, r->tag, (int32_t)qlen, r->ev_id);
}
TOYMPI_EV_OUTLINE(posted_remove, (const toympi_request_t *r, size_t qlen), (r, qlen, 0, NULL))
#define toympi_ev_posted_remove(r, qlen)                                                   \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_posted_remove_type))                                    \
            toympi_ev_posted_remove__call((r), (qlen));                                   \
    } while (0)
TOYMPI_EV_RAISE void toympi_ev_unexpected_insert__raise(const toympi_unexpected_t *u, size_t qlen,
                                                        const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_unexpected_insert, toympi_events_ctx_key(u->context_id),
                        (int32_t)u->context_id, u->src, u->tag, (int32_t)qlen,
                        (mpitev_count_t)u->bytes, u->seq);
}
TOYMPI_EV_OUTLINE(unexpected_insert, (const toympi_unexpected_t *u, size_t qlen), (u, qlen, 0, NULL))
#define toympi_ev_unexpected_insert(u, qlen)                                               \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_unexpected_insert_type))                                \
            toympi_ev_unexpected_insert__call((u), (qlen));                               \
    } while (0)
TOYMPI_EV_RAISE void toympi_ev_unexpected_remove__raise(const toympi_unexpected_t *u, size_t qlen,
                                                        const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_unexpected_remove, toympi_events_ctx_key(u->context_id),
                        (int32_t)u->context_id, u->src, u->tag, (int32_t)qlen,
                        (mpitev_count_t)u->bytes, u->seq);
}
TOYMPI_EV_OUTLINE(unexpected_remove, (const toympi_unexpected_t *u, size_t qlen), (u, qlen, 0, NULL))
#define toympi_ev_unexpected_remove(u, qlen)                                               \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_unexpected_remove_type))                                \
            toympi_ev_unexpected_remove__call((u), (qlen));                               \
    } while (0)

/* payload movement; is_send tells the side; rendezvous: via RTS/CTS/DATA. bytes: the
 * message size (send) or the bytes delivered into the receive buffer (receive). is_send
 * is a constant at every site, and a receive's transfer always follows its match
 * (set_recv_status, protocol.c): peer and tag are the side's fields, with none of
 * toympi_ev_peer's and toympi_ev_tag's tests (the same values; 4 to 6 instructions per
 * event on the receive path). */
#define TOYMPI__TRANSFER_PAYLOAD(r, is_send, rendezvous)                                   \
    (int32_t)(r)->context_id, (is_send) ? (r)->dest : (r)->status.MPI_SOURCE,             \
        (is_send) ? (r)->tag : (r)->status.MPI_TAG, (is_send),                             \
        (rendezvous) ? TOYMPI_EV_RENDEZVOUS_PROTO : TOYMPI_EV_EAGER,                       \
        (mpitev_count_t)((is_send) ? (r)->bytes : (size_t)(r)->status.toympi_count), (r)->ev_id
TOYMPI_EV_RAISE void toympi_ev_transfer_begin__raise(const toympi_request_t *r, int is_send, int rendezvous,
                                                     const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_transfer_begin, toympi_events_ctx_key(r->context_id),
                        TOYMPI__TRANSFER_PAYLOAD(r, is_send, rendezvous));
}
TOYMPI_EV_OUTLINE(transfer_begin, (const toympi_request_t *r, int is_send, int rendezvous), (r, is_send, rendezvous, 0, NULL))
#define toympi_ev_transfer_begin(r, is_send, rendezvous)                                   \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_transfer_begin_type))                                   \
            toympi_ev_transfer_begin__call((r), (is_send), (rendezvous));                 \
    } while (0)
TOYMPI_EV_RAISE void toympi_ev_transfer_end__raise(const toympi_request_t *r, int is_send, int rendezvous,
                                                   const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_transfer_end, toympi_events_ctx_key(r->context_id),
                        TOYMPI__TRANSFER_PAYLOAD(r, is_send, rendezvous));
}
TOYMPI_EV_OUTLINE(transfer_end, (const toympi_request_t *r, int is_send, int rendezvous), (r, is_send, rendezvous, 0, NULL))
#define toympi_ev_transfer_end(r, is_send, rendezvous)                                     \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_transfer_end_type))                                     \
            toympi_ev_transfer_end__call((r), (is_send), (rendezvous));                   \
    } while (0)

/* rendezvous handshake steps (TOYMPI_RNDV_*): r is the send request for RTS_SENT and
 * CTS_RECEIVED, the matched receive for CTS_SENT */
TOYMPI_EV_RAISE void toympi_ev_rendezvous__raise(const toympi_request_t *r, int step,
                                                 const int in_section, const void *section_key)
{
    TOYMPI_ENGINE_RAISE(toympi_rendezvous, toympi_events_ctx_key(r->context_id),
                        (int32_t)r->context_id, step, toympi_ev_peer(r), toympi_ev_tag(r),
                        (mpitev_count_t)(r->kind == TOYMPI_REQ_SEND
                                             ? r->bytes
                                             : (size_t)r->status.toympi_count),
                        r->ev_id);
}
TOYMPI_EV_OUTLINE(rendezvous, (const toympi_request_t *r, int step), (r, step, 0, NULL))
#define toympi_ev_rendezvous(r, step)                                                      \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_rendezvous_type))                                       \
            toympi_ev_rendezvous__call((r), (step));                                      \
    } while (0)

/* ================================================================= API level
 * Source: api. The caller says the level (see each call site); at API entry/exit with no
 * internal state held it is MPITEV_CB_REQUIRE_NONE. These deliver at once, so the tool
 * code they run is counted in toympi_g.in_tool (an MPI call it may not make is refused,
 * toympi_internal.h). Used only inside the NAME__raise functions, which run after the
 * hooks' own enabled check: a raise nobody listens to never gets here. */
#define TOYMPI_API_RAISE(name, source, key, cb_safety, ...)                                \
    do {                                                                                   \
        toympi_g.in_tool++;                                                                \
        toympi_g.api_raised = 1; /* a record may be buffered: progress.c drains it */     \
        MPITEV_RAISE_EVENT_CHECKED(name, (source), (key), (cb_safety), __VA_ARGS__);       \
        toympi_g.in_tool--;                                                                \
    } while (0)
TOYMPI_EV_RAISE void toympi_ev_cancel__raise(const toympi_request_t *r, int cancelled, int cb_safety)
{
    TOYMPI_API_RAISE(toympi_cancel, &toympi_events_src_api,
                       toympi_events_ctx_key(r->context_id), cb_safety, (int32_t)r->context_id,
                       toympi_ev_peer(r), toympi_ev_tag(r), cancelled, r->ev_id);
}
TOYMPI_EV_OUTLINE(cancel, (const toympi_request_t *r, int cancelled, int cb_safety), (r, cancelled, cb_safety))
#define toympi_ev_cancel(r, cancelled, cb_safety)                                          \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_cancel_type))                                           \
            toympi_ev_cancel__call((r), (cancelled), (cb_safety));                        \
    } while (0)

/* A user request is freed: from MPI_Wait/Test/.../Request_free at API level (api source,
 * NONE), or, for a request MPI_Request_free detached while active, when the engine
 * completes it (engine source, ASYNC_SIGNAL_SAFE). */
TOYMPI_EV_RAISE void toympi_ev_request_free__raise(const toympi_request_t *r, int in_engine)
{
    TOYMPI_API_RAISE(toympi_request_free,
                       in_engine ? &toympi_events_src_engine : &toympi_events_src_api,
                       toympi_events_ctx_key(r->context_id),
                       in_engine ? MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE : MPITEV_CB_REQUIRE_NONE,
                       (int32_t)r->context_id, toympi_ev_peer(r), toympi_ev_tag(r),
                       r->kind == TOYMPI_REQ_SEND, r->ev_id);
}
TOYMPI_EV_OUTLINE(request_free, (const toympi_request_t *r, int in_engine), (r, in_engine))
#define toympi_ev_request_free(r, in_engine)                                               \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_request_free_type))                                     \
            toympi_ev_request_free__call((r), (in_engine));                               \
    } while (0)

/* Collective entry (after argument checks, before any internal operation) and exit
 * (after completion, before the error handler): NONE. op: TOYMPI_COLL_*. */
TOYMPI_EV_RAISE void toympi_ev_coll_begin__raise(toympi_comm_t *c, int op)
{
    TOYMPI_API_RAISE(toympi_coll_begin, &toympi_events_src_api, TOYMPI_EV_KEY(c),
                       MPITEV_CB_REQUIRE_NONE, op, (int32_t)c->context_id, c->rank, c->size,
                       (int32_t)c->coll_seq);
}
TOYMPI_EV_OUTLINE(coll_begin, (toympi_comm_t *c, int op), (c, op))
#define toympi_ev_coll_begin(c, op)                                                        \
    do {                                                                                   \
        (c)->coll_seq++;                                                                   \
        if (MPITEV_ENABLED(&toympi_coll_begin_type))                                       \
            toympi_ev_coll_begin__call((c), (op));                                        \
    } while (0)
TOYMPI_EV_RAISE void toympi_ev_coll_end__raise(const toympi_comm_t *c, int op)
{
    TOYMPI_API_RAISE(toympi_coll_end, &toympi_events_src_api, TOYMPI_EV_KEY(c),
                       MPITEV_CB_REQUIRE_NONE, op, (int32_t)c->context_id, c->rank, c->size,
                       (int32_t)c->coll_seq);
}
TOYMPI_EV_OUTLINE(coll_end, (const toympi_comm_t *c, int op), (c, op))
#define toympi_ev_coll_end(c, op)                                                          \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_coll_end_type))                                         \
            toympi_ev_coll_end__call((c), (op));                                          \
    } while (0)

/* Communicator created (complete, before the call returns) or about to be freed (still
 * complete). cb_safety: NONE from MPI_Comm_dup/split/free; MPI_RESTRICTED from MPI_Init
 * and MPI_Finalize (MPI is not usable there). */
TOYMPI_EV_RAISE void toympi_ev_comm_create__raise(const toympi_comm_t *c, int cb_safety)
{
    TOYMPI_API_RAISE(toympi_comm_create, &toympi_events_src_api, TOYMPI_EV_KEY(c), cb_safety,
                       (int32_t)c->context_id, c->rank, c->size, (int32_t)toympi_comm_handle(c));
}
TOYMPI_EV_OUTLINE(comm_create, (const toympi_comm_t *c, int cb_safety), (c, cb_safety))
#define toympi_ev_comm_create(c, cb_safety)                                                \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_comm_create_type))                                      \
            toympi_ev_comm_create__call((c), (cb_safety));                                \
    } while (0)
TOYMPI_EV_RAISE void toympi_ev_comm_free__raise(const toympi_comm_t *c, int cb_safety)
{
    TOYMPI_API_RAISE(toympi_comm_free, &toympi_events_src_api, TOYMPI_EV_KEY(c), cb_safety,
                       (int32_t)c->context_id, c->rank, c->size, (int32_t)toympi_comm_handle(c));
}
TOYMPI_EV_OUTLINE(comm_free, (const toympi_comm_t *c, int cb_safety), (c, cb_safety))
#define toympi_ev_comm_free(c, cb_safety)                                                  \
    do {                                                                                   \
        if (MPITEV_ENABLED(&toympi_comm_free_type))                                        \
            toympi_ev_comm_free__call((c), (cb_safety));                                  \
    } while (0)

#endif
