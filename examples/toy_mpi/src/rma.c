/* rma.c -- one-sided communication on the wire: the frames an origin sends for an
 * operation, a lock or a window barrier, and what the target's progress engine does with
 * them (see win.h). Epochs and argument checks are win.c's; this file trusts its caller.
 *
 * Frames (transport.h's header; "op" is the origin's operation record, "win" the
 * origin's window, both as addresses echoed back unchanged, as protocol.c does with
 * request ids; "index" is the receiver's window index, from win.h's peers[]):
 *
 *   frame           direction      context_id src           tag        bytes sreq rreq   payload
 *   RMA_PUT         origin->target index      -             -          n     op   offset n bytes
 *   RMA_ACCUMULATE  origin->target index      MPI_Datatype  MPI_Op     n     op   offset n bytes
 *   RMA_GET         origin->target index      -             -          n     op   offset -
 *   RMA_ACK         target->origin -          -             -          0     op   -      -
 *   RMA_GET_REPLY   target->origin -          -             -          n     op   -      n bytes
 *   RMA_LOCK        origin->target index      -             lock type  0     win  -      -
 *   RMA_GRANT       target->origin -          target's rank lock type  0     win  -      -
 *   RMA_UNLOCK      origin->target index      -             -          0     -    -      -
 *   RMA_BARRIER     rank->rank     index      sender's rank -          0     -    -      -
 *
 * offset: bytes from the target's window base (displacement times its disp_unit). A put
 * is read straight into the target's window; an accumulate into a buffer, then combined
 * with op.c's reduction code; a get's reply straight into the origin buffer. Connections
 * are FIFO, so an origin's frames to a target are applied in the order it issued them. */
#include "win.h"

#include <stdlib.h>
#include <string.h>

#include "transport.h"

/* One operation in flight at the origin, from its issue to its ack or get reply; what
 * its started and complete events carry. */
typedef struct toympi_rma_op {
    toympi_win_t *win;
    uint32_t kind; /* TOYMPI_PKT_RMA_PUT, _GET or _ACCUMULATE */
    int target;
    MPI_Aint off;  /* target_disp of the events: bytes from the target's base */
    size_t bytes;
    uint64_t id;   /* op_id of the events: a per-process number, never 0 nor reused */
    int32_t op;    /* MPITEV_CATALOG_OP_* (accumulate), 0 */
    void *result;  /* get: the origin buffer the reply goes to */
} toympi_rma_op_t;

/* The payload of put/get/accumulate_started and _complete (MPITEV_CATALOG_L_RMA). */
#define RMA_EVENT(o)                                                                       \
    (int64_t)(o)->off, (mpitev_count_t)(o)->bytes, (o)->id, (int32_t)(o)->target, (o)->op

static uint64_t id_of(const void *p) { return (uint64_t)(uintptr_t)p; }

/* The catalogue's code of a predefined operator (the toy's handle index -> code). */
static int32_t catalog_op(MPI_Op op)
{
    static const int32_t codes[] = {
        [TOYMPI_HANDLE_INDEX(MPI_MAX)] = MPITEV_CATALOG_OP_MAX,
        [TOYMPI_HANDLE_INDEX(MPI_MIN)] = MPITEV_CATALOG_OP_MIN,
        [TOYMPI_HANDLE_INDEX(MPI_SUM)] = MPITEV_CATALOG_OP_SUM,
        [TOYMPI_HANDLE_INDEX(MPI_PROD)] = MPITEV_CATALOG_OP_PROD,
        [TOYMPI_HANDLE_INDEX(MPI_LAND)] = MPITEV_CATALOG_OP_LAND,
        [TOYMPI_HANDLE_INDEX(MPI_BAND)] = MPITEV_CATALOG_OP_BAND,
        [TOYMPI_HANDLE_INDEX(MPI_LOR)] = MPITEV_CATALOG_OP_LOR,
        [TOYMPI_HANDLE_INDEX(MPI_BOR)] = MPITEV_CATALOG_OP_BOR,
        [TOYMPI_HANDLE_INDEX(MPI_LXOR)] = MPITEV_CATALOG_OP_LXOR,
        [TOYMPI_HANDLE_INDEX(MPI_BXOR)] = MPITEV_CATALOG_OP_BXOR,
        [TOYMPI_HANDLE_INDEX(MPI_MINLOC)] = MPITEV_CATALOG_OP_MINLOC,
        [TOYMPI_HANDLE_INDEX(MPI_MAXLOC)] = MPITEV_CATALOG_OP_MAXLOC,
        [TOYMPI_HANDLE_INDEX(MPI_REPLACE)] = MPITEV_CATALOG_OP_REPLACE,
        [TOYMPI_HANDLE_INDEX(MPI_NO_OP)] = MPITEV_CATALOG_OP_NO_OP,
    };
    unsigned i = (unsigned)TOYMPI_HANDLE_INDEX(op);
    return i < sizeof codes / sizeof codes[0] ? codes[i] : MPITEV_CATALOG_OP_USER;
}

/* ------------------------------------------------------------------ origin */
static toympi_rma_op_t *op_new(toympi_win_t *w, uint32_t kind, int target, MPI_Aint off,
                               size_t bytes)
{
    static uint64_t next_id = 1;
    toympi_rma_op_t *op = toympi_calloc(1, sizeof *op);
    op->win = w;
    op->kind = kind;
    op->target = target;
    op->off = off;
    op->bytes = bytes;
    op->id = next_id++;
    w->pending[target]++;
    w->pending_total++;
    return op;
}

/* A request frame to target's window; sreq identifies op (or the window). */
static toympi_frame_t *request_frame(const toympi_win_t *w, int target, uint32_t type,
                                     uint64_t sreq)
{
    toympi_frame_t *f = toympi_frame_new(type);
    f->hdr.context_id = (uint32_t)w->peers[target].index;
    f->hdr.sreq = sreq;
    return f;
}

/* The payload is copied: the origin buffer may be reused at once. */
static void attach_copy(toympi_frame_t *f, const void *buf, size_t bytes)
{
    f->hdr.bytes = bytes;
    if (bytes) {
        f->owned = toympi_malloc(bytes);
        memcpy(f->owned, buf, bytes);
        f->payload = f->owned;
        f->payload_len = bytes;
    }
}

void toympi_rma_put(toympi_win_t *w, int target, MPI_Aint off, const void *buf, size_t bytes)
{
    toympi_rma_op_t *op = op_new(w, TOYMPI_PKT_RMA_PUT, target, off, bytes);
    TOYMPI_RAISE_WIN(put_started, w, RMA_EVENT(op));
    toympi_frame_t *f = request_frame(w, target, TOYMPI_PKT_RMA_PUT, id_of(op));
    f->hdr.rreq = (uint64_t)off;
    attach_copy(f, buf, bytes);
    toympi_transport_send(w->peers[target].world, f);
}

void toympi_rma_accumulate(toympi_win_t *w, int target, MPI_Aint off, const void *buf,
                           size_t bytes, MPI_Datatype dt, MPI_Op op_handle)
{
    toympi_rma_op_t *op = op_new(w, TOYMPI_PKT_RMA_ACCUMULATE, target, off, bytes);
    op->op = catalog_op(op_handle);
    TOYMPI_RAISE_WIN(accumulate_started, w, RMA_EVENT(op));
    toympi_frame_t *f = request_frame(w, target, TOYMPI_PKT_RMA_ACCUMULATE, id_of(op));
    f->hdr.src = dt;
    f->hdr.tag = op_handle;
    f->hdr.rreq = (uint64_t)off;
    attach_copy(f, buf, bytes);
    toympi_transport_send(w->peers[target].world, f);
}

void toympi_rma_get(toympi_win_t *w, int target, MPI_Aint off, void *buf, size_t bytes)
{
    toympi_rma_op_t *op = op_new(w, TOYMPI_PKT_RMA_GET, target, off, bytes);
    op->result = buf;
    TOYMPI_RAISE_WIN(get_started, w, RMA_EVENT(op));
    toympi_frame_t *f = request_frame(w, target, TOYMPI_PKT_RMA_GET, id_of(op));
    f->hdr.bytes = bytes;
    f->hdr.rreq = (uint64_t)off;
    toympi_transport_send(w->peers[target].world, f);
}

void toympi_rma_lock(toympi_win_t *w, int target, int type)
{
    toympi_frame_t *f = request_frame(w, target, TOYMPI_PKT_RMA_LOCK, id_of(w));
    f->hdr.tag = type;
    w->grants_pending++;
    toympi_transport_send(w->peers[target].world, f);
}

void toympi_rma_unlock(toympi_win_t *w, int target)
{
    toympi_transport_send(w->peers[target].world,
                          request_frame(w, target, TOYMPI_PKT_RMA_UNLOCK, 0));
}

void toympi_rma_barrier_send(toympi_win_t *w)
{
    for (int r = 0; r < w->size; r++) {
        toympi_frame_t *f = request_frame(w, r, TOYMPI_PKT_RMA_BARRIER, 0);
        f->hdr.src = w->rank;
        toympi_transport_send(w->peers[r].world, f);
    }
}

/* The target acknowledged op (applied it, or its get reply has arrived). */
static void op_complete(toympi_rma_op_t *op)
{
    toympi_win_t *w = op->win;
    if (op->kind == TOYMPI_PKT_RMA_PUT)
        TOYMPI_RAISE_WIN(put_complete, w, RMA_EVENT(op));
    else if (op->kind == TOYMPI_PKT_RMA_GET)
        TOYMPI_RAISE_WIN(get_complete, w, RMA_EVENT(op));
    else
        TOYMPI_RAISE_WIN(accumulate_complete, w, RMA_EVENT(op));
    w->pending[op->target]--;
    w->pending_total--;
    free(op);
}

static void on_ack(const toympi_wire_hdr_t *h)
{
    op_complete((toympi_rma_op_t *)(uintptr_t)h->sreq);
}

static void get_reply_done(toympi_conn_t *conn, void *arg)
{
    (void)conn;
    op_complete(arg);
}

static void on_get_reply(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    toympi_rma_op_t *op = (toympi_rma_op_t *)(uintptr_t)h->sreq;
    if (h->bytes == 0)
        op_complete(op);
    else
        toympi_transport_expect_payload(conn, op->result, op->bytes, (size_t)h->bytes,
                                        get_reply_done, op);
}

/* MPI_Win_lock's grant, or one of MPI_Win_lock_all's (lock_acquired after the last). */
static void on_grant(const toympi_wire_hdr_t *h)
{
    toympi_win_t *w = (toympi_win_t *)(uintptr_t)h->sreq;
    w->grants_pending--;
    if (!w->acquiring_all)
        TOYMPI_RAISE_WIN(lock_acquired, w, h->src, toympi_ev_lock_type(h->tag));
    else if (w->grants_pending == 0)
        TOYMPI_RAISE_WIN(lock_acquired, w, MPITEV_CATALOG_ANY, MPITEV_CATALOG_LOCK_SHARED);
}

/* ------------------------------------------------------------------ target */
/* The window a request frame is for; its range, for operations. A frame for a window
 * this process does not have, or outside it, is a corrupt stream: the origin checked. */
static toympi_win_t *target_win(const toympi_conn_t *conn, const toympi_wire_hdr_t *h,
                                int check_range)
{
    toympi_win_t *w = toympi_win_by_index((int)h->context_id);
    if (!w)
        toympi_fatal("one-sided frame (type %u) for unknown window %u from rank %d", h->type,
                     h->context_id, conn->peer);
    if (check_range && (h->rreq > (uint64_t)w->bytes || h->bytes > (uint64_t)w->bytes - h->rreq))
        toympi_fatal("one-sided access outside the window from rank %d", conn->peer);
    return w;
}

static void send_reply(int peer_world, uint32_t type, uint64_t sreq)
{
    toympi_frame_t *f = toympi_frame_new(type);
    f->hdr.sreq = sreq;
    toympi_transport_send(peer_world, f);
}

static void put_done(toympi_conn_t *conn, void *arg)
{
    send_reply(conn->peer, TOYMPI_PKT_RMA_ACK, id_of(arg));
}

static void on_put(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    toympi_win_t *w = target_win(conn, h, 1);
    void *op_id = (void *)(uintptr_t)h->sreq;
    if (h->bytes == 0)
        put_done(conn, op_id);
    else /* straight into the window */
        toympi_transport_expect_payload(conn, w->base + h->rreq, (size_t)h->bytes,
                                        (size_t)h->bytes, put_done, op_id);
}

/* An accumulate whose data is arriving. */
typedef struct {
    char *dst;   /* in the window */
    char *data;  /* the origin's data, then (second half) a copy of dst to combine into */
    size_t bytes;
    MPI_Datatype dt;
    MPI_Op op;
    uint64_t sreq;
} acc_job_t;

/* Combine through an aligned copy: dst may sit at any byte offset of the window, and
 * op.c's loops read and write whole elements. */
static void acc_done(toympi_conn_t *conn, void *arg)
{
    acc_job_t *j = arg;
    if (j->op == MPI_REPLACE) {
        memcpy(j->dst, j->data, j->bytes);
    } else {
        char *tmp = j->data + j->bytes;
        int count = (int)(j->bytes / toympi_datatype_get(j->dt)->size);
        memcpy(tmp, j->dst, j->bytes);
        toympi_op_apply(j->op, j->dt, j->data, tmp, count); /* tmp = data op tmp */
        memcpy(j->dst, tmp, j->bytes);
    }
    send_reply(conn->peer, TOYMPI_PKT_RMA_ACK, j->sreq);
    free(j->data);
    free(j);
}

static void on_accumulate(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    toympi_win_t *w = target_win(conn, h, 1);
    MPI_Datatype dt = h->src;
    MPI_Op op = h->tag;
    if (op != MPI_REPLACE && toympi_op_check(op, dt) != MPI_SUCCESS)
        toympi_fatal("accumulate with an invalid operator from rank %d", conn->peer);
    acc_job_t *j = toympi_calloc(1, sizeof *j);
    j->dst = w->base + h->rreq;
    j->bytes = (size_t)h->bytes;
    j->data = toympi_malloc(2 * j->bytes);
    j->dt = dt;
    j->op = op;
    j->sreq = h->sreq;
    if (j->bytes == 0)
        acc_done(conn, j);
    else
        toympi_transport_expect_payload(conn, j->data, j->bytes, j->bytes, acc_done, j);
}

/* A snapshot of the window goes back: the target may change its memory before the
 * frame is written. */
static void on_get(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    toympi_win_t *w = target_win(conn, h, 1);
    toympi_frame_t *f = toympi_frame_new(TOYMPI_PKT_RMA_GET_REPLY);
    f->hdr.sreq = h->sreq;
    attach_copy(f, w->base + h->rreq, (size_t)h->bytes);
    toympi_transport_send(conn->peer, f);
}

/* Grant the lock to the waiters at the head of the queue that can have it: one
 * exclusive request once nobody holds it, or every shared request up to the next
 * exclusive one while nobody holds it exclusively. First come, first served: a shared
 * request behind a waiting exclusive one waits too. */
static void grant_waiters(toympi_win_t *w)
{
    toympi_lock_waiter_t *x;
    while ((x = w->waiters) != NULL && !w->lock_exclusive) {
        if (x->type == MPI_LOCK_EXCLUSIVE) {
            if (w->lock_shared)
                break;
            w->lock_exclusive = 1;
        } else {
            w->lock_shared++;
        }
        w->waiters = x->next;
        if (!w->waiters)
            w->waiters_tail = NULL;
        toympi_frame_t *f = toympi_frame_new(TOYMPI_PKT_RMA_GRANT);
        f->hdr.src = w->rank;
        f->hdr.tag = x->type;
        f->hdr.sreq = x->origin_id;
        toympi_transport_send(x->peer_world, f);
        free(x);
    }
}

static void on_lock(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    toympi_win_t *w = target_win(conn, h, 0);
    toympi_lock_waiter_t *x = toympi_calloc(1, sizeof *x);
    x->peer_world = conn->peer;
    x->type = h->tag;
    x->origin_id = h->sreq;
    if (w->waiters_tail)
        w->waiters_tail->next = x;
    else
        w->waiters = x;
    w->waiters_tail = x;
    grant_waiters(w);
}

/* Holders of one kind only at a time, so the releasing one is of the kind held. */
static void on_unlock(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    toympi_win_t *w = target_win(conn, h, 0);
    if (w->lock_exclusive)
        w->lock_exclusive = 0;
    else if (w->lock_shared > 0)
        w->lock_shared--;
    else
        toympi_fatal("unlock of a window lock nobody holds, from rank %d", conn->peer);
    grant_waiters(w);
}

static void on_barrier(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    toympi_win_t *w = target_win(conn, h, 0);
    if (h->src < 0 || h->src >= w->size)
        toympi_fatal("window barrier frame from rank %d with a bad rank", conn->peer);
    w->barrier_seen[h->src]++;
}

/* From toympi_proto_on_header (protocol.c), inside the transport's receive loop. */
void toympi_rma_on_header(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    switch (h->type) {
    case TOYMPI_PKT_RMA_PUT: on_put(conn, h); break;
    case TOYMPI_PKT_RMA_ACCUMULATE: on_accumulate(conn, h); break;
    case TOYMPI_PKT_RMA_GET: on_get(conn, h); break;
    case TOYMPI_PKT_RMA_ACK: on_ack(h); break;
    case TOYMPI_PKT_RMA_GET_REPLY: on_get_reply(conn, h); break;
    case TOYMPI_PKT_RMA_LOCK: on_lock(conn, h); break;
    case TOYMPI_PKT_RMA_GRANT: on_grant(h); break;
    case TOYMPI_PKT_RMA_UNLOCK: on_unlock(conn, h); break;
    case TOYMPI_PKT_RMA_BARRIER: on_barrier(conn, h); break;
    default: toympi_fatal("corrupt frame (type %u) from rank %d", h->type, conn->peer);
    }
}
