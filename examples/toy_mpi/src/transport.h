/* transport.h -- process-to-process byte transport over Unix-domain stream
 * sockets. mpiexec creates one socketpair per pair of ranks before it forks
 * and passes the descriptors in TOYMPI_FDS; a rank talks to itself through a
 * private socketpair created in MPI_Init. Every connection is a FIFO byte
 * stream carrying frames = fixed header + optional payload. The transport
 * does framing and non-blocking I/O only; what a frame means is decided by
 * protocol.c (toympi_proto_on_header). */
#ifndef TOYMPI_TRANSPORT_H
#define TOYMPI_TRANSPORT_H

#include "toympi_internal.h"

enum {
    TOYMPI_PKT_EAGER = 1, /* envelope + whole payload */
    TOYMPI_PKT_RTS = 2,   /* rendezvous request-to-send: envelope + size */
    TOYMPI_PKT_CTS = 3,   /* clear-to-send: receiver matched, sreq + rreq */
    TOYMPI_PKT_DATA = 4,  /* rendezvous payload for rreq */
    /* one-sided communication: rma.c, which lists what each header field carries */
    TOYMPI_PKT_RMA_PUT = 16,        /* data for the target's window */
    TOYMPI_PKT_RMA_ACCUMULATE = 17, /* data to combine into the target's window */
    TOYMPI_PKT_RMA_GET = 18,        /* asks for window data */
    TOYMPI_PKT_RMA_ACK = 19,        /* a put or accumulate was applied */
    TOYMPI_PKT_RMA_GET_REPLY = 20,  /* the data of a get */
    TOYMPI_PKT_RMA_LOCK = 21,       /* asks for the window's lock */
    TOYMPI_PKT_RMA_GRANT = 22,      /* the lock is the asker's */
    TOYMPI_PKT_RMA_UNLOCK = 23,     /* gives the lock back */
    TOYMPI_PKT_RMA_BARRIER = 24     /* one rank's arrival at a window barrier (fence, free) */
};
#define TOYMPI_PKT_IS_RMA(type) ((type) >= TOYMPI_PKT_RMA_PUT && (type) <= TOYMPI_PKT_RMA_BARRIER)

typedef struct toympi_wire_hdr {
    uint32_t type;
    uint32_t context_id;
    int32_t src; /* sender's rank in the communicator */
    int32_t tag;
    uint64_t bytes; /* payload (EAGER/DATA) or message size (RTS) */
    uint64_t sreq;  /* sender's request id */
    uint64_t rreq;  /* receiver's request id */
} toympi_wire_hdr_t;

typedef struct toympi_frame {
    toympi_wire_hdr_t hdr;
    const void *payload;
    size_t payload_len;
    void *owned;                   /* freed after the frame is written */
    toympi_request_t *on_sent;     /* completed after the frame is written */
    size_t sent;                   /* bytes of hdr+payload written so far */
    struct toympi_frame *next;
} toympi_frame_t;

struct toympi_conn;
typedef void (*toympi_rx_done_fn)(struct toympi_conn *conn, void *arg);

typedef struct toympi_conn {
    int peer;      /* world rank at the other end */
    int fd_r, fd_w; /* equal for peers; distinct for the self loopback */
    int closed;
    toympi_frame_t *tx_head, *tx_tail;
    /* receive state machine */
    toympi_wire_hdr_t rx_hdr;
    size_t rx_hdr_got;
    int rx_in_payload;
    char *rx_dst;
    size_t rx_dst_left;
    size_t rx_discard_left;
    toympi_rx_done_fn rx_done;
    void *rx_arg;
} toympi_conn_t;

int toympi_transport_init(void) TOYMPI_HIDDEN;
void toympi_transport_finalize(void) TOYMPI_HIDDEN;
toympi_conn_t *toympi_conn(int world_rank) TOYMPI_HIDDEN;

/* queue a frame to a peer (frame ownership passes to the transport) */
void toympi_transport_send(int peer_world, toympi_frame_t *f) TOYMPI_HIDDEN;
toympi_frame_t *toympi_frame_new(uint32_t type) TOYMPI_HIDDEN;

/* Called from within toympi_proto_on_header: the next `len` payload bytes
 * go to dst (up to dst_len, the rest is discarded); done(conn, arg) is
 * called once all len bytes have been consumed. */
void toympi_transport_expect_payload(toympi_conn_t *conn, void *dst, size_t dst_len, size_t len,
                                     toympi_rx_done_fn done, void *arg) TOYMPI_HIDDEN;

/* One round of I/O: poll all connections for up to timeout_ms, write what
 * can be written, read and dispatch what arrived. Returns number of frames
 * fully sent or received (0: nothing happened). */
int toympi_transport_poll(int timeout_ms) TOYMPI_HIDDEN;
/* number of frames still queued for sending */
size_t toympi_transport_tx_pending(void) TOYMPI_HIDDEN;

/* implemented in protocol.c */
void toympi_proto_on_header(toympi_conn_t *conn, const toympi_wire_hdr_t *hdr) TOYMPI_HIDDEN;
/* implemented in rma.c: the one-sided frames (TOYMPI_PKT_IS_RMA), from the above */
void toympi_rma_on_header(toympi_conn_t *conn, const toympi_wire_hdr_t *hdr) TOYMPI_HIDDEN;

#endif
