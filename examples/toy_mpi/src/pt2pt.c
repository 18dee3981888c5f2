/* pt2pt.c -- point-to-point entry points (argument checking, MPI_PROC_NULL)
 * and the internal send/receive primitives used by collectives. */
#include "toympi_internal.h"

#include <stdlib.h>

#include "events.h"
#include "progress.h"
#include "protocol.h"

#define TOYMPI_TAG_UB 0x7fffffff

toympi_request_t *toympi_isend(const toympi_comm_t *c, uint32_t ctx, const void *buf,
                               size_t bytes, int dest, int tag, int sync)
{
    toympi_request_t *r = toympi_request_new(TOYMPI_REQ_SEND);
    r->comm = toympi_comm_handle(c);
    r->context_id = ctx;
    r->src = c->rank;
    r->tag = tag;
    r->sbuf = buf;
    r->bytes = bytes;
    r->sync = sync;
    if (dest == MPI_PROC_NULL) {
        r->complete = 1;
        return r;
    }
    r->dest = dest;
    r->peer_world = c->world_ranks[dest];
    TOYMPI_RAISE_ENGINE(send_posted, ctx, TOYMPI_EV_REQUEST(r));
    toympi_proto_start_send(r);
    return r;
}

toympi_request_t *toympi_irecv(const toympi_comm_t *c, uint32_t ctx, void *buf, size_t bytes,
                               int src, int tag)
{
    toympi_request_t *r = toympi_request_new(TOYMPI_REQ_RECV);
    r->comm = toympi_comm_handle(c);
    r->context_id = ctx;
    r->src = src;
    r->tag = tag;
    r->buf = buf;
    r->bytes = bytes;
    if (src == MPI_PROC_NULL) {
        r->status.MPI_SOURCE = MPI_PROC_NULL;
        r->status.MPI_TAG = MPI_ANY_TAG;
        r->complete = 1;
        return r;
    }
    TOYMPI_RAISE_ENGINE(recv_posted, ctx, TOYMPI_EV_REQUEST(r));
    toympi_proto_start_recv(r);
    return r;
}

/* ------------------------------------------------ internal (collectives) */
int toympi_coll_send(const toympi_comm_t *c, const void *buf, size_t bytes, int dest, int tag)
{
    toympi_request_t *r =
        toympi_isend(c, c->context_id + TOYMPI_CTX_COLL_OFFSET, buf, bytes, dest, tag, 0);
    toympi_request_wait(r);
    toympi_request_release(r);
    return MPI_SUCCESS;
}

int toympi_coll_recv(const toympi_comm_t *c, void *buf, size_t bytes, int src, int tag)
{
    toympi_request_t *r =
        toympi_irecv(c, c->context_id + TOYMPI_CTX_COLL_OFFSET, buf, bytes, src, tag);
    toympi_request_wait(r);
    int err = r->status.MPI_ERROR;
    toympi_request_release(r);
    return err;
}

int toympi_coll_sendrecv(const toympi_comm_t *c, const void *sbuf, size_t sbytes, int dest,
                         void *rbuf, size_t rbytes, int src, int tag)
{
    uint32_t ctx = c->context_id + TOYMPI_CTX_COLL_OFFSET;
    toympi_request_t *rr = toympi_irecv(c, ctx, rbuf, rbytes, src, tag);
    toympi_request_t *sr = toympi_isend(c, ctx, sbuf, sbytes, dest, tag, 0);
    toympi_request_wait(sr);
    toympi_request_wait(rr);
    int err = rr->status.MPI_ERROR;
    toympi_request_release(sr);
    toympi_request_release(rr);
    return err;
}

/* ---------------------------------------------------------- checking */
static int check(const char *fn, MPI_Comm comm, toympi_comm_t **cp, const void *buf, int count,
                 MPI_Datatype dt, size_t *bytes, int rank, int tag, int is_recv)
{
    toympi_comm_t *c = toympi_comm_get(comm);
    if (!c)
        return toympi_err(comm, MPI_ERR_COMM, fn, "invalid communicator");
    if (count < 0)
        return toympi_err(comm, MPI_ERR_COUNT, fn, "negative count %d", count);
    const toympi_datatype_t *t = toympi_datatype_get(dt);
    if (!t)
        return toympi_err(comm, MPI_ERR_TYPE, fn, "invalid datatype");
    if (!buf && count > 0)
        return toympi_err(comm, MPI_ERR_BUFFER, fn, "NULL buffer with count %d", count);
    if (!(rank == MPI_PROC_NULL || (rank >= 0 && rank < c->size) ||
          (is_recv && rank == MPI_ANY_SOURCE)))
        return toympi_err(comm, MPI_ERR_RANK, fn, "invalid rank %d (communicator size %d)", rank,
                          c->size);
    if (!((tag >= 0 && tag <= TOYMPI_TAG_UB) || (is_recv && tag == MPI_ANY_TAG)))
        return toympi_err(comm, MPI_ERR_TAG, fn, "invalid tag %d", tag);
    *cp = c;
    *bytes = (size_t)count * t->size;
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ entry points */
static int do_send(const char *fn, const void *buf, int count, MPI_Datatype datatype, int dest,
                   int tag, MPI_Comm comm, int sync)
{
    TOYMPI_CHECK_INIT(fn);
    toympi_comm_t *c = NULL;
    size_t bytes = 0;
    int rc = check(fn, comm, &c, buf, count, datatype, &bytes, dest, tag, 0);
    if (rc)
        return rc;
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    toympi_request_t *r = toympi_isend(c, c->context_id, buf, bytes, dest, tag, sync);
    toympi_request_wait(r);
    toympi_request_release(r);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return do_send("MPI_Send", buf, count, datatype, dest, tag, comm, 0);
}
TOYMPI_WEAK(Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm)
{
    return do_send("MPI_Ssend", buf, count, datatype, dest, tag, comm, 1);
}
TOYMPI_WEAK(Ssend)

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    TOYMPI_CHECK_INIT("MPI_Recv");
    toympi_comm_t *c = NULL;
    size_t bytes = 0;
    int rc = check("MPI_Recv", comm, &c, buf, count, datatype, &bytes, source, tag, 1);
    if (rc)
        return rc;
    toympi_request_t *r = toympi_irecv(c, c->context_id, buf, bytes, source, tag);
    toympi_request_wait(r);
    int err = r->status.MPI_ERROR;
    if (status != MPI_STATUS_IGNORE)
        *status = r->status;
    toympi_request_release(r);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    if (err)
        return toympi_err(comm, err, "MPI_Recv", "message of %lld+ bytes from rank %d, tag %d",
                          (long long)bytes, status != MPI_STATUS_IGNORE ? status->MPI_SOURCE : -1,
                          tag);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Recv)

static int do_isend(const char *fn, const void *buf, int count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Request *request, int sync)
{
    TOYMPI_CHECK_INIT(fn);
    toympi_comm_t *c = NULL;
    size_t bytes = 0;
    int rc = check(fn, comm, &c, buf, count, datatype, &bytes, dest, tag, 0);
    if (rc)
        return rc;
    if (!request)
        return toympi_err(comm, MPI_ERR_ARG, fn, "request is NULL");
    toympi_request_t *r = toympi_isend(c, c->context_id, buf, bytes, dest, tag, sync);
    if (toympi_request_publish(r, request) != MPI_SUCCESS)
        toympi_fatal("out of request handles");
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request *request)
{
    return do_isend("MPI_Isend", buf, count, datatype, dest, tag, comm, request, 0);
}
TOYMPI_WEAK(Isend)

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    return do_isend("MPI_Issend", buf, count, datatype, dest, tag, comm, request, 1);
}
TOYMPI_WEAK(Issend)

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    TOYMPI_CHECK_INIT("MPI_Irecv");
    toympi_comm_t *c = NULL;
    size_t bytes = 0;
    int rc = check("MPI_Irecv", comm, &c, buf, count, datatype, &bytes, source, tag, 1);
    if (rc)
        return rc;
    if (!request)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Irecv", "request is NULL");
    toympi_request_t *r = toympi_irecv(c, c->context_id, buf, bytes, source, tag);
    if (toympi_request_publish(r, request) != MPI_SUCCESS)
        toympi_fatal("out of request handles");
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Irecv)

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status)
{
    TOYMPI_CHECK_INIT("MPI_Sendrecv");
    toympi_comm_t *c = NULL;
    size_t sbytes = 0, rbytes = 0;
    int rc = check("MPI_Sendrecv", comm, &c, sendbuf, sendcount, sendtype, &sbytes, dest, sendtag,
                   0);
    if (rc)
        return rc;
    rc = check("MPI_Sendrecv", comm, &c, recvbuf, recvcount, recvtype, &rbytes, source, recvtag,
               1);
    if (rc)
        return rc;
    toympi_request_t *rr = toympi_irecv(c, c->context_id, recvbuf, rbytes, source, recvtag);
    toympi_request_t *sr = toympi_isend(c, c->context_id, sendbuf, sbytes, dest, sendtag, 0);
    toympi_request_wait(sr);
    toympi_request_wait(rr);
    int err = rr->status.MPI_ERROR;
    if (status != MPI_STATUS_IGNORE)
        *status = rr->status;
    toympi_request_release(sr);
    toympi_request_release(rr);
    toympi_progress_poll(TOYMPI_PROGRESS_EXIT);
    if (err)
        return toympi_err(comm, err, "MPI_Sendrecv", "receive failed");
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Sendrecv)

static int probe_check(const char *fn, int source, int tag, MPI_Comm comm, toympi_comm_t **cp)
{
    size_t bytes = 0;
    static const char dummy;
    return check(fn, comm, cp, &dummy, 0, MPI_BYTE, &bytes, source, tag, 1);
}

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    TOYMPI_CHECK_INIT("MPI_Iprobe");
    toympi_comm_t *c = NULL;
    int rc = probe_check("MPI_Iprobe", source, tag, comm, &c);
    if (rc)
        return rc;
    if (!flag)
        return toympi_err(comm, MPI_ERR_ARG, "MPI_Iprobe", "NULL argument");
    MPI_Status st;
    if (source == MPI_PROC_NULL) {
        toympi_status_set_empty(&st);
        st.MPI_SOURCE = MPI_PROC_NULL;
        *flag = 1;
    } else {
        toympi_comm_hold(c); /* tool code in the drain may free comm (comm.c) */
        toympi_progress_poll(TOYMPI_PROGRESS_TEST);
        *flag = toympi_proto_probe(c->context_id, source, tag, &st);
        toympi_comm_unhold(c);
    }
    if (*flag && status != MPI_STATUS_IGNORE)
        *status = st;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Iprobe)

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    TOYMPI_CHECK_INIT("MPI_Probe");
    toympi_comm_t *c = NULL;
    int rc = probe_check("MPI_Probe", source, tag, comm, &c);
    if (rc)
        return rc;
    MPI_Status st;
    if (source == MPI_PROC_NULL) {
        toympi_status_set_empty(&st);
        st.MPI_SOURCE = MPI_PROC_NULL;
    } else {
        toympi_comm_hold(c); /* tool code in the drain may free comm (comm.c) */
        while (!toympi_proto_probe(c->context_id, source, tag, &st))
            toympi_progress_poll(TOYMPI_PROGRESS_WAIT);
        toympi_comm_unhold(c);
    }
    if (status != MPI_STATUS_IGNORE)
        *status = st;
    return MPI_SUCCESS;
}
TOYMPI_WEAK(Probe)
