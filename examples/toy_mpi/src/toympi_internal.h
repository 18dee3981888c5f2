/*
 * toympi_internal.h -- shared internal declarations of toy_mpi.
 *
 * Module map (one responsibility per file):
 *   init.c       MPI_Init/Finalize/Abort, Wtime, version, global state
 *   errhandler.c error classes, strings, error handlers, argument checks
 *   comm.c       communicator table, context ids, dup/split/free
 *   datatype.c   predefined datatypes
 *   op.c         reduction operators
 *   info.c       MPI_Info objects
 *   request.c    request objects, Wait/Test family, Cancel, Get_count
 *   matching.c   matching: posted-receive and unexpected-message queues,
 *                the matching decisions and the matching-engine events (no
 *                I/O; unit tested with cmocka)
 *   transport.c  Unix-domain socket connections, framing, send queues
 *   protocol.c   eager and rendezvous (RTS/CTS/DATA) protocol handlers
 *   progress.c   the progress engine (poll loop) and the one place that
 *                delivers engine events, at progress and at API exit
 *   pt2pt.c      MPI_Send/Recv/Isend/Irecv/Probe/... entry points
 *   coll.c       collectives on top of internal point-to-point
 *   mpit.c       MPI_T: init/finalize, the mpitev adapter (events, sources),
 *                enums and categories
 *   events.{h,c} MPI_T event types and sources (mpitev), the raise macros
 *   win.{h,c}    windows: objects, epochs, the one-sided MPI_ entry points
 *   rma.c        one-sided frames: issuing at the origin, applying at the target
 */
#ifndef TOYMPI_INTERNAL_H
#define TOYMPI_INTERNAL_H

#define TOYMPI_BUILDING 1
#include "mpi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TOYMPI_HIDDEN __attribute__((visibility("hidden")))

/* After the strong PMPI_name definition: MPI_name as an exported weak alias of it, so a
 * tool's own MPI_name wins and calls PMPI_name (the profiling interface). An alias
 * attribute rather than #pragma weak: under -fvisibility=hidden clang turns the pragma's
 * alias into a local symbol, so programs would not link. */
#define TOYMPI_WEAK(name)                                                                  \
    extern __typeof__(PMPI_##name) MPI_##name                                              \
        __attribute__((weak, alias(TOYMPI_STR(PMPI_##name)), visibility("default")));
#define TOYMPI_STR(x) #x

/* ------------------------------------------------------------ handles */
#define TOYMPI_HANDLE_KIND(h) ((unsigned)(h) & 0xff000000u)
#define TOYMPI_HANDLE_INDEX(h) ((int)((unsigned)(h) & 0x00ffffffu))
#define TOYMPI_KIND_COMM 0x44000000u
#define TOYMPI_KIND_DATATYPE 0x4c000000u
#define TOYMPI_KIND_OP 0x58000000u
#define TOYMPI_KIND_ERRHANDLER 0x54000000u
#define TOYMPI_KIND_INFO 0x1c000000u
#define TOYMPI_KIND_REQUEST 0x2c000000u
#define TOYMPI_KIND_WIN 0x20000000u

/* ------------------------------------------------------------- global */
typedef struct toympi_global {
    int initialized; /* MPI_Init done */
    int finalized;   /* MPI_Finalize done */
    int finalizing;  /* inside MPI_Finalize's shutdown: peer EOF is expected, and the
                        drains deliver at MPITEV_CB_REQUIRE_MPI_RESTRICTED */
    int in_tool;     /* tool code (an MPI_T callback) is running inside the library: see
                        TOYMPI_CHECK_INIT and docs/implementors-guide.md section 10 */
    int tool_restricted; /* ... delivered where it may not call MPI at all (inside the
                            engine, at MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE: request.c) */
    int world_rank;
    int world_size;
    int thread_level;
    size_t eager_limit; /* bytes; larger messages use rendezvous */
    double wtime_base;
} toympi_global_t;

extern toympi_global_t toympi_g TOYMPI_HIDDEN;

/* Exit status of a rank that stops because a peer died (mpiexec treats it
 * as a consequence, not as the cause, of a failure). Keep in sync with
 * tools/mpiexec.c. */
#define TOYMPI_EXIT_PEER_LOST 99

/* Aborts the whole job (used by MPI_Abort and MPI_ERRORS_ARE_FATAL). */
_Noreturn void toympi_abort_job(int errorcode, const char *why) TOYMPI_HIDDEN;
/* Fatal internal error (transport failure, out of memory, ...). */
_Noreturn void toympi_fatal(const char *fmt, ...) TOYMPI_HIDDEN
    __attribute__((format(printf, 1, 2)));

void *toympi_malloc(size_t n) TOYMPI_HIDDEN;
void *toympi_calloc(size_t n, size_t m) TOYMPI_HIDDEN;
void *toympi_realloc(void *p, size_t n) TOYMPI_HIDDEN;

/* ------------------------------------------------------ communicators */
typedef struct toympi_comm {
    int index; /* handle = TOYMPI_KIND_COMM | index */
    uint32_t context_id; /* point-to-point context; context_id+1 = collectives */
    int rank;
    int size;
    int *world_ranks; /* comm rank -> world rank */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    uint32_t coll_seq; /* collectives started on this communicator */
    uint64_t ev_key;   /* MPI_T event object key: never reused (events.h) */
    uint64_t ev_parent_key; /* the key of the communicator it was created from (0: predefined) */
    /* Lifetime. MPI code that keeps a pointer to a communicator across a point where
     * tool code may run (an MPI_T callback at MPI_T_CB_REQUIRE_NONE may call
     * MPI_Comm_free on it) holds a reference: toympi_comm_hold / _unhold. The handle is
     * one reference too. MPI_Comm_free marks it freed (the handle is invalid from then
     * on) and drops that reference; the last reference releases it (comm_free event,
     * context id given back, memory freed), as MPI-4.1 6.4.3 describes MPI_Comm_free
     * with operations pending. */
    int refs;
    int freed;     /* MPI_Comm_free done */
    int releasing; /* inside its release (the comm_free event): still complete */
} toympi_comm_t;

#define TOYMPI_CTX_COLL_OFFSET 1u
#define TOYMPI_MAX_CONTEXTS 4096 /* context ids, allocated in pairs */

int toympi_comm_init_world(void) TOYMPI_HIDDEN;
void toympi_comm_finalize(void) TOYMPI_HIDDEN;
/* NULL if the handle is not a live communicator (never created, or freed). */
toympi_comm_t *toympi_comm_get(MPI_Comm comm) TOYMPI_HIDDEN;
/* Keep c alive across tool code (see toympi_comm_t); _unhold may release it, raising
 * its comm_free event at toympi_events_level(): call it where nothing is held. */
void toympi_comm_hold(toympi_comm_t *c) TOYMPI_HIDDEN;
void toympi_comm_unhold(toympi_comm_t *c) TOYMPI_HIDDEN;
MPI_Comm toympi_comm_handle(const toympi_comm_t *c) TOYMPI_HIDDEN;

/* ---------------------------------------------------- errors/handlers */
/* Raise error `code` on communicator `comm` (MPI_COMM_NULL: on
 * MPI_COMM_SELF). Returns `code` when the handler returns. */
int toympi_err(MPI_Comm comm, int code, const char *func, const char *fmt, ...) TOYMPI_HIDDEN
    __attribute__((format(printf, 4, 5)));
int toympi_errhandler_valid(MPI_Errhandler eh) TOYMPI_HIDDEN;
void toympi_errhandler_ref(MPI_Errhandler eh) TOYMPI_HIDDEN;
void toympi_errhandler_unref(MPI_Errhandler eh) TOYMPI_HIDDEN;
/* Run handler eh for error `code` on the object `handle` (an MPI_Comm or an MPI_Win).
 * Returns `code` when the handler returns. */
int toympi_errhandler_call(MPI_Errhandler eh, int handle, int code, const char *func,
                           const char *msg) TOYMPI_HIDDEN;

/* Common argument checks; each expands to a return on failure.
 * MPI not usable (before MPI_Init, after MPI_Finalize, or, for tool code, once
 * MPI_Finalize has started its teardown or inside the engine): an application's call
 * aborts the job, as MPICH does; a callback's call returns MPI_ERR_OTHER to the callback
 * (the MPI_T callbacks that run there are at MPITEV_CB_REQUIRE_MPI_RESTRICTED or above,
 * which may not call MPI: the tool's mistake must not abort the application, re-enter
 * the engine mid-frame or touch what is being torn down). */
#define TOYMPI_CHECK_INIT(func)                                                        \
    do {                                                                               \
        if (!toympi_g.initialized || toympi_g.finalized ||                             \
            (toympi_g.in_tool && (toympi_g.finalizing || toympi_g.tool_restricted))) { \
            if (toympi_g.in_tool)                                                      \
                return MPI_ERR_OTHER;                                                  \
            toympi_not_initialized(func);                                              \
        }                                                                              \
    } while (0)
_Noreturn void toympi_not_initialized(const char *func) TOYMPI_HIDDEN;

/* ------------------------------------------------------------ datatypes */
typedef enum toympi_kind {
    TK_NONE = 0,
    TK_CHAR, /* text characters: no arithmetic */
    TK_I8, TK_I16, TK_I32, TK_I64,
    TK_U8, TK_U16, TK_U32, TK_U64,
    TK_FLOAT, TK_DOUBLE, TK_LDOUBLE,
    TK_BOOL,
    TK_BYTE,
    TK_PACKED,
    TK_FLOAT_INT, TK_DOUBLE_INT, TK_LONG_INT, TK_2INT, TK_SHORT_INT, TK_LDOUBLE_INT
} toympi_kind_t;

typedef struct toympi_datatype {
    const char *name;
    size_t size;
    toympi_kind_t kind;
} toympi_datatype_t;

/* NULL for invalid or null datatypes */
const toympi_datatype_t *toympi_datatype_get(MPI_Datatype dt) TOYMPI_HIDDEN;

/* -------------------------------------------------------------- ops */
/* Applies inout[i] = in[i] op inout[i]. Returns MPI_SUCCESS or MPI_ERR_OP. */
int toympi_op_check(MPI_Op op, MPI_Datatype dt) TOYMPI_HIDDEN;
void toympi_op_apply(MPI_Op op, MPI_Datatype dt, const void *in, void *inout, int count)
    TOYMPI_HIDDEN;
int toympi_op_commutative(MPI_Op op) TOYMPI_HIDDEN;
/* A reduction keeps its user operator from before its coll_begin to the end of the
 * computation: MPI_Op_free from tool code meanwhile only marks it (freed, the handle
 * invalid; the slot is reused only after the unhold). No-ops for predefined operators. */
void toympi_op_hold(MPI_Op op) TOYMPI_HIDDEN;
void toympi_op_unhold(MPI_Op op) TOYMPI_HIDDEN;

/* -------------------------------------------------------------- info */
void toympi_info_finalize(void) TOYMPI_HIDDEN;

/* -------------------------------------------------------------- requests */
typedef enum { TOYMPI_REQ_SEND = 1, TOYMPI_REQ_RECV = 2 } toympi_req_kind_t;

typedef struct toympi_request {
    toympi_req_kind_t kind;
    int complete;      /* operation finished; status valid */
    int handle;        /* user handle index, 0 if internal */
    int user_freed;    /* MPI_Request_free while active: release on completion */
    int busy;          /* a Wait/Test call is completing it: tool code that call runs may
                          not complete or free it (MPI_ERR_REQUEST, request.c) */
    MPI_Comm comm;     /* for error reporting */
    uint32_t context_id;
    int peer_world;    /* send: destination world rank */
    int dest;          /* send: destination rank in the communicator */
    uint64_t ev_id;    /* per-process request number for MPI_T events, never reused */
    /* matching envelope (receive: pattern; send: actual) */
    int src; /* comm rank or MPI_ANY_SOURCE (recv); own comm rank (send) */
    int tag;
    /* buffers */
    void *buf;        /* recv: destination */
    const void *sbuf; /* send: source */
    size_t bytes;     /* send: message size; recv: capacity */
    int sync;         /* send: synchronous (always rendezvous) */
    MPI_Status status;
    struct toympi_request *next_posted; /* link in the posted queue */
} toympi_request_t;

toympi_request_t *toympi_request_new(toympi_req_kind_t kind) TOYMPI_HIDDEN;
/* allocate a user handle for an internal request */
int toympi_request_publish(toympi_request_t *r, MPI_Request *handle) TOYMPI_HIDDEN;
toympi_request_t *toympi_request_lookup(MPI_Request handle) TOYMPI_HIDDEN;
void toympi_request_release(toympi_request_t *r) TOYMPI_HIDDEN;
void toympi_request_complete(toympi_request_t *r) TOYMPI_HIDDEN;
/* block until r is complete (drives progress) */
void toympi_request_wait(toympi_request_t *r) TOYMPI_HIDDEN;
void toympi_request_finalize(void) TOYMPI_HIDDEN;
void toympi_status_set_empty(MPI_Status *st) TOYMPI_HIDDEN;

/* ---------------------------------------------------- internal pt2pt */
/* Start a send / receive on an explicit context (used by MPI_ entry
 * points and by collectives, which pass context_id+1). dest/src are comm
 * ranks. Arguments are assumed valid. */
toympi_request_t *toympi_isend(const toympi_comm_t *c, uint32_t ctx, const void *buf,
                               size_t bytes, int dest, int tag, int sync) TOYMPI_HIDDEN;
toympi_request_t *toympi_irecv(const toympi_comm_t *c, uint32_t ctx, void *buf, size_t bytes,
                               int src, int tag) TOYMPI_HIDDEN;
/* blocking helpers for collectives (errors are internal failures) */
int toympi_coll_send(const toympi_comm_t *c, const void *buf, size_t bytes, int dest, int tag)
    TOYMPI_HIDDEN;
int toympi_coll_recv(const toympi_comm_t *c, void *buf, size_t bytes, int src, int tag)
    TOYMPI_HIDDEN;
int toympi_coll_sendrecv(const toympi_comm_t *c, const void *sbuf, size_t sbytes, int dest,
                         void *rbuf, size_t rbytes, int src, int tag) TOYMPI_HIDDEN;
/* internal collectives used by comm management (on the collective ctx) */
int toympi_barrier_impl(const toympi_comm_t *c) TOYMPI_HIDDEN;
int toympi_allreduce_impl(const toympi_comm_t *c, const void *sbuf, void *rbuf, int count,
                          MPI_Datatype dt, MPI_Op op) TOYMPI_HIDDEN;
int toympi_allgather_impl(const toympi_comm_t *c, const void *sbuf, void *rbuf, size_t bytes)
    TOYMPI_HIDDEN;

#endif /* TOYMPI_INTERNAL_H */
