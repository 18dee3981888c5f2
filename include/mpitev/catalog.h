/* catalog.h - the mpitev event catalogue: one set of MPI_T event types every MPI that
 * vendors mpitev raises the same way, so a tool written once reads the toy MPI, MPICH
 * and Open MPI alike, by event and element names alone.
 *
 * docs/event-catalogue.md is the same table written for tool writers: what each event
 * means, exactly when it is raised, and which elements a tool may rely on.
 *
 * ================================== USING IT ======================================
 * An event is one EV(...) entry; families are lists of entries, and so is any subset an
 * MPI raises (an MPI declares only what it raises) and any type of its own:
 *
 *   #define MYMPI_EVENTS(EV)                                         // a header
 *       MPITEV_CATALOG_MATCHING(EV)              // a whole family
 *       MPITEV_CAT_SEND_POSTED(EV)               // one event of another family
 *       EV(mympi_rndv_step, MYMPI_L_RNDV, MPI_COMM, MPITEV_TYPE_ALWAYS_BUFFERED,
 *          TUNER_DETAIL, ASYNC_SIGNAL_SAFE, "an MPI's own type, its own prefix")
 *   MPITEV_CATALOG_TYPES(MYMPI_EVENTS)           // same header: payloads, typed raises
 *
 *   MPITEV_CATALOG_DEFINE(MYMPI_EVENTS, mympi_declare_events)   // one .c file
 *   rc = mympi_declare_events("mympi_p2p");      // at init: declares all, in list order
 *
 *   MPITEV_RAISE_EVENT(message_arrived, &src, comm_key, MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE,
 *                      source, tag, bytes, seq);  // payload: the layout's elements, in order
 *
 * The C names are the MPI_T names: struct message_arrived_payload, message_arrived_type,
 * message_arrived_declare (event.inc, MPITEV_EVENT_TYPE). The MPI_T category is the MPI's
 * (one per call of the declare function; NULL for none).
 *
 * EV(name, layout, bind, flags, verbosity, level, description):
 *   layout       an X-macro element list, X(C type, element name, mpitev datatype)
 *   bind         MPI_COMM, MPI_WIN or NO_OBJECT (MPITEV_BIND_...)
 *   flags        MPITEV_TYPE_ALWAYS_BUFFERED where the MPI raises it inside its engine
 *   verbosity    USER_BASIC ... MPIDEV_ALL (MPITEV_VERBOSITY_...)
 *   level        the most restrictive callback safety an MPI may raise it at
 *                (MPITEV_CB_REQUIRE_...): a tool whose callback is safe at that level
 *                is safe on every MPI. An MPI may raise it at a less restrictive one.
 *                The generators do not read it: it is the catalogue's promise to tools,
 *                which the MPI's raise sites and drain points keep.
 *
 * ================================ CONVENTIONS =====================================
 * These hold for every catalogue event on every MPI; docs/event-catalogue.md repeats
 * them for tool writers.
 *   - Ranks are ranks in the bound communicator (a window's: its group). A source or
 *     tag that is a wildcard (a receive posted with MPI_ANY_SOURCE or MPI_ANY_TAG) is
 *     MPITEV_CATALOG_ANY (-1), whatever the MPI's own constants are.
 *   - A message or request the MPI makes for its own purposes (its collectives, its
 *     internal synchronisation, such as a barrier in MPI_Finalize) has tag
 *     MPITEV_CATALOG_INTERNAL (-2), whatever tag the MPI uses for it: the
 *     application's tags are never negative, so a tool counts them by tag >= 0.
 *   - bytes: MPI_Count, the bytes the operation moves (a receive: those it got; a
 *     posted receive: its buffer's capacity).
 *   - request_id identifies a request among the process's live requests (it may be
 *     reused once the request is freed); 0 means none. seq numbers the messages that
 *     arrived at this process, so a message's events pair up; 0 means none. op_id
 *     pairs a one-sided operation's started and complete events the same way.
 *   - queue_length: entries in the queue after the change (before the search, for a
 *     search), or -1 where the MPI does not know it.
 *   - found: -1 at a search's begin, then 1 (matched) or 0.
 *   - key: a number the MPI gives each communicator or window at creation and never
 *     gives another in the life of the process; object events carry it so a tool can
 *     pair creation and free. The predefined communicators have keys 1 (world) and
 *     2 (self) on every MPI.
 *   - Codes (elements op, lock_type, kind) are the catalogue's below, not the MPI's
 *     handle values, which differ between MPIs.
 * ==================================================================================*/
#ifndef MPITEV_CATALOG_H
#define MPITEV_CATALOG_H

#include <mpitev/mpitev.h>

/* ------------------------------------------------------------------- codes */
#define MPITEV_CATALOG_ANY (-1) /* wildcard source or tag; lock/flush/sync on all targets */
#define MPITEV_CATALOG_INTERNAL (-2) /* tag of the MPI's own messages and requests */
#define MPITEV_CATALOG_KEY_WORLD 1u
#define MPITEV_CATALOG_KEY_SELF 2u

/* The op element of accumulate_started/_complete (0 for put and get). */
enum mpitev_catalog_op {
    MPITEV_CATALOG_OP_NONE = 0,
    MPITEV_CATALOG_OP_SUM, MPITEV_CATALOG_OP_PROD, MPITEV_CATALOG_OP_MAX, MPITEV_CATALOG_OP_MIN,
    MPITEV_CATALOG_OP_LAND, MPITEV_CATALOG_OP_BAND, MPITEV_CATALOG_OP_LOR, MPITEV_CATALOG_OP_BOR,
    MPITEV_CATALOG_OP_LXOR, MPITEV_CATALOG_OP_BXOR, MPITEV_CATALOG_OP_MAXLOC, MPITEV_CATALOG_OP_MINLOC,
    MPITEV_CATALOG_OP_REPLACE, MPITEV_CATALOG_OP_NO_OP,
    MPITEV_CATALOG_OP_USER = -1 /* a user-defined operation */
};

/* The lock_type element of lock_acquired / lock_released. */
enum mpitev_catalog_lock { MPITEV_CATALOG_LOCK_EXCLUSIVE = 1, MPITEV_CATALOG_LOCK_SHARED = 2 };

/* The kind element of sync_begin / sync_end: the call that synchronizes. */
enum mpitev_catalog_sync {
    MPITEV_CATALOG_SYNC_FENCE = 1,
    MPITEV_CATALOG_SYNC_LOCK,      /* MPI_Win_lock, waiting for the lock; target */
    MPITEV_CATALOG_SYNC_UNLOCK,    /* target */
    MPITEV_CATALOG_SYNC_LOCK_ALL,
    MPITEV_CATALOG_SYNC_UNLOCK_ALL,
    MPITEV_CATALOG_SYNC_FLUSH,     /* target */
    MPITEV_CATALOG_SYNC_FLUSH_ALL,
    MPITEV_CATALOG_SYNC_FLUSH_LOCAL, /* target */
    MPITEV_CATALOG_SYNC_FLUSH_LOCAL_ALL,
    MPITEV_CATALOG_SYNC_WIN_SYNC,
    MPITEV_CATALOG_SYNC_START, MPITEV_CATALOG_SYNC_COMPLETE, /* access epoch (PSCW) */
    MPITEV_CATALOG_SYNC_POST, MPITEV_CATALOG_SYNC_WAIT       /* exposure epoch (PSCW) */
};

/* ---------------------------------------------------------- payload layouts
 * Each layout lists 64-bit elements first, so no payload has padding. */
#define MPITEV_CATALOG_L_ARRIVED(X)                                                         \
    X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT) X(uint64_t, seq, MPITEV_DTYPE_UINT64)        \
    X(int32_t, source, MPITEV_DTYPE_INT32) X(int32_t, tag, MPITEV_DTYPE_INT32)
#define MPITEV_CATALOG_L_SEARCH(X)                                                          \
    X(uint64_t, seq, MPITEV_DTYPE_UINT64) X(uint64_t, request_id, MPITEV_DTYPE_UINT64)        \
    X(int32_t, source, MPITEV_DTYPE_INT32) X(int32_t, tag, MPITEV_DTYPE_INT32)                \
    X(int32_t, queue_length, MPITEV_DTYPE_INT32) X(int32_t, found, MPITEV_DTYPE_INT32)
#define MPITEV_CATALOG_L_POSTED(X)                                                          \
    X(uint64_t, request_id, MPITEV_DTYPE_UINT64) X(int32_t, source, MPITEV_DTYPE_INT32)       \
    X(int32_t, tag, MPITEV_DTYPE_INT32) X(int32_t, queue_length, MPITEV_DTYPE_INT32)
#define MPITEV_CATALOG_L_UNEXPECTED(X)                                                      \
    X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT) X(uint64_t, seq, MPITEV_DTYPE_UINT64)        \
    X(int32_t, source, MPITEV_DTYPE_INT32) X(int32_t, tag, MPITEV_DTYPE_INT32)                \
    X(int32_t, queue_length, MPITEV_DTYPE_INT32)
#define MPITEV_CATALOG_L_REQUEST(X)                                                         \
    X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT) X(uint64_t, request_id, MPITEV_DTYPE_UINT64) \
    X(int32_t, peer, MPITEV_DTYPE_INT32) X(int32_t, tag, MPITEV_DTYPE_INT32)                  \
    X(int32_t, is_send, MPITEV_DTYPE_INT32)
#define MPITEV_CATALOG_L_CANCEL(X)                                                          \
    X(uint64_t, request_id, MPITEV_DTYPE_UINT64) X(int32_t, peer, MPITEV_DTYPE_INT32)         \
    X(int32_t, tag, MPITEV_DTYPE_INT32) X(int32_t, is_send, MPITEV_DTYPE_INT32)               \
    X(int32_t, cancelled, MPITEV_DTYPE_INT32)
#define MPITEV_CATALOG_L_RMA(X)                                                             \
    X(int64_t, target_disp, MPITEV_DTYPE_INT64) X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT)  \
    X(uint64_t, op_id, MPITEV_DTYPE_UINT64) X(int32_t, target, MPITEV_DTYPE_INT32)            \
    X(int32_t, op, MPITEV_DTYPE_INT32)
#define MPITEV_CATALOG_L_LOCK(X)                                                            \
    X(int32_t, target, MPITEV_DTYPE_INT32) X(int32_t, lock_type, MPITEV_DTYPE_INT32)
#define MPITEV_CATALOG_L_SYNC(X)                                                            \
    X(int32_t, kind, MPITEV_DTYPE_INT32) X(int32_t, target, MPITEV_DTYPE_INT32)
#define MPITEV_CATALOG_L_COMM(X)                                                            \
    X(uint64_t, key, MPITEV_DTYPE_UINT64) X(uint64_t, parent_key, MPITEV_DTYPE_UINT64)        \
    X(int32_t, rank, MPITEV_DTYPE_INT32) X(int32_t, size, MPITEV_DTYPE_INT32)
#define MPITEV_CATALOG_L_WIN(X)                                                             \
    X(uint64_t, key, MPITEV_DTYPE_UINT64) X(uint64_t, comm_key, MPITEV_DTYPE_UINT64)          \
    X(mpitev_count_t, bytes, MPITEV_DTYPE_COUNT) X(int32_t, rank, MPITEV_DTYPE_INT32)         \
    X(int32_t, size, MPITEV_DTYPE_INT32)

/* Shorthands for the entries below. */
#define MPITEV__CAT_ENGINE MPITEV_TYPE_ALWAYS_BUFFERED

/* ------------------------------------------------ matching (PERUSE's set)
 * Bound to the communicator of the message or receive. Raised where the MPI matches
 * (with hardware or provider matching, not at all). */
#define MPITEV_CAT_MESSAGE_ARRIVED(EV)                                                      \
    EV(message_arrived, MPITEV_CATALOG_L_ARRIVED, MPI_COMM, MPITEV__CAT_ENGINE, TUNER_DETAIL, \
       ASYNC_SIGNAL_SAFE, "a message envelope arrived and is about to be matched (seq numbers " \
       "arrivals)")
#define MPITEV_CAT_SEARCH_POSTED_BEGIN(EV)                                                  \
    EV(search_posted_begin, MPITEV_CATALOG_L_SEARCH, MPI_COMM, MPITEV__CAT_ENGINE,           \
       MPIDEV_DETAIL, ASYNC_SIGNAL_SAFE, "start of the posted-receive queue search for the "   \
       "arrived message seq (found -1)")
#define MPITEV_CAT_SEARCH_POSTED_END(EV)                                                    \
    EV(search_posted_end, MPITEV_CATALOG_L_SEARCH, MPI_COMM, MPITEV__CAT_ENGINE,             \
       MPIDEV_DETAIL, ASYNC_SIGNAL_SAFE, "end of the posted-receive queue search: found 1 and " \
       "the receive's request_id, or found 0 (the message becomes unexpected)")
#define MPITEV_CAT_SEARCH_UNEXPECTED_BEGIN(EV)                                              \
    EV(search_unexpected_begin, MPITEV_CATALOG_L_SEARCH, MPI_COMM, MPITEV__CAT_ENGINE,       \
       MPIDEV_DETAIL, ASYNC_SIGNAL_SAFE, "start of the unexpected-message queue search for "   \
       "the receive request_id being posted (source, tag: its pattern; found -1)")
#define MPITEV_CAT_SEARCH_UNEXPECTED_END(EV)                                                \
    EV(search_unexpected_end, MPITEV_CATALOG_L_SEARCH, MPI_COMM, MPITEV__CAT_ENGINE,         \
       MPIDEV_DETAIL, ASYNC_SIGNAL_SAFE, "end of the unexpected-message queue search: found 1 " \
       "and the message's seq, or found 0 (the receive is posted)")
#define MPITEV_CAT_POSTED_INSERT(EV)                                                        \
    EV(posted_insert, MPITEV_CATALOG_L_POSTED, MPI_COMM, MPITEV__CAT_ENGINE, TUNER_DETAIL,   \
       ASYNC_SIGNAL_SAFE, "a receive joined the posted-receive queue")
#define MPITEV_CAT_POSTED_REMOVE(EV)                                                        \
    EV(posted_remove, MPITEV_CATALOG_L_POSTED, MPI_COMM, MPITEV__CAT_ENGINE, TUNER_DETAIL,   \
       ASYNC_SIGNAL_SAFE, "a receive left the posted-receive queue (matched or cancelled)")
#define MPITEV_CAT_UNEXPECTED_INSERT(EV)                                                    \
    EV(unexpected_insert, MPITEV_CATALOG_L_UNEXPECTED, MPI_COMM, MPITEV__CAT_ENGINE,         \
       TUNER_DETAIL, ASYNC_SIGNAL_SAFE, "an arrived message matched no posted receive and "    \
       "joined the unexpected-message queue")
#define MPITEV_CAT_UNEXPECTED_REMOVE(EV)                                                    \
    EV(unexpected_remove, MPITEV_CATALOG_L_UNEXPECTED, MPI_COMM, MPITEV__CAT_ENGINE,         \
       TUNER_DETAIL, ASYNC_SIGNAL_SAFE, "a message left the unexpected-message queue: a "      \
       "receive matched it")
#define MPITEV_CATALOG_MATCHING(EV)                                                         \
    MPITEV_CAT_MESSAGE_ARRIVED(EV) MPITEV_CAT_SEARCH_POSTED_BEGIN(EV)                       \
    MPITEV_CAT_SEARCH_POSTED_END(EV) MPITEV_CAT_SEARCH_UNEXPECTED_BEGIN(EV)                 \
    MPITEV_CAT_SEARCH_UNEXPECTED_END(EV) MPITEV_CAT_POSTED_INSERT(EV)                       \
    MPITEV_CAT_POSTED_REMOVE(EV) MPITEV_CAT_UNEXPECTED_INSERT(EV)                           \
    MPITEV_CAT_UNEXPECTED_REMOVE(EV)

/* ------------------------------------------------ transfer and requests
 * Bound to the request's communicator. What an MPI knows on every path, also where the
 * network matches for it. */
#define MPITEV_CAT_SEND_POSTED(EV)                                                          \
    EV(send_posted, MPITEV_CATALOG_L_REQUEST, MPI_COMM, MPITEV__CAT_ENGINE, USER_DETAIL,     \
       ASYNC_SIGNAL_SAFE, "a send was started (peer: destination; bytes: message size)")
#define MPITEV_CAT_RECV_POSTED(EV)                                                          \
    EV(recv_posted, MPITEV_CATALOG_L_REQUEST, MPI_COMM, MPITEV__CAT_ENGINE, USER_DETAIL,     \
       ASYNC_SIGNAL_SAFE, "a receive was started (peer, tag: its pattern, -1 for a wildcard; " \
       "bytes: buffer capacity)")
#define MPITEV_CAT_TRANSFER_BEGIN(EV)                                                       \
    EV(transfer_begin, MPITEV_CATALOG_L_REQUEST, MPI_COMM, MPITEV__CAT_ENGINE, TUNER_DETAIL, \
       ASYNC_SIGNAL_SAFE, "payload movement of a matched request starts")
#define MPITEV_CAT_TRANSFER_END(EV)                                                         \
    EV(transfer_end, MPITEV_CATALOG_L_REQUEST, MPI_COMM, MPITEV__CAT_ENGINE, TUNER_DETAIL,   \
       ASYNC_SIGNAL_SAFE, "payload movement of a request is complete")
#define MPITEV_CAT_REQUEST_COMPLETE(EV)                                                     \
    EV(request_complete, MPITEV_CATALOG_L_REQUEST, MPI_COMM, MPITEV__CAT_ENGINE,             \
       USER_DETAIL, ASYNC_SIGNAL_SAFE, "a send or receive request completed (a receive: the "  \
       "matched source, tag and bytes received)")
#define MPITEV_CAT_REQUEST_CANCEL(EV)                                                       \
    EV(request_cancel, MPITEV_CATALOG_L_CANCEL, MPI_COMM, MPITEV__CAT_ENGINE, USER_DETAIL,   \
       ASYNC_SIGNAL_SAFE, "MPI_Cancel on a request: cancelled 1 if it was cancelled, 0 if "    \
       "not, -1 if not known yet (its status tells)")
#define MPITEV_CATALOG_TRANSFER(EV)                                                         \
    MPITEV_CAT_SEND_POSTED(EV) MPITEV_CAT_RECV_POSTED(EV) MPITEV_CAT_TRANSFER_BEGIN(EV)     \
    MPITEV_CAT_TRANSFER_END(EV) MPITEV_CAT_REQUEST_COMPLETE(EV) MPITEV_CAT_REQUEST_CANCEL(EV)

/* ------------------------------------------------ one-sided (bound to the window)
 * target: rank in the window's group; target_disp: bytes from the target's window base
 * (displacement times its disp_unit). An operation's complete event comes at the latest
 * with the synchronization that completes it at the origin (fence, flush, unlock,
 * complete), with the started event's op_id. */
#define MPITEV_CAT_PUT_STARTED(EV)                                                          \
    EV(put_started, MPITEV_CATALOG_L_RMA, MPI_WIN, MPITEV__CAT_ENGINE, TUNER_DETAIL,         \
       ASYNC_SIGNAL_SAFE, "a put was started (op 0)")
#define MPITEV_CAT_PUT_COMPLETE(EV)                                                         \
    EV(put_complete, MPITEV_CATALOG_L_RMA, MPI_WIN, MPITEV__CAT_ENGINE, TUNER_DETAIL,        \
       ASYNC_SIGNAL_SAFE, "a put is complete: its data is in the target window")
#define MPITEV_CAT_GET_STARTED(EV)                                                          \
    EV(get_started, MPITEV_CATALOG_L_RMA, MPI_WIN, MPITEV__CAT_ENGINE, TUNER_DETAIL,         \
       ASYNC_SIGNAL_SAFE, "a get was started (op 0)")
#define MPITEV_CAT_GET_COMPLETE(EV)                                                         \
    EV(get_complete, MPITEV_CATALOG_L_RMA, MPI_WIN, MPITEV__CAT_ENGINE, TUNER_DETAIL,        \
       ASYNC_SIGNAL_SAFE, "a get is complete: its data is in the origin buffer")
#define MPITEV_CAT_ACCUMULATE_STARTED(EV)                                                   \
    EV(accumulate_started, MPITEV_CATALOG_L_RMA, MPI_WIN, MPITEV__CAT_ENGINE, TUNER_DETAIL,  \
       ASYNC_SIGNAL_SAFE, "an accumulate was started (op: MPITEV_CATALOG_OP_*)")
#define MPITEV_CAT_ACCUMULATE_COMPLETE(EV)                                                  \
    EV(accumulate_complete, MPITEV_CATALOG_L_RMA, MPI_WIN, MPITEV__CAT_ENGINE, TUNER_DETAIL, \
       ASYNC_SIGNAL_SAFE, "an accumulate is complete: applied at the target")
#define MPITEV_CAT_LOCK_ACQUIRED(EV)                                                        \
    EV(lock_acquired, MPITEV_CATALOG_L_LOCK, MPI_WIN, MPITEV__CAT_ENGINE, TUNER_DETAIL,      \
       ASYNC_SIGNAL_SAFE, "this process holds the lock on target (-1: MPI_Win_lock_all; "      \
       "lock_type 1 exclusive, 2 shared)")
#define MPITEV_CAT_LOCK_RELEASED(EV)                                                        \
    EV(lock_released, MPITEV_CATALOG_L_LOCK, MPI_WIN, MPITEV__CAT_ENGINE, TUNER_DETAIL,      \
       ASYNC_SIGNAL_SAFE, "this process released the lock on target (-1: MPI_Win_unlock_all)")
#define MPITEV_CAT_SYNC_BEGIN(EV)                                                           \
    EV(sync_begin, MPITEV_CATALOG_L_SYNC, MPI_WIN, MPITEV__CAT_ENGINE, USER_DETAIL,          \
       ASYNC_SIGNAL_SAFE, "a synchronization call starts (kind: MPITEV_CATALOG_SYNC_*; "       \
       "target, or -1 for all or none)")
#define MPITEV_CAT_SYNC_END(EV)                                                             \
    EV(sync_end, MPITEV_CATALOG_L_SYNC, MPI_WIN, MPITEV__CAT_ENGINE, USER_DETAIL,            \
       ASYNC_SIGNAL_SAFE, "a synchronization call ends")
#define MPITEV_CATALOG_ONESIDED(EV)                                                         \
    MPITEV_CAT_PUT_STARTED(EV) MPITEV_CAT_PUT_COMPLETE(EV) MPITEV_CAT_GET_STARTED(EV)       \
    MPITEV_CAT_GET_COMPLETE(EV) MPITEV_CAT_ACCUMULATE_STARTED(EV)                           \
    MPITEV_CAT_ACCUMULATE_COMPLETE(EV) MPITEV_CAT_LOCK_ACQUIRED(EV)                         \
    MPITEV_CAT_LOCK_RELEASED(EV) MPITEV_CAT_SYNC_BEGIN(EV) MPITEV_CAT_SYNC_END(EV)

/* ------------------------------------------------ objects
 * Creation is bound to the communicator the creating call was made on (the parent; a
 * predefined communicator: itself), so a tool registered on the parent sees the new
 * object before it could name it. Free is bound to the object itself. */
#define MPITEV_CAT_COMM_CREATE(EV)                                                          \
    EV(comm_create, MPITEV_CATALOG_L_COMM, MPI_COMM, 0, USER_BASIC, MPI_RESTRICTED,          \
       "a communicator key was created from the bound one (parent_key; the predefined "     \
       "ones at MPI_Init, bound to themselves, parent_key 0)")
#define MPITEV_CAT_COMM_FREE(EV)                                                            \
    EV(comm_free, MPITEV_CATALOG_L_COMM, MPI_COMM, 0, USER_BASIC, MPI_RESTRICTED,            \
       "the bound communicator is about to be freed (MPI_Comm_free, or MPI_Finalize)")
#define MPITEV_CAT_WIN_CREATE(EV)                                                           \
    EV(win_create, MPITEV_CATALOG_L_WIN, MPI_COMM, 0, USER_BASIC, MPI_RESTRICTED,            \
       "a window key was created over the bound communicator (bytes: local window size)")
#define MPITEV_CAT_WIN_FREE(EV)                                                             \
    EV(win_free, MPITEV_CATALOG_L_WIN, MPI_WIN, 0, USER_BASIC, MPI_RESTRICTED,               \
       "the bound window is about to be freed")
#define MPITEV_CATALOG_OBJECTS(EV)                                                          \
    MPITEV_CAT_COMM_CREATE(EV) MPITEV_CAT_COMM_FREE(EV) MPITEV_CAT_WIN_CREATE(EV)            \
    MPITEV_CAT_WIN_FREE(EV)

/* Every catalogue event, in catalogue order. */
#define MPITEV_CATALOG_ALL(EV)                                                              \
    MPITEV_CATALOG_MATCHING(EV) MPITEV_CATALOG_TRANSFER(EV) MPITEV_CATALOG_ONESIDED(EV)     \
    MPITEV_CATALOG_OBJECTS(EV)

/* ------------------------------------------------------------- generators
 * MPITEV_CATALOG_TYPES(LIST): in a header every raising TU includes; for each entry,
 * what MPITEV_EVENT_TYPE generates (write no semicolon after it). */
#define MPITEV__CAT_TYPE(name, layout, bind, flags, verbosity, level, text)                 \
    MPITEV_EVENT_TYPE(name, layout)
#define MPITEV_CATALOG_TYPES(LIST) LIST(MPITEV__CAT_TYPE)

/* MPITEV_CATALOG_DEFINE(LIST, fn): in one .c file; defines each entry's type object and
 *   int fn(const char *category);
 * which declares every entry in list order with the entry's description, binding,
 * verbosity and flags, and the MPI_T category given (NULL: none). It stops at the first
 * declaration that fails and returns its code (MPITEV_SUCCESS when all succeed; declaring
 * again with the same description is a no-op, so fn may run at every init). */
#define MPITEV__CAT_DEFINE(name, layout, bind, flags, verbosity, level, text)               \
    MPITEV_EVENT_DEFINE(name)
#define MPITEV__CAT_DECLARE(name, layout, bind_, flags_, verbosity_, level, text)           \
    if (mpitev__rc == MPITEV_SUCCESS)                                                       \
        mpitev__rc = name##_declare((mpitev_type_desc){ .desc = text,                       \
                                                        .verbosity = MPITEV_VERBOSITY_##verbosity_, \
                                                        .bind = MPITEV_BIND_##bind_,        \
                                                        .category = mpitev__category,       \
                                                        .flags = (flags_) });
#define MPITEV_CATALOG_DEFINE(LIST, fn)                                                     \
    LIST(MPITEV__CAT_DEFINE)                                                                \
    int fn(const char *mpitev__category) {                                                  \
        int mpitev__rc = MPITEV_SUCCESS;                                                    \
        LIST(MPITEV__CAT_DECLARE)                                                           \
        return mpitev__rc;                                                                  \
    }

#endif /* MPITEV_CATALOG_H */
