/* win.h -- windows (one-sided communication, MPI-4.1 chapter 12, the subset the toy
 * implements): the window object that win.c (objects, access epochs, the MPI_ entry
 * points) and rma.c (the frames: issuing an operation at the origin, applying it at the
 * target) share.
 *
 * Every operation is an active message over the transport: the origin sends a frame,
 * the target's progress engine applies it (or answers a get or a lock request) and
 * acknowledges it. There is no progress thread, so a target makes progress only while
 * it is inside an MPI call (any call that polls: MPI_Win_*, MPI_Recv, MPI_Barrier, ...),
 * like MPICH's ch3 passive target: an origin waiting on MPI_Win_lock, _flush or _unlock
 * waits until the target enters MPI.
 *
 * Window ranks are ranks in the group of the communicator the window was created over;
 * peers[] maps them to world ranks and holds each peer's window as the origin needs it
 * (its index, the id its frames carry; its size and displacement unit, for the range
 * checks made before anything is sent). */
#ifndef TOYMPI_WIN_H
#define TOYMPI_WIN_H

#include "toympi_internal.h"

#include "events.h"

typedef struct toympi_win_peer {
    int world;     /* world rank */
    int index;     /* its window's index there: the context_id of frames sent to it */
    int disp_unit; /* its displacement unit */
    MPI_Aint size; /* its window's size in bytes */
} toympi_win_peer_t;

/* A lock request waiting at the target (queued in arrival order). */
typedef struct toympi_lock_waiter {
    int peer_world;     /* who asked: the grant goes there */
    int type;           /* MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED */
    uint64_t origin_id; /* the origin's window, echoed in the grant */
    struct toympi_lock_waiter *next;
} toympi_lock_waiter_t;

/* This process's access epoch on the window (as the origin). */
typedef enum {
    TOYMPI_EPOCH_NONE = 0, /* no access epoch: RMA calls are MPI_ERR_RMA_SYNC */
    TOYMPI_EPOCH_FENCE,    /* after MPI_Win_fence without MPI_MODE_NOSUCCEED */
    TOYMPI_EPOCH_LOCK,     /* MPI_Win_lock held on the targets in lock_held[] */
    TOYMPI_EPOCH_LOCK_ALL  /* MPI_Win_lock_all */
} toympi_epoch_t;

typedef struct toympi_win {
    int index;         /* handle = TOYMPI_KIND_WIN | index */
    uint64_t ev_key;   /* MPI_T event object key: never reused (win.c) */
    uint64_t comm_key; /* the key of the communicator it was created over */
    int rank, size;    /* in the group of that communicator */
    toympi_win_peer_t *peers; /* [size] */
    char *base;        /* this process's window memory */
    MPI_Aint bytes;    /* ... its size */
    int disp_unit;
    int allocated;     /* MPI_Win_allocate: base is ours, freed with the window */
    MPI_Errhandler errhandler;
    int busy; /* an MPI call on the window waits in progress, where tool code may run:
                 such code may issue operations, but not synchronize or free it (win.c) */
    int freeing; /* inside MPI_Win_free: no new operations (tool code's are refused) */

    /* ---- origin: access epochs and operations in flight */
    toympi_epoch_t epoch;
    int ops_since_fence; /* operations issued in the current fence epoch */
    int *lock_held;      /* [size]: MPI_LOCK_* this process holds on each target, or 0 */
    int *pending;        /* [size]: operations issued to each target, not acknowledged */
    int pending_total;
    int grants_pending;  /* lock requests sent and not granted yet */
    int acquiring_all;   /* ... by MPI_Win_lock_all (lock_acquired once, at the last) */
    int barriers;        /* window barriers (fence, free) this process entered */
    int *barrier_seen;   /* [size]: barrier frames received from each rank */

    /* ---- target: the window's lock (passive target) */
    int lock_exclusive; /* an exclusive holder has it */
    int lock_shared;    /* number of shared holders */
    toympi_lock_waiter_t *waiters, *waiters_tail;
} toympi_win_t;

/* ------------------------------------------------------------------ events
 * The one-sided family of the catalogue (put/get/accumulate_started and _complete,
 * lock_acquired/_released, sync_begin/_end) is bound to the window: its key is the
 * window's ev_key, a number given at creation and never reused (its own numbers, apart
 * from the communicators'). They are raised at the origin on the engine source at
 * MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, always buffered, like every engine event: the
 * completions and grants inside the frame handlers, the starts and the synchronization
 * events from the MPI calls, which leave through toympi_progress_poll's drain. Nothing
 * is raised at the target (the catalogue describes what the origin sees). win_create is
 * bound to the communicator the window was created over, win_free to the window; both
 * come from the API source (win.c). */
#define TOYMPI_WIN_KEY(w) ((const void *)(uintptr_t)(w)->ev_key)
#define TOYMPI_RAISE_WIN(NAME, w, ...)                                                     \
    MPITEV_RAISE_EVENT(NAME, &toympi_events_src_engine, TOYMPI_WIN_KEY(w),                 \
                       MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE, __VA_ARGS__)

/* The catalogue's code of a lock type (MPITEV_CATALOG_LOCK_*). */
static inline int32_t toympi_ev_lock_type(int type)
{
    return type == MPI_LOCK_EXCLUSIVE ? MPITEV_CATALOG_LOCK_EXCLUSIVE
                                      : MPITEV_CATALOG_LOCK_SHARED;
}

/* The window with this index (a frame's context_id), also while MPI_Win_create is still
 * exchanging it with the peers; NULL if none. */
toympi_win_t *toympi_win_by_index(int index) TOYMPI_HIDDEN;
/* MPI_T_event_handle_alloc's object key for window handle h (mpit.c): MPI_SUCCESS, or
 * MPI_T_ERR_INVALID_HANDLE for MPI_WIN_NULL, a freed window or not a window. */
int toympi_win_event_key(MPI_Win h, const void **key) TOYMPI_HIDDEN;
/* Free what is left at MPI_Finalize (windows the application did not free). */
void toympi_win_finalize(void) TOYMPI_HIDDEN;

/* ------------------------------------------------------------------ rma.c
 * Issue one operation to window rank `target` at byte offset `off` of its window. The
 * caller (win.c) has checked everything: the epoch allows it, the range is inside the
 * target's window, the datatypes and the operator are valid. The data is copied: the
 * origin buffer is free again at return (a get's is written when the reply arrives).
 * Each counts in pending[target] until the target acknowledges it. */
void toympi_rma_put(toympi_win_t *w, int target, MPI_Aint off, const void *buf, size_t bytes)
    TOYMPI_HIDDEN;
void toympi_rma_get(toympi_win_t *w, int target, MPI_Aint off, void *buf, size_t bytes)
    TOYMPI_HIDDEN;
void toympi_rma_accumulate(toympi_win_t *w, int target, MPI_Aint off, const void *buf,
                           size_t bytes, MPI_Datatype dt, MPI_Op op) TOYMPI_HIDDEN;
/* Ask target for its lock (type MPI_LOCK_*): grants_pending counts it until the grant. */
void toympi_rma_lock(toympi_win_t *w, int target, int type) TOYMPI_HIDDEN;
/* Give target's lock back (no reply: the connection is FIFO, so any later request of
 * ours reaches the target after it). */
void toympi_rma_unlock(toympi_win_t *w, int target) TOYMPI_HIDDEN;
/* One barrier frame to every rank of the window, itself included (win.c waits for theirs). */
void toympi_rma_barrier_send(toympi_win_t *w) TOYMPI_HIDDEN;

#endif
