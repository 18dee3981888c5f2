/* protocol.c -- eager / rendezvous protocol (see protocol.h) */
#include "protocol.h"

#include <string.h>

#include "events.h"
#include "matching.h"
#include "transport.h"

/* Matching (the queues, the search, their events) is matching.c's; this file is what
 * happens around it. Every TOYMPI_RAISE_ENGINE here is a protocol-step event of the
 * engine source (transfer, rendezvous), raised at MPITEV_CB_REQUIRE_ASYNC_SIGNAL_SAFE
 * inside a frame handler or right after a match, always buffered (events.h). */

static uint64_t req_id(const toympi_request_t *r) { return (uint64_t)(uintptr_t)r; }
static toympi_request_t *req_from_id(uint64_t id) { return (toympi_request_t *)(uintptr_t)id; }

/* ------------------------------------------------------------- sending */
void toympi_proto_start_send(toympi_request_t *r)
{
    if (!r->sync && r->bytes <= toympi_g.eager_limit) {
        toympi_frame_t *f = toympi_frame_new(TOYMPI_PKT_EAGER);
        f->hdr.context_id = r->context_id;
        f->hdr.src = r->src;
        f->hdr.tag = r->tag;
        f->hdr.bytes = r->bytes;
        if (r->bytes) {
            f->owned = toympi_malloc(r->bytes);
            memcpy(f->owned, r->sbuf, r->bytes);
            f->payload = f->owned;
            f->payload_len = r->bytes;
        }
        TOYMPI_RAISE_ENGINE(transfer_begin, r->context_id, TOYMPI_EV_REQUEST(r));
        /* buffered: the send buffer is free again, the request completes */
        TOYMPI_RAISE_ENGINE(transfer_end, r->context_id, TOYMPI_EV_REQUEST(r));
        toympi_request_complete(r);
        toympi_transport_send(r->peer_world, f);
        return;
    }
    toympi_frame_t *f = toympi_frame_new(TOYMPI_PKT_RTS);
    f->hdr.context_id = r->context_id;
    f->hdr.src = r->src;
    f->hdr.tag = r->tag;
    f->hdr.bytes = r->bytes;
    f->hdr.sreq = req_id(r);
    TOYMPI_RAISE_ENGINE(toympi_rendezvous, r->context_id, toympi_ev_bytes(r), r->ev_id,
                        TOYMPI_RNDV_RTS_SENT, toympi_ev_peer(r), toympi_ev_tag(r));
    toympi_transport_send(r->peer_world, f);
}

static void on_cts(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    toympi_request_t *s = req_from_id(h->sreq);
    TOYMPI_RAISE_ENGINE(toympi_rendezvous, s->context_id, toympi_ev_bytes(s), s->ev_id,
                        TOYMPI_RNDV_CTS_RECEIVED, toympi_ev_peer(s), toympi_ev_tag(s));
    toympi_frame_t *f = toympi_frame_new(TOYMPI_PKT_DATA);
    f->hdr.context_id = s->context_id;
    f->hdr.src = s->src;
    f->hdr.tag = s->tag;
    f->hdr.bytes = s->bytes;
    f->hdr.sreq = h->sreq;
    f->hdr.rreq = h->rreq;
    f->payload = s->sbuf;
    f->payload_len = s->bytes;
    f->on_sent = s; /* completes the send request once written */
    TOYMPI_RAISE_ENGINE(transfer_begin, s->context_id, TOYMPI_EV_REQUEST(s));
    toympi_transport_send(conn->peer, f);
}

/* ----------------------------------------------------------- receiving */
static void set_recv_status(toympi_request_t *r, int src, int tag, size_t bytes)
{
    r->status.MPI_SOURCE = src;
    r->status.MPI_TAG = tag;
    r->status.toympi_cancelled = 0;
    if (bytes > r->bytes) {
        r->status.MPI_ERROR = MPI_ERR_TRUNCATE;
        r->status.toympi_count = (MPI_Count)r->bytes;
    } else {
        r->status.MPI_ERROR = MPI_SUCCESS;
        r->status.toympi_count = (MPI_Count)bytes;
    }
}

static void send_cts(int peer_world, uint64_t sreq, toympi_request_t *r)
{
    toympi_frame_t *f = toympi_frame_new(TOYMPI_PKT_CTS);
    f->hdr.context_id = r->context_id;
    f->hdr.sreq = sreq;
    f->hdr.rreq = req_id(r);
    TOYMPI_RAISE_ENGINE(toympi_rendezvous, r->context_id, toympi_ev_bytes(r), r->ev_id,
                        TOYMPI_RNDV_CTS_SENT, toympi_ev_peer(r), toympi_ev_tag(r));
    toympi_transport_send(peer_world, f);
}

static void recv_done(toympi_conn_t *conn, void *arg)
{
    (void)conn;
    toympi_request_t *r = arg;
    TOYMPI_RAISE_ENGINE(transfer_end, r->context_id, TOYMPI_EV_REQUEST(r));
    toympi_request_complete(r);
}

/* eager payload of an unexpected message finished arriving */
static void unexpected_payload_done(toympi_conn_t *conn, void *arg)
{
    (void)conn;
    toympi_unexpected_t *u = arg;
    u->payload_ready = 1;
    toympi_request_t *r = u->claimed;
    if (r) { /* a receive matched it while the payload was in flight */
        memcpy(r->buf, u->payload, (size_t)r->status.toympi_count);
        toympi_unexpected_free(u);
        TOYMPI_RAISE_ENGINE(transfer_end, r->context_id, TOYMPI_EV_REQUEST(r));
        toympi_request_complete(r);
    }
}

static void on_envelope(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    int eager = h->type == TOYMPI_PKT_EAGER;
    size_t bytes = (size_t)h->bytes;
    toympi_unexpected_t *u;
    toympi_request_t *r =
        toympi_match_arrival(h->context_id, h->src, h->tag, bytes,
                             eager ? TOYMPI_UX_EAGER : TOYMPI_UX_RTS, conn->peer, h->sreq, &u);
    if (r) {
        set_recv_status(r, h->src, h->tag, bytes);
        if (!eager) {
            r->sync = 1; /* remember: this receive goes through rendezvous */
            send_cts(conn->peer, h->sreq, r);
            return;
        }
        TOYMPI_RAISE_ENGINE(transfer_begin, r->context_id, TOYMPI_EV_REQUEST(r));
        if (bytes == 0)
            recv_done(conn, r);
        else
            toympi_transport_expect_payload(conn, r->buf, r->bytes, bytes, recv_done, r);
        return;
    }
    /* unexpected: an eager payload is buffered in u until a receive claims it */
    if (eager) {
        if (bytes == 0) {
            u->payload_ready = 1;
        } else {
            u->payload = toympi_malloc(bytes);
            toympi_transport_expect_payload(conn, u->payload, bytes, bytes,
                                            unexpected_payload_done, u);
        }
    }
}

static void on_data(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    toympi_request_t *r = req_from_id(h->rreq);
    TOYMPI_RAISE_ENGINE(transfer_begin, r->context_id, TOYMPI_EV_REQUEST(r));
    if (h->bytes == 0)
        recv_done(conn, r);
    else
        toympi_transport_expect_payload(conn, r->buf, r->bytes, (size_t)h->bytes, recv_done, r);
}

void toympi_proto_on_header(toympi_conn_t *conn, const toympi_wire_hdr_t *h)
{
    switch (h->type) {
    case TOYMPI_PKT_EAGER:
    case TOYMPI_PKT_RTS:
        on_envelope(conn, h);
        break;
    case TOYMPI_PKT_CTS:
        on_cts(conn, h);
        break;
    case TOYMPI_PKT_DATA:
        on_data(conn, h);
        break;
    default:
        if (TOYMPI_PKT_IS_RMA(h->type)) { /* one-sided communication */
            toympi_rma_on_header(conn, h);
            break;
        }
        toympi_fatal("corrupt frame (type %u) from rank %d", h->type, conn->peer);
    }
}

void toympi_proto_start_recv(toympi_request_t *r)
{
    toympi_unexpected_t *u = toympi_match_post(r);
    if (!u)
        return; /* posted: on_envelope finishes the job */
    set_recv_status(r, u->src, u->tag, u->bytes);
    if (u->kind == TOYMPI_UX_RTS) {
        r->sync = 1;
        send_cts(u->peer_world, u->sreq_id, r);
        toympi_unexpected_free(u);
        return;
    }
    TOYMPI_RAISE_ENGINE(transfer_begin, r->context_id, TOYMPI_EV_REQUEST(r));
    if (!u->payload_ready) {
        u->claimed = r; /* the rest of the payload goes to r: unexpected_payload_done */
        return;
    }
    if (r->status.toympi_count)
        memcpy(r->buf, u->payload, (size_t)r->status.toympi_count);
    toympi_unexpected_free(u);
    TOYMPI_RAISE_ENGINE(transfer_end, r->context_id, TOYMPI_EV_REQUEST(r));
    toympi_request_complete(r);
}

int toympi_proto_cancel_recv(toympi_request_t *r)
{
    if (!toympi_match_cancel(r))
        return 0;
    r->status.toympi_cancelled = 1;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    r->status.MPI_ERROR = MPI_SUCCESS;
    r->status.toympi_count = 0;
    toympi_request_complete(r);
    return 1;
}

int toympi_proto_probe(uint32_t ctx, int src, int tag, MPI_Status *st)
{
    const toympi_unexpected_t *u = toympi_match_probe(ctx, src, tag);
    if (!u)
        return 0;
    st->MPI_SOURCE = u->src;
    st->MPI_TAG = u->tag;
    st->MPI_ERROR = MPI_SUCCESS;
    st->toympi_cancelled = 0;
    st->toympi_count = (MPI_Count)u->bytes;
    return 1;
}
