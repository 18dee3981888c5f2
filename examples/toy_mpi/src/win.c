/* win.c -- windows: the window table, MPI_Win_create/_allocate/_free, the window error
 * handler, access epochs, and the one-sided entry points (MPI_Put/_Get/_Accumulate and
 * the synchronization calls). The frames are rma.c's (see win.h).
 *
 * Epochs, as the origin sees them (win.h, toympi_epoch_t): MPI_Win_fence opens a fence
 * epoch (unless MPI_MODE_NOSUCCEED) in which every rank may be accessed; MPI_Win_lock
 * opens a passive epoch on one target, MPI_Win_lock_all on all. An operation outside an
 * epoch, an unlock without its lock, a flush outside a passive epoch, a lock or a fence
 * mixed into the other kind of epoch are MPI_ERR_RMA_SYNC. A lock may follow a fence
 * that opened an epoch nobody used (as after the last MPI_Win_fence(0) of a phase).
 *
 * Completion: every put, get and accumulate is acknowledged by its target (rma.c).
 * MPI_Win_flush and _unlock wait for the acknowledgements from their target,
 * MPI_Win_fence, _unlock_all and _free for all of them; fence and free then wait at a
 * barrier of the window's group, made of one frame from each rank to each other rank. So
 * after a fence every operation that targeted this process has been applied.
 *
 * Supported: contiguous origin and target buffers of the predefined datatypes (the only
 * ones the toy has; anything else is MPI_ERR_TYPE), the same number of bytes on both
 * sides; accumulate with the same datatype on both sides and a predefined operator or
 * MPI_REPLACE (MPI_ERR_OP otherwise). Assertions are accepted; only MPI_MODE_NOSUCCEED
 * is used (it closes the epoch). Info arguments are ignored. */
#include "win.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"

static toympi_win_t **wins; /* index -> window; 0 = MPI_WIN_NULL */
static int wins_cap;
static uint64_t next_ev_key = 1; /* window keys: their own numbers, never reused */

/* ------------------------------------------------------------------ the table */
toympi_win_t *toympi_win_by_index(int index)
{
    return index > 0 && index < wins_cap ? wins[index] : NULL;
}

static toympi_win_t *win_get(MPI_Win win)
{
    if (TOYMPI_HANDLE_KIND(win) != TOYMPI_KIND_WIN)
        return NULL;
    return toympi_win_by_index(TOYMPI_HANDLE_INDEX(win));
}

static MPI_Win win_handle(const toympi_win_t *w)
{
    return (MPI_Win)(TOYMPI_KIND_WIN | (unsigned)w->index);
}

int toympi_win_event_key(MPI_Win h, const void **key)
{
    const toympi_win_t *w = win_get(h);
    if (!w)
        return MPI_T_ERR_INVALID_HANDLE;
    *key = TOYMPI_WIN_KEY(w);
    return MPI_SUCCESS;
}

static toympi_win_t *win_new(void)
{
    int idx = 1;
    while (idx < wins_cap && wins[idx])
        idx++;
    if (idx >= wins_cap) {
        int ncap = wins_cap ? wins_cap * 2 : 16;
        wins = toympi_realloc(wins, (size_t)ncap * sizeof *wins);
        memset(wins + wins_cap, 0, (size_t)(ncap - wins_cap) * sizeof *wins);
        wins_cap = ncap;
    }
    toympi_win_t *w = toympi_calloc(1, sizeof *w);
    w->index = idx;
    w->ev_key = next_ev_key++;
    w->errhandler = MPI_ERRORS_ARE_FATAL; /* the default for windows (MPI-4.1 9.3) */
    wins[idx] = w;
    return w;
}

static void win_delete(toympi_win_t *w)
{
    wins[w->index] = NULL;
    while (w->waiters) {
        toympi_lock_waiter_t *x = w->waiters;
        w->waiters = x->next;
        free(x);
    }
    toympi_errhandler_unref(w->errhandler);
    if (w->allocated)
        free(w->base);
    free(w->peers);
    free(w->lock_held);
    free(w->pending);
    free(w->barrier_seen);
    free(w);
}

void toympi_win_finalize(void)
{
    for (int i = 1; i < wins_cap; i++)
        if (wins[i]) /* not freed by the application: only the memory goes */
            win_delete(wins[i]);
    free(wins);
    wins = NULL;
    wins_cap = 0;
}

/* ------------------------------------------------------------------ errors */
/* Raise `code` on w's error handler. */
static int win_err(const toympi_win_t *w, int code, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int win_err(const toympi_win_t *w, int code, const char *fn, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return toympi_errhandler_call(w->errhandler, win_handle(w), code, fn, msg);
}

/* An invalid window handle (never created, freed, MPI_WIN_NULL) has no handler of its
 * own: MPI_COMM_WORLD's, as for other invalid handles (errhandler.c). */
#define CHECK_WIN(fn, win, w)                                                              \
    TOYMPI_CHECK_INIT(fn);                                                                 \
    toympi_win_t *w = win_get(win);                                                        \
    if (!w)                                                                                \
        return toympi_err(MPI_COMM_NULL, MPI_ERR_WIN, fn, "invalid window");

/* Tool code run by an MPI call that waits on this window (busy) may issue operations on
 * it, but not synchronize it or free it: the waiting call's state would change under it.
 * Refused, returned to the callback (no error handler: the application did nothing wrong). */
#define CHECK_NOT_BUSY(w)                                                                  \
    if ((w)->busy)                                                                         \
        return MPI_ERR_RMA_SYNC;

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    CHECK_WIN("MPI_Win_set_errhandler", win, w)
    if (!toympi_errhandler_valid(errhandler))
        return win_err(w, MPI_ERR_ARG, "MPI_Win_set_errhandler", "invalid error handler");
    toympi_errhandler_ref(errhandler);
    toympi_errhandler_unref(w->errhandler);
    w->errhandler = errhandler;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    CHECK_WIN("MPI_Win_get_errhandler", win, w)
    if (!errhandler)
        return win_err(w, MPI_ERR_ARG, "MPI_Win_get_errhandler", "errhandler is NULL");
    toympi_errhandler_ref(w->errhandler);
    *errhandler = w->errhandler;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Win_get_errhandler)

/* ------------------------------------------------------------------ events */
/* The payload of win_create and win_free (MPITEV_CATALOG_L_WIN). */
#define WIN_EVENT_PAYLOAD(w)                                                               \
    (w)->ev_key, (w)->comm_key, (mpitev_count_t)(w)->bytes, (int32_t)(w)->rank,            \
        (int32_t)(w)->size

/* sync_begin / sync_end of a synchronization call (kind: MPITEV_CATALOG_SYNC_*; target,
 * or MPITEV_CATALOG_ANY for all targets). */
#define SYNC_BEGIN(w, kind, target) TOYMPI_RAISE_WIN(sync_begin, w, (kind), (int32_t)(target))
#define SYNC_END(w, kind, target) TOYMPI_RAISE_WIN(sync_end, w, (kind), (int32_t)(target))

/* ------------------------------------------------------------------ progress */
/* Drive progress until *count (operations or lock grants in flight) is 0. */
static void wait_zero(toympi_win_t *w, const int *count)
{
    w->busy++;
    while (*count > 0)
        toympi_progress_poll(TOYMPI_PROGRESS_WAIT);
    w->busy--;
}

static int barrier_done(const toympi_win_t *w)
{
    for (int r = 0; r < w->size; r++)
        if (w->barrier_seen[r] < w->barriers)
            return 0;
    return 1;
}

/* Every rank of the window reaches this point (the barriers-th time) before any leaves
 * it. A peer can be one barrier ahead at most, hence counts per rank. This process sends
 * itself a barrier frame too: connections are FIFO, so once every rank's frame is here,
 * every frame any rank sent to this window before it (an unlock to itself included) has
 * been handled. */
static void win_barrier(toympi_win_t *w)
{
    w->barriers++;
    toympi_rma_barrier_send(w);
    w->busy++;
    while (!barrier_done(w))
        toympi_progress_poll(TOYMPI_PROGRESS_WAIT);
    w->busy--;
}

/* ------------------------------------------------------------------ create / free */
/* What each rank tells the others about its window at creation. */
typedef struct {
    int32_t index, disp_unit;
    int64_t size;
} win_info_t;

/* The collective part of MPI_Win_create/_allocate: the window exists locally before the
 * exchange (a peer that finished it may send frames at once), then learns its peers. */
static int win_setup(const char *fn, toympi_comm_t *c, MPI_Comm comm, char *base,
                     MPI_Aint size, int disp_unit, void *baseptr, MPI_Win *win)
{
    toympi_win_t *w = win_new();
    w->rank = c->rank;
    w->size = c->size;
    w->comm_key = c->ev_key;
    w->base = base;
    w->bytes = size;
    w->disp_unit = disp_unit;
    w->allocated = baseptr != NULL; /* MPI_Win_allocate: the memory is ours */
    w->peers = toympi_calloc((size_t)c->size, sizeof *w->peers);
    w->lock_held = toympi_calloc((size_t)c->size, sizeof(int));
    w->pending = toympi_calloc((size_t)c->size, sizeof(int));
    w->barrier_seen = toympi_calloc((size_t)c->size, sizeof(int));
    win_info_t mine = {w->index, disp_unit, size};
    win_info_t *all = toympi_calloc((size_t)c->size, sizeof *all);
    toympi_comm_hold(c); /* tool code in the exchange's drains may free comm (comm.c) */
    int rc = toympi_allgather_impl(c, &mine, all, sizeof mine);
    for (int i = 0; i < c->size; i++)
        w->peers[i] = (toympi_win_peer_t){c->world_ranks[i], all[i].index, all[i].disp_unit,
                                          (MPI_Aint)all[i].size};
    toympi_comm_unhold(c);
    free(all);
    if (rc) {
        w->allocated = 0; /* the caller frees base */
        win_delete(w);
        return toympi_err(comm, rc, fn, "exchanging window information failed");
    }
    /* Complete, nothing held: win_create at NONE, bound to the communicator (a tool
     * registered on it learns the window's key before it could name the window). Its
     * callbacks may call MPI, even free the window: the outputs are stored first and
     * nothing is read after. */
    if (baseptr)
        *(void **)baseptr = base;
    *win = win_handle(w);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    TOYMPI_RAISE_API(win_create, &toympi_events_src_api, (const void *)(uintptr_t)w->comm_key,
                     MPITEV_CB_REQUIRE_NONE, WIN_EVENT_PAYLOAD(w));
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT); /* win_create buffered */
    return MPI_SUCCESS;
}

/* The checks MPI_Win_create and _allocate share. */
static int create_check(const char *fn, MPI_Comm comm, toympi_comm_t **cp, MPI_Aint size,
                        int disp_unit, const void *out)
{
    toympi_comm_t *c = toympi_comm_get(comm);
    if (!c)
        return toympi_err(comm, MPI_ERR_COMM, fn, "invalid communicator");
    if (size < 0)
        return toympi_err(comm, MPI_ERR_SIZE, fn, "negative size %lld", (long long)size);
    if (disp_unit <= 0)
        return toympi_err(comm, MPI_ERR_DISP, fn, "displacement unit %d", disp_unit);
    if (!out)
        return toympi_err(comm, MPI_ERR_ARG, fn, "NULL output argument");
    *cp = c;
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    (void)info;
    TOYMPI_CHECK_INIT("MPI_Win_create");
    toympi_comm_t *c = NULL;
    int rc = create_check("MPI_Win_create", comm, &c, size, disp_unit, win);
    if (rc)
        return rc;
    if (!base && size > 0)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Win_create", "NULL base with size %lld",
                          (long long)size);
    return win_setup("MPI_Win_create", c, comm, base, size, disp_unit, NULL, win);
}
TOYMPI_WEAK(Win_create)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                      void *baseptr, MPI_Win *win)
{
    (void)info;
    TOYMPI_CHECK_INIT("MPI_Win_allocate");
    toympi_comm_t *c = NULL;
    int rc = create_check("MPI_Win_allocate", comm, &c, size, disp_unit, win);
    if (rc)
        return rc;
    if (!baseptr)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Win_allocate", "baseptr is NULL");
    char *base = toympi_calloc(1, (size_t)size);
    rc = win_setup("MPI_Win_allocate", c, comm, base, size, disp_unit, baseptr, win);
    if (rc)
        free(base);
    return rc;
}
TOYMPI_WEAK(Win_allocate)

int PMPI_Win_free(MPI_Win *win)
{
    TOYMPI_CHECK_INIT("MPI_Win_free");
    if (!win)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Win_free", "win is NULL");
    toympi_win_t *w = win_get(*win);
    if (!w)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_WIN, "MPI_Win_free", "invalid window");
    CHECK_NOT_BUSY(w)
    if (w->epoch == TOYMPI_EPOCH_LOCK || w->epoch == TOYMPI_EPOCH_LOCK_ALL)
        return win_err(w, MPI_ERR_RMA_SYNC, "MPI_Win_free", "a passive-target epoch is open");
    w->busy++; /* from here on, tool code may not synchronize or free it, */
    w->freeing = 1; /* nor start operations a freed window would get the replies of */
    TOYMPI_RAISE_API(win_free, &toympi_events_src_api, TOYMPI_WIN_KEY(w), MPITEV_CB_REQUIRE_NONE,
                     WIN_EVENT_PAYLOAD(w));
    wait_zero(w, &w->pending_total);
    win_barrier(w); /* nobody accesses it any more; every frame for it has arrived */
    w->busy--;
    *win = MPI_WIN_NULL;
    win_delete(w);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Win_free)

/* ------------------------------------------------------------------ operations */
/* The arguments of a put, get or accumulate. */
typedef struct {
    const void *buf;
    int ocount;
    MPI_Datatype odt;
    int target;
    MPI_Aint disp;
    int tcount;
    MPI_Datatype tdt;
} rma_args_t;

/* May this process access target now (its epoch)? */
static int epoch_allows(const toympi_win_t *w, int target)
{
    switch (w->epoch) {
    case TOYMPI_EPOCH_FENCE:
    case TOYMPI_EPOCH_LOCK_ALL:
        return 1;
    case TOYMPI_EPOCH_LOCK:
        return w->lock_held[target] != 0;
    default:
        return 0;
    }
}

/* Counts, datatypes and buffer; *bytes: what moves. */
static int check_buffers(const char *fn, const toympi_win_t *w, const rma_args_t *a,
                         size_t *bytes)
{
    if (a->ocount < 0 || a->tcount < 0)
        return win_err(w, MPI_ERR_COUNT, fn, "negative count");
    const toympi_datatype_t *ot = toympi_datatype_get(a->odt), *tt = toympi_datatype_get(a->tdt);
    if (!ot || !tt)
        return win_err(w, MPI_ERR_TYPE, fn, "invalid datatype (only predefined ones exist)");
    if ((size_t)a->ocount * ot->size != (size_t)a->tcount * tt->size)
        return win_err(w, MPI_ERR_TYPE, fn, "origin and target sizes differ");
    if (!a->buf && a->ocount > 0)
        return win_err(w, MPI_ERR_BUFFER, fn, "NULL origin buffer with count %d", a->ocount);
    *bytes = (size_t)a->ocount * ot->size;
    return MPI_SUCCESS;
}

/* Rank, epoch and range in the target's window; *off: the byte offset there. */
static int check_target(const char *fn, const toympi_win_t *w, const rma_args_t *a,
                        size_t bytes, MPI_Aint *off)
{
    if (a->target < 0 || a->target >= w->size)
        return win_err(w, MPI_ERR_RANK, fn, "invalid rank %d (window of %d)", a->target,
                       w->size);
    if (!epoch_allows(w, a->target))
        return win_err(w, MPI_ERR_RMA_SYNC, fn, "no access epoch for rank %d", a->target);
    const toympi_win_peer_t *p = &w->peers[a->target];
    if (a->disp < 0 || a->disp > p->size / p->disp_unit ||
        bytes > (size_t)(p->size - a->disp * p->disp_unit))
        return win_err(w, MPI_ERR_ARG, fn,
                       "%zu bytes at displacement %lld are outside rank %d's window of %lld bytes",
                       bytes, (long long)a->disp, a->target, (long long)p->size);
    *off = a->disp * p->disp_unit;
    return MPI_SUCCESS;
}

/* Everything a put, get or accumulate checks. *wp stays NULL for MPI_PROC_NULL (nothing
 * to do, and no epoch needed). */
static int check_op(const char *fn, MPI_Win win, const rma_args_t *a, toympi_win_t **wp,
                    size_t *bytes, MPI_Aint *off)
{
    toympi_win_t *w = win_get(win);
    if (!w)
        return toympi_err(MPI_COMM_NULL, MPI_ERR_WIN, fn, "invalid window");
    if (w->freeing) /* tool code run by MPI_Win_free: refused, as CHECK_NOT_BUSY */
        return MPI_ERR_RMA_SYNC;
    int rc = check_buffers(fn, w, a, bytes);
    if (rc || a->target == MPI_PROC_NULL)
        return rc;
    rc = check_target(fn, w, a, *bytes, off);
    if (rc == MPI_SUCCESS)
        *wp = w;
    return rc;
}

/* MPI_Put and MPI_Get: checked alike, then issued (rma.c). */
static int put_or_get(const char *fn, int is_get, const rma_args_t *a, MPI_Win win)
{
    toympi_win_t *w = NULL;
    size_t bytes = 0;
    MPI_Aint off = 0;
    int rc = check_op(fn, win, a, &w, &bytes, &off);
    if (rc || !w)
        return rc;
    if (is_get)
        toympi_rma_get(w, a->target, off, (void *)a->buf, bytes); /* MPI_Get's buf is not const */
    else
        toympi_rma_put(w, a->target, off, a->buf, bytes);
    w->ops_since_fence++;
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}

int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    TOYMPI_CHECK_INIT("MPI_Put");
    rma_args_t a = {origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype};
    return put_or_get("MPI_Put", 0, &a, win);
}
TOYMPI_WEAK(Put)

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    TOYMPI_CHECK_INIT("MPI_Get");
    rma_args_t a = {origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype};
    return put_or_get("MPI_Get", 1, &a, win);
}
TOYMPI_WEAK(Get)

/* A predefined operator valid on dt, or MPI_REPLACE (user operators are not allowed in
 * accumulate, MPI_NO_OP only in the fetching ones). */
static int check_acc_op(MPI_Op op, MPI_Datatype dt)
{
    if (op == MPI_REPLACE)
        return MPI_SUCCESS;
    int i = TOYMPI_HANDLE_INDEX(op);
    if (TOYMPI_HANDLE_KIND(op) != TOYMPI_KIND_OP || i < TOYMPI_HANDLE_INDEX(MPI_MAX) ||
        i > TOYMPI_HANDLE_INDEX(MPI_MAXLOC))
        return MPI_ERR_OP;
    return toympi_op_check(op, dt);
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    TOYMPI_CHECK_INIT("MPI_Accumulate");
    rma_args_t a = {origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                    target_count, target_datatype};
    toympi_win_t *w = NULL;
    size_t bytes = 0;
    MPI_Aint off = 0;
    int rc = check_op("MPI_Accumulate", win, &a, &w, &bytes, &off);
    if (rc || !w)
        return rc;
    if (origin_datatype != target_datatype)
        return win_err(w, MPI_ERR_TYPE, "MPI_Accumulate", "origin and target datatypes differ");
    if (check_acc_op(op, target_datatype) != MPI_SUCCESS)
        return win_err(w, MPI_ERR_OP, "MPI_Accumulate", "invalid operator for this datatype");
    toympi_rma_accumulate(w, target_rank, off, origin_addr, bytes, target_datatype, op);
    w->ops_since_fence++;
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Accumulate)

/* ------------------------------------------------------------------ synchronization */
/* A passive-target epoch may start: none is open, and no fence epoch was used. */
static int may_start_passive(const toympi_win_t *w)
{
    return w->epoch == TOYMPI_EPOCH_NONE ||
           (w->epoch == TOYMPI_EPOCH_FENCE && w->ops_since_fence == 0);
}

/* MPI_PROC_NULL is a valid target of the per-target calls (nothing to do). */
static int check_sync_rank(const char *fn, const toympi_win_t *w, int rank)
{
    if (rank == MPI_PROC_NULL || (rank >= 0 && rank < w->size))
        return MPI_SUCCESS;
    return win_err(w, MPI_ERR_RANK, fn, "invalid rank %d (window of %d)", rank, w->size);
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
    CHECK_WIN("MPI_Win_fence", win, w)
    CHECK_NOT_BUSY(w)
    if (w->epoch == TOYMPI_EPOCH_LOCK || w->epoch == TOYMPI_EPOCH_LOCK_ALL)
        return win_err(w, MPI_ERR_RMA_SYNC, "MPI_Win_fence", "a passive-target epoch is open");
    SYNC_BEGIN(w, MPITEV_CATALOG_SYNC_FENCE, MPITEV_CATALOG_ANY);
    wait_zero(w, &w->pending_total); /* my operations are applied at their targets */
    win_barrier(w);                  /* ... and everybody else's at me */
    w->epoch = (assert & MPI_MODE_NOSUCCEED) ? TOYMPI_EPOCH_NONE : TOYMPI_EPOCH_FENCE;
    w->ops_since_fence = 0;
    SYNC_END(w, MPITEV_CATALOG_SYNC_FENCE, MPITEV_CATALOG_ANY);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Win_fence)

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    (void)assert;
    CHECK_WIN("MPI_Win_lock", win, w)
    CHECK_NOT_BUSY(w)
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        return win_err(w, MPI_ERR_LOCKTYPE, "MPI_Win_lock", "invalid lock type %d", lock_type);
    int rc = check_sync_rank("MPI_Win_lock", w, rank);
    if (rc || rank == MPI_PROC_NULL)
        return rc;
    if (!(may_start_passive(w) || w->epoch == TOYMPI_EPOCH_LOCK) || w->lock_held[rank])
        return win_err(w, MPI_ERR_RMA_SYNC, "MPI_Win_lock",
                       "lock on rank %d inside another epoch or held already", rank);
    SYNC_BEGIN(w, MPITEV_CATALOG_SYNC_LOCK, rank);
    toympi_rma_lock(w, rank, lock_type);
    wait_zero(w, &w->grants_pending); /* the target queues us until it is ours */
    w->lock_held[rank] = lock_type;
    w->epoch = TOYMPI_EPOCH_LOCK;
    SYNC_END(w, MPITEV_CATALOG_SYNC_LOCK, rank);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Win_lock)

static int any_lock_held(const toympi_win_t *w)
{
    for (int r = 0; r < w->size; r++)
        if (w->lock_held[r])
            return 1;
    return 0;
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    CHECK_WIN("MPI_Win_unlock", win, w)
    CHECK_NOT_BUSY(w)
    int rc = check_sync_rank("MPI_Win_unlock", w, rank);
    if (rc || rank == MPI_PROC_NULL)
        return rc;
    if (w->epoch != TOYMPI_EPOCH_LOCK || !w->lock_held[rank])
        return win_err(w, MPI_ERR_RMA_SYNC, "MPI_Win_unlock", "no lock held on rank %d", rank);
    SYNC_BEGIN(w, MPITEV_CATALOG_SYNC_UNLOCK, rank);
    wait_zero(w, &w->pending[rank]); /* my operations on rank are applied */
    toympi_rma_unlock(w, rank);
    TOYMPI_RAISE_WIN(lock_released, w, rank, toympi_ev_lock_type(w->lock_held[rank]));
    w->lock_held[rank] = 0;
    if (!any_lock_held(w))
        w->epoch = TOYMPI_EPOCH_NONE;
    SYNC_END(w, MPITEV_CATALOG_SYNC_UNLOCK, rank);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Win_unlock)

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    (void)assert;
    CHECK_WIN("MPI_Win_lock_all", win, w)
    CHECK_NOT_BUSY(w)
    if (!may_start_passive(w))
        return win_err(w, MPI_ERR_RMA_SYNC, "MPI_Win_lock_all", "inside another epoch");
    SYNC_BEGIN(w, MPITEV_CATALOG_SYNC_LOCK_ALL, MPITEV_CATALOG_ANY);
    w->acquiring_all = 1;
    for (int r = 0; r < w->size; r++)
        toympi_rma_lock(w, r, MPI_LOCK_SHARED);
    wait_zero(w, &w->grants_pending); /* lock_acquired: at the last grant (rma.c) */
    w->acquiring_all = 0;
    w->epoch = TOYMPI_EPOCH_LOCK_ALL;
    SYNC_END(w, MPITEV_CATALOG_SYNC_LOCK_ALL, MPITEV_CATALOG_ANY);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win)
{
    CHECK_WIN("MPI_Win_unlock_all", win, w)
    CHECK_NOT_BUSY(w)
    if (w->epoch != TOYMPI_EPOCH_LOCK_ALL)
        return win_err(w, MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all", "no MPI_Win_lock_all epoch");
    SYNC_BEGIN(w, MPITEV_CATALOG_SYNC_UNLOCK_ALL, MPITEV_CATALOG_ANY);
    wait_zero(w, &w->pending_total);
    for (int r = 0; r < w->size; r++)
        toympi_rma_unlock(w, r);
    TOYMPI_RAISE_WIN(lock_released, w, MPITEV_CATALOG_ANY, MPITEV_CATALOG_LOCK_SHARED);
    w->epoch = TOYMPI_EPOCH_NONE;
    SYNC_END(w, MPITEV_CATALOG_SYNC_UNLOCK_ALL, MPITEV_CATALOG_ANY);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Win_unlock_all)

int PMPI_Win_flush(int rank, MPI_Win win)
{
    CHECK_WIN("MPI_Win_flush", win, w)
    CHECK_NOT_BUSY(w)
    int rc = check_sync_rank("MPI_Win_flush", w, rank);
    if (rc || rank == MPI_PROC_NULL)
        return rc;
    if (w->epoch != TOYMPI_EPOCH_LOCK_ALL && !(w->epoch == TOYMPI_EPOCH_LOCK && w->lock_held[rank]))
        return win_err(w, MPI_ERR_RMA_SYNC, "MPI_Win_flush",
                       "no passive-target epoch on rank %d", rank);
    SYNC_BEGIN(w, MPITEV_CATALOG_SYNC_FLUSH, rank);
    wait_zero(w, &w->pending[rank]);
    SYNC_END(w, MPITEV_CATALOG_SYNC_FLUSH, rank);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Win_flush)

int PMPI_Win_flush_all(MPI_Win win)
{
    CHECK_WIN("MPI_Win_flush_all", win, w)
    CHECK_NOT_BUSY(w)
    if (w->epoch != TOYMPI_EPOCH_LOCK_ALL && w->epoch != TOYMPI_EPOCH_LOCK)
        return win_err(w, MPI_ERR_RMA_SYNC, "MPI_Win_flush_all", "no passive-target epoch");
    SYNC_BEGIN(w, MPITEV_CATALOG_SYNC_FLUSH_ALL, MPITEV_CATALOG_ANY);
    wait_zero(w, &w->pending_total);
    SYNC_END(w, MPITEV_CATALOG_SYNC_FLUSH_ALL, MPITEV_CATALOG_ANY);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Win_flush_all)
