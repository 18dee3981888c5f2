/* coll.c -- collective operations, built on internal point-to-point on the
 * communicator's collective context (context_id+1), so collective traffic
 * never matches user messages. Algorithms are deliberately simple:
 *   Barrier    dissemination (ceil(log2 p) rounds of zero-byte messages)
 *   Bcast      binomial tree
 *   Reduce     linear at the root, combined in rank order (so
 *              non-commutative user operators are correct)
 *   Allreduce  Reduce to 0 + Bcast
 *   Gather(v), Scatter(v)  linear at the root
 *   Allgather  Gather to 0 + Bcast;  Alltoall  all pairs, nonblocking
 * Only predefined datatypes exist, so every buffer is contiguous bytes. */
#include "toympi_internal.h"

#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "progress.h"

enum {
    TAG_BARRIER = 1,
    TAG_BCAST,
    TAG_REDUCE,
    TAG_GATHER,
    TAG_SCATTER,
    TAG_ALLTOALL
};

/* ----------------------------------------------------------- algorithms
 * No events here: the exported ones are also the toy's internal building blocks
 * (toympi_allreduce_impl and toympi_allgather_impl for MPI_Comm_dup/_split and window
 * creation, toympi_barrier_impl for MPI_Finalize). A collective's API-level events belong
 * in its PMPI_ entry point, between begin() and finish() below. */

/* Also MPI_Finalize's final barrier (init.c), after it set toympi_g.finalizing: MPI is
 * being torn down there and nothing holds the communicator, so an event raised here
 * would report an MPI_Barrier the application never called, at a level (NONE) that is
 * false in the teardown. MPI_Barrier's own events are toympi_coll_begin/_end (op
 * TOYMPI_COLL_BARRIER), raised in PMPI_Barrier through begin() and finish(). */
int toympi_barrier_impl(const toympi_comm_t *c)
{
    int rc = MPI_SUCCESS;
    for (int k = 1; k < c->size && !rc; k <<= 1) {
        int to = (c->rank + k) % c->size;
        int from = (c->rank - k + c->size) % c->size;
        rc = toympi_coll_sendrecv(c, NULL, 0, to, NULL, 0, from, TAG_BARRIER);
    }
    return rc;
}

static int bcast_impl(const toympi_comm_t *c, void *buf, size_t bytes, int root)
{
    int size = c->size, vr = (c->rank - root + size) % size, mask = 1, rc = MPI_SUCCESS;
    while (mask < size) {
        if (vr & mask) {
            rc = toympi_coll_recv(c, buf, bytes, (vr - mask + root) % size, TAG_BCAST);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while (mask > 0) {
        if (vr + mask < size)
            toympi_coll_send(c, buf, bytes, (vr + mask + root) % size, TAG_BCAST);
        mask >>= 1;
    }
    return rc;
}

/* sbuf: this rank's contribution (never MPI_IN_PLACE here) */
static int reduce_impl(const toympi_comm_t *c, const void *sbuf, void *rbuf, int count,
                       MPI_Datatype dt, MPI_Op op, int root)
{
    size_t bytes = (size_t)count * toympi_datatype_get(dt)->size;
    if (c->rank != root)
        return toympi_coll_send(c, sbuf, bytes, root, TAG_REDUCE);
    char *acc = toympi_malloc(bytes), *tmp = toympi_malloc(bytes);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < c->size; i++) {
        if (i == root)
            memcpy(tmp, sbuf, bytes);
        else if ((rc = toympi_coll_recv(c, tmp, bytes, i, TAG_REDUCE)) != MPI_SUCCESS)
            break;
        if (i > 0)
            toympi_op_apply(op, dt, acc, tmp, count); /* tmp = acc op v_i */
        char *t = acc;
        acc = tmp;
        tmp = t;
    }
    if (!rc)
        memcpy(rbuf, acc, bytes);
    free(acc);
    free(tmp);
    return rc;
}

int toympi_allreduce_impl(const toympi_comm_t *c, const void *sbuf, void *rbuf, int count,
                          MPI_Datatype dt, MPI_Op op)
{
    int rc = reduce_impl(c, sbuf, rbuf, count, dt, op, 0);
    int rc2 = bcast_impl(c, rbuf, (size_t)count * toympi_datatype_get(dt)->size, 0);
    return rc ? rc : rc2;
}

/* sbuf: this rank's block (may alias rbuf + rank*bytes) */
int toympi_allgather_impl(const toympi_comm_t *c, const void *sbuf, void *rbuf, size_t bytes)
{
    char *r = rbuf;
    int rc = MPI_SUCCESS;
    if (c->rank == 0) {
        if (sbuf != r)
            memmove(r, sbuf, bytes);
        for (int i = 1; i < c->size && !rc; i++)
            rc = toympi_coll_recv(c, r + (size_t)i * bytes, bytes, i, TAG_GATHER);
    } else {
        toympi_coll_send(c, sbuf, bytes, 0, TAG_GATHER);
    }
    int rc2 = bcast_impl(c, rbuf, bytes * (size_t)c->size, 0);
    return rc ? rc : rc2;
}

/* ------------------------------------------------------------- checking */
#define CHECK_COMM(fn, comm, c)                                                            \
    TOYMPI_CHECK_INIT(fn);                                                                 \
    toympi_comm_t *c = toympi_comm_get(comm);                                              \
    if (!c)                                                                                \
        return toympi_err(comm, MPI_ERR_COMM, fn, "invalid communicator");

static int check_buf(const char *fn, MPI_Comm comm, const void *buf, int count, MPI_Datatype dt,
                     size_t *bytes)
{
    if (count < 0)
        return toympi_err(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
    const toympi_datatype_t *t = toympi_datatype_get(dt);
    if (!t)
        return toympi_err(comm, MPI_ERR_TYPE, fn, "invalid datatype");
    if (!buf && count > 0)
        return toympi_err(comm, MPI_ERR_BUFFER, fn, "NULL buffer with count %d", count);
    *bytes = (size_t)count * t->size;
    return MPI_SUCCESS;
}

static int check_root(const char *fn, MPI_Comm comm, const toympi_comm_t *c, int root)
{
    if (root < 0 || root >= c->size)
        return toympi_err(comm, MPI_ERR_ROOT, fn, "invalid root %d (communicator size %d)", root,
                          c->size);
    return MPI_SUCCESS;
}

static int check_op(const char *fn, MPI_Comm comm, MPI_Op op, MPI_Datatype dt)
{
    int rc = toympi_op_check(op, dt);
    if (rc)
        return toympi_err(comm, rc, fn, "operator not defined for this datatype");
    return MPI_SUCCESS;
}

/* A collective keeps its communicator from its coll_begin to its return: tool code runs
 * in between (the coll_begin and coll_end callbacks, the drains of every internal wait)
 * and may call MPI_Comm_free on it, which then only marks it (comm.c).
 * So every raise bound to c (its key, its rank or size in a payload) sits between
 * begin()'s toympi_comm_hold and finish()'s toympi_comm_unhold: after the unhold, c may
 * already be freed by tool code, and reading it is a use-after-free. */
static void begin(toympi_comm_t *c, int op)
{
    toympi_comm_hold(c);
    c->coll_seq++;
    TOYMPI_RAISE_API(toympi_coll_begin, &toympi_events_src_api, TOYMPI_EV_KEY(c),
                     MPITEV_CB_REQUIRE_NONE, op, c->rank, c->size,
                     (int32_t)c->coll_seq);
}

/* The order at the exit, a convention every API-level end event follows (implementor's
 * guide, section 9, "Draining"): the exit drain first, so the engine events the
 * collective raised reach tools before its coll_end; then the end event; the unhold after
 * the last read of c; then a second drain for what the end event (a buffered
 * registration) and a release (comm_free) buffered. A new raise bound to c goes before
 * the unhold. */
static int finish(const char *fn, int op, MPI_Comm comm, toympi_comm_t *c, int rc)
{
    /* API exit: the collective's engine events are delivered before its coll_end */
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    TOYMPI_RAISE_API(toympi_coll_end, &toympi_events_src_api, TOYMPI_EV_KEY(c),
                     MPITEV_CB_REQUIRE_NONE, op, c->rank, c->size,
                     (int32_t)c->coll_seq);
    if (rc) /* through the communicator's handler (MPI_COMM_WORLD's if freed meanwhile) */
        rc = toympi_err(comm, rc, fn, "collective failed (mismatched arguments?)");
    toympi_comm_unhold(c); /* last: a communicator freed by tool code is released here */
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT); /* coll_end (and a comm_free) buffered */
    return rc;
}

/* ---------------------------------------------------------- entry points */
int PMPI_Barrier(MPI_Comm comm)
{
    CHECK_COMM("MPI_Barrier", comm, c)
    begin(c, TOYMPI_COLL_BARRIER);
    return finish("MPI_Barrier", TOYMPI_COLL_BARRIER, comm, c, toympi_barrier_impl(c));
}
TOYMPI_WEAK(Barrier)

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    CHECK_COMM("MPI_Bcast", comm, c)
    size_t bytes = 0;
    int rc = check_buf("MPI_Bcast", comm, buffer, count, datatype, &bytes);
    if (rc || (rc = check_root("MPI_Bcast", comm, c, root)))
        return rc;
    begin(c, TOYMPI_COLL_BCAST);
    return finish("MPI_Bcast", TOYMPI_COLL_BCAST, comm, c, bcast_impl(c, buffer, bytes, root));
}
TOYMPI_WEAK(Bcast)

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    CHECK_COMM("MPI_Reduce", comm, c)
    size_t bytes = 0;
    int rc = check_root("MPI_Reduce", comm, c, root);
    if (rc || (rc = check_buf("MPI_Reduce", comm, sendbuf, count, datatype, &bytes)) ||
        (rc = check_op("MPI_Reduce", comm, op, datatype)))
        return rc;
    if (c->rank == root && !recvbuf && count > 0)
        return toympi_err(comm, MPI_ERR_BUFFER, "MPI_Reduce", "NULL receive buffer at root");
    if (sendbuf == MPI_IN_PLACE && c->rank != root)
        return toympi_err(comm, MPI_ERR_BUFFER, "MPI_Reduce", "MPI_IN_PLACE at non-root");
    toympi_op_hold(op); /* before coll_begin, whose callbacks may free it */
    begin(c, TOYMPI_COLL_REDUCE);
    const void *s = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    rc = reduce_impl(c, s, recvbuf, count, datatype, op, root);
    toympi_op_unhold(op);
    return finish("MPI_Reduce", TOYMPI_COLL_REDUCE, comm, c, rc);
}
TOYMPI_WEAK(Reduce)

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm)
{
    CHECK_COMM("MPI_Allreduce", comm, c)
    size_t bytes = 0;
    int rc = check_buf("MPI_Allreduce", comm, sendbuf, count, datatype, &bytes);
    if (rc || (rc = check_buf("MPI_Allreduce", comm, recvbuf, count, datatype, &bytes)) ||
        (rc = check_op("MPI_Allreduce", comm, op, datatype)))
        return rc;
    toympi_op_hold(op); /* before coll_begin, whose callbacks may free it */
    begin(c, TOYMPI_COLL_ALLREDUCE);
    const void *s = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    rc = toympi_allreduce_impl(c, s, recvbuf, count, datatype, op);
    toympi_op_unhold(op);
    return finish("MPI_Allreduce", TOYMPI_COLL_ALLREDUCE, comm, c, rc);
}
TOYMPI_WEAK(Allreduce)

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    CHECK_COMM("MPI_Gather", comm, c)
    size_t sbytes = 0, rbytes = 0;
    int rc = check_root("MPI_Gather", comm, c, root);
    if (rc)
        return rc;
    int in_place = c->rank == root && sendbuf == MPI_IN_PLACE;
    if (!in_place && (rc = check_buf("MPI_Gather", comm, sendbuf, sendcount, sendtype, &sbytes)))
        return rc;
    if (c->rank == root &&
        (rc = check_buf("MPI_Gather", comm, recvbuf, recvcount, recvtype, &rbytes)))
        return rc;
    begin(c, TOYMPI_COLL_GATHER);
    if (c->rank != root) {
        rc = toympi_coll_send(c, sendbuf, sbytes, root, TAG_GATHER);
    } else {
        for (int i = 0; i < c->size && !rc; i++) {
            char *dst = (char *)recvbuf + (size_t)i * rbytes;
            if (i != root)
                rc = toympi_coll_recv(c, dst, rbytes, i, TAG_GATHER);
            else if (!in_place)
                memcpy(dst, sendbuf, sbytes < rbytes ? sbytes : rbytes);
        }
    }
    return finish("MPI_Gather", TOYMPI_COLL_GATHER, comm, c, rc);
}
TOYMPI_WEAK(Gather)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm)
{
    CHECK_COMM("MPI_Gatherv", comm, c)
    size_t sbytes = 0, rbytes = 0;
    int rc = check_root("MPI_Gatherv", comm, c, root);
    if (rc)
        return rc;
    int in_place = c->rank == root && sendbuf == MPI_IN_PLACE;
    if (!in_place &&
        (rc = check_buf("MPI_Gatherv", comm, sendbuf, sendcount, sendtype, &sbytes)))
        return rc;
    size_t ext = 0;
    if (c->rank == root) {
        if (!recvcounts || !displs)
            return toympi_err(comm, MPI_ERR_ARG, "MPI_Gatherv", "NULL recvcounts/displs");
        for (int i = 0; i < c->size; i++)
            if ((rc = check_buf("MPI_Gatherv", comm, recvbuf, recvcounts[i], recvtype, &rbytes)))
                return rc;
        ext = toympi_datatype_get(recvtype)->size;
    }
    begin(c, TOYMPI_COLL_GATHERV);
    if (c->rank != root) {
        rc = toympi_coll_send(c, sendbuf, sbytes, root, TAG_GATHER);
    } else {
        for (int i = 0; i < c->size && !rc; i++) {
            char *dst = (char *)recvbuf + (ptrdiff_t)displs[i] * (ptrdiff_t)ext;
            size_t n = (size_t)recvcounts[i] * ext;
            if (i != root)
                rc = toympi_coll_recv(c, dst, n, i, TAG_GATHER);
            else if (!in_place)
                memcpy(dst, sendbuf, sbytes < n ? sbytes : n);
        }
    }
    return finish("MPI_Gatherv", TOYMPI_COLL_GATHERV, comm, c, rc);
}
TOYMPI_WEAK(Gatherv)

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    CHECK_COMM("MPI_Scatter", comm, c)
    size_t sbytes = 0, rbytes = 0;
    int rc = check_root("MPI_Scatter", comm, c, root);
    if (rc)
        return rc;
    int in_place = c->rank == root && recvbuf == MPI_IN_PLACE;
    if (c->rank == root &&
        (rc = check_buf("MPI_Scatter", comm, sendbuf, sendcount, sendtype, &sbytes)))
        return rc;
    if (!in_place &&
        (rc = check_buf("MPI_Scatter", comm, recvbuf, recvcount, recvtype, &rbytes)))
        return rc;
    begin(c, TOYMPI_COLL_SCATTER);
    if (c->rank != root) {
        rc = toympi_coll_recv(c, recvbuf, rbytes, root, TAG_SCATTER);
    } else {
        for (int i = 0; i < c->size; i++) {
            const char *src = (const char *)sendbuf + (size_t)i * sbytes;
            if (i != root)
                toympi_coll_send(c, src, sbytes, i, TAG_SCATTER);
            else if (!in_place)
                memcpy(recvbuf, src, sbytes < rbytes ? sbytes : rbytes);
        }
    }
    return finish("MPI_Scatter", TOYMPI_COLL_SCATTER, comm, c, rc);
}
TOYMPI_WEAK(Scatter)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    CHECK_COMM("MPI_Scatterv", comm, c)
    size_t sbytes = 0, rbytes = 0;
    int rc = check_root("MPI_Scatterv", comm, c, root);
    if (rc)
        return rc;
    int in_place = c->rank == root && recvbuf == MPI_IN_PLACE;
    size_t ext = 0;
    if (c->rank == root) {
        if (!sendcounts || !displs)
            return toympi_err(comm, MPI_ERR_ARG, "MPI_Scatterv", "NULL sendcounts/displs");
        for (int i = 0; i < c->size; i++)
            if ((rc = check_buf("MPI_Scatterv", comm, sendbuf, sendcounts[i], sendtype, &sbytes)))
                return rc;
        ext = toympi_datatype_get(sendtype)->size;
    }
    if (!in_place &&
        (rc = check_buf("MPI_Scatterv", comm, recvbuf, recvcount, recvtype, &rbytes)))
        return rc;
    begin(c, TOYMPI_COLL_SCATTERV);
    if (c->rank != root) {
        rc = toympi_coll_recv(c, recvbuf, rbytes, root, TAG_SCATTER);
    } else {
        for (int i = 0; i < c->size; i++) {
            const char *src = (const char *)sendbuf + (ptrdiff_t)displs[i] * (ptrdiff_t)ext;
            size_t n = (size_t)sendcounts[i] * ext;
            if (i != root)
                toympi_coll_send(c, src, n, i, TAG_SCATTER);
            else if (!in_place)
                memcpy(recvbuf, src, n < rbytes ? n : rbytes);
        }
    }
    return finish("MPI_Scatterv", TOYMPI_COLL_SCATTERV, comm, c, rc);
}
TOYMPI_WEAK(Scatterv)

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    CHECK_COMM("MPI_Allgather", comm, c)
    size_t sbytes = 0, rbytes = 0;
    int rc = check_buf("MPI_Allgather", comm, recvbuf, recvcount, recvtype, &rbytes);
    if (rc)
        return rc;
    int in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place &&
        (rc = check_buf("MPI_Allgather", comm, sendbuf, sendcount, sendtype, &sbytes)))
        return rc;
    if (!in_place && sbytes != rbytes)
        return toympi_err(comm, MPI_ERR_TRUNCATE, "MPI_Allgather",
                          "send and receive sizes differ (%zu vs %zu bytes)", sbytes, rbytes);
    begin(c, TOYMPI_COLL_ALLGATHER);
    const void *s = in_place ? (const char *)recvbuf + (size_t)c->rank * rbytes : sendbuf;
    return finish("MPI_Allgather", TOYMPI_COLL_ALLGATHER, comm, c, toympi_allgather_impl(c, s, recvbuf, rbytes));
}
TOYMPI_WEAK(Allgather)

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    CHECK_COMM("MPI_Alltoall", comm, c)
    size_t sbytes = 0, rbytes = 0;
    int rc = check_buf("MPI_Alltoall", comm, recvbuf, recvcount, recvtype, &rbytes);
    if (rc || (rc = check_buf("MPI_Alltoall", comm, sendbuf, sendcount, sendtype, &sbytes)))
        return rc;
    if (sendbuf == MPI_IN_PLACE)
        return toympi_err(comm, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Alltoall",
                          "MPI_IN_PLACE is not supported");
    begin(c, TOYMPI_COLL_ALLTOALL);
    uint32_t ctx = c->context_id + TOYMPI_CTX_COLL_OFFSET;
    toympi_request_t **rr = toympi_malloc((size_t)c->size * 2 * sizeof *rr);
    for (int i = 0; i < c->size; i++)
        rr[i] = toympi_irecv(c, ctx, (char *)recvbuf + (size_t)i * rbytes, rbytes, i,
                             TAG_ALLTOALL);
    for (int i = 0; i < c->size; i++)
        rr[c->size + i] = toympi_isend(c, ctx, (const char *)sendbuf + (size_t)i * sbytes,
                                       sbytes, i, TAG_ALLTOALL, 0);
    for (int i = 0; i < 2 * c->size; i++) {
        toympi_request_wait(rr[i]);
        if (!rc && rr[i]->status.MPI_ERROR)
            rc = rr[i]->status.MPI_ERROR;
        toympi_request_release(rr[i]);
    }
    free(rr);
    return finish("MPI_Alltoall", TOYMPI_COLL_ALLTOALL, comm, c, rc);
}
TOYMPI_WEAK(Alltoall)
