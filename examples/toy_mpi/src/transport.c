/* transport.c -- Unix-domain socket transport (see transport.h). */
#include "transport.h"

#include "events.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static toympi_conn_t *conns;
static int nconns;
static size_t tx_pending;
static struct pollfd *pfds;
static int *pfd_conn;

static void set_nonblock_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
        toympi_fatal("fcntl(%d): %s", fd, strerror(errno));
    fcntl(fd, F_SETFD, FD_CLOEXEC);
}

int toympi_transport_init(void)
{
    int size = toympi_g.world_size, rank = toympi_g.world_rank;
    conns = toympi_calloc((size_t)size, sizeof *conns);
    pfds = toympi_calloc((size_t)size + 1, sizeof *pfds);
    pfd_conn = toympi_calloc((size_t)size + 1, sizeof *pfd_conn);
    nconns = size;
    const char *fds = getenv("TOYMPI_FDS");
    for (int i = 0; i < size; i++) {
        conns[i].peer = i;
        conns[i].fd_r = conns[i].fd_w = -1;
    }
    if (size > 1) {
        if (!fds)
            toympi_fatal("TOYMPI_FDS not set (start the program with mpiexec)");
        const char *p = fds;
        for (int i = 0; i < size; i++) {
            char *end;
            long fd = strtol(p, &end, 10);
            if (end == p)
                toympi_fatal("malformed TOYMPI_FDS '%s'", fds);
            if (i != rank) {
                if (fd < 0)
                    toympi_fatal("no connection to rank %d in TOYMPI_FDS", i);
                conns[i].fd_r = conns[i].fd_w = (int)fd;
                set_nonblock_cloexec((int)fd);
            }
            p = (*end == ',') ? end + 1 : end;
        }
    }
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) < 0)
        toympi_fatal("socketpair: %s", strerror(errno));
    conns[rank].fd_w = sv[0];
    conns[rank].fd_r = sv[1];
    return MPI_SUCCESS;
}

toympi_conn_t *toympi_conn(int world_rank) { return &conns[world_rank]; }

size_t toympi_transport_tx_pending(void) { return tx_pending; }

toympi_frame_t *toympi_frame_new(uint32_t type)
{
    toympi_frame_t *f = toympi_calloc(1, sizeof *f);
    f->hdr.type = type;
    return f;
}

static void drop_queue(toympi_conn_t *c)
{
    while (c->tx_head) {
        toympi_frame_t *f = c->tx_head;
        c->tx_head = f->next;
        free(f->owned);
        free(f);
        tx_pending--;
    }
    c->tx_tail = NULL;
}

static void conn_lost(toympi_conn_t *c, const char *what)
{
    c->closed = 1;
    drop_queue(c);
    if (!toympi_g.finalizing) {
        fprintf(stderr, "toympi: rank %d: connection to rank %d lost (%s): peer exited or crashed\n",
                toympi_g.world_rank, c->peer, what);
        toympi_abort_job(TOYMPI_EXIT_PEER_LOST, "peer lost");
    }
}

/* write as much of c's queue as possible; returns frames completed */
static int flush_conn(toympi_conn_t *c)
{
    int done = 0;
    while (c->tx_head && !c->closed) {
        toympi_frame_t *f = c->tx_head;
        size_t hl = sizeof f->hdr, total = hl + f->payload_len;
        struct iovec iov[2];
        int n = 0;
        if (f->sent < hl) {
            iov[n].iov_base = (char *)&f->hdr + f->sent;
            iov[n++].iov_len = hl - f->sent;
            if (f->payload_len) {
                iov[n].iov_base = (void *)f->payload;
                iov[n++].iov_len = f->payload_len;
            }
        } else {
            iov[n].iov_base = (char *)f->payload + (f->sent - hl);
            iov[n++].iov_len = total - f->sent;
        }
        struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t w = sendmsg(c->fd_w, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            conn_lost(c, strerror(errno));
            break;
        }
        f->sent += (size_t)w;
        if (f->sent < total)
            continue;
        c->tx_head = f->next;
        if (!c->tx_head)
            c->tx_tail = NULL;
        tx_pending--;
        toympi_request_t *r = f->on_sent;
        free(f->owned);
        free(f);
        done++;
        if (r) { /* a rendezvous DATA frame: the send is done (engine event, events.h) */
            TOYMPI_RAISE_ENGINE(transfer_end, r->context_id, TOYMPI_EV_REQUEST(r));
            toympi_request_complete(r);
        }
    }
    return done;
}

void toympi_transport_send(int peer_world, toympi_frame_t *f)
{
    toympi_conn_t *c = &conns[peer_world];
    if (c->closed) {
        if (!toympi_g.finalizing)
            toympi_fatal("send to rank %d after its connection was lost", peer_world);
        free(f->owned);
        free(f);
        return;
    }
    f->next = NULL;
    f->sent = 0;
    if (c->tx_tail)
        c->tx_tail->next = f;
    else
        c->tx_head = f;
    c->tx_tail = f;
    tx_pending++;
    flush_conn(c); /* try to write right away; progress continues later */
}

void toympi_transport_expect_payload(toympi_conn_t *c, void *dst, size_t dst_len, size_t len,
                                     toympi_rx_done_fn done, void *arg)
{
    size_t to_dst = dst_len < len ? dst_len : len;
    c->rx_dst = dst;
    c->rx_dst_left = to_dst;
    c->rx_discard_left = len - to_dst;
    c->rx_done = done;
    c->rx_arg = arg;
    c->rx_in_payload = 1;
}

/* read what is available on c; returns frames completed */
/* At most this many frames per read_conn call: a burst of small messages is read in
 * slices, and the progress engine drains the MPI_T event buffers between slices
 * (progress.c), so the frames of one slice (each raises up to 4 buffered events) fit in
 * a source's ring (4096 records by default) and an ordinary burst loses no event. The
 * rest waits in the socket: the next poll() reports it. */
#define TOYMPI_FRAMES_PER_READ 256

static int read_conn(toympi_conn_t *c)
{
    static char scratch[65536];
    int done = 0;
    while (!c->closed && done < TOYMPI_FRAMES_PER_READ) {
        ssize_t n;
        if (!c->rx_in_payload) {
            n = recv(c->fd_r, (char *)&c->rx_hdr + c->rx_hdr_got,
                     sizeof c->rx_hdr - c->rx_hdr_got, MSG_DONTWAIT);
        } else if (c->rx_dst_left) {
            n = recv(c->fd_r, c->rx_dst, c->rx_dst_left, MSG_DONTWAIT);
        } else if (c->rx_discard_left) {
            size_t k = c->rx_discard_left < sizeof scratch ? c->rx_discard_left : sizeof scratch;
            n = recv(c->fd_r, scratch, k, MSG_DONTWAIT);
        } else {
            n = 0; /* unreachable: payload state always has bytes left */
        }
        if (n == 0) {
            conn_lost(c, "end of file");
            break;
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                conn_lost(c, strerror(errno));
            break;
        }
        if (!c->rx_in_payload) {
            c->rx_hdr_got += (size_t)n;
            if (c->rx_hdr_got < sizeof c->rx_hdr)
                continue;
            c->rx_hdr_got = 0;
            toympi_wire_hdr_t h = c->rx_hdr;
            toympi_proto_on_header(c, &h);
            if (!c->rx_in_payload)
                done++;
            continue;
        }
        if (c->rx_dst_left) {
            c->rx_dst += n;
            c->rx_dst_left -= (size_t)n;
        } else {
            c->rx_discard_left -= (size_t)n;
        }
        if (c->rx_dst_left == 0 && c->rx_discard_left == 0) {
            c->rx_in_payload = 0;
            done++;
            c->rx_done(c, c->rx_arg);
        }
    }
    return done;
}

int toympi_transport_poll(int timeout_ms)
{
    int done = 0, n = 0;
    for (int i = 0; i < nconns; i++)
        if (conns[i].tx_head)
            done += flush_conn(&conns[i]);
    for (int i = 0; i < nconns; i++) {
        toympi_conn_t *c = &conns[i];
        if (c->closed || c->fd_r < 0)
            continue;
        pfds[n] = (struct pollfd){.fd = c->fd_r, .events = POLLIN};
        pfd_conn[n++] = i;
        if (c->tx_head) {
            if (c->fd_w == c->fd_r) {
                pfds[n - 1].events |= POLLOUT;
            } else {
                pfds[n] = (struct pollfd){.fd = c->fd_w, .events = POLLOUT};
                pfd_conn[n++] = i;
            }
        }
    }
    if (done)
        timeout_ms = 0;
    int rc = poll(pfds, (nfds_t)n, timeout_ms);
    if (rc < 0) {
        if (errno == EINTR)
            return done;
        toympi_fatal("poll: %s", strerror(errno));
    }
    for (int k = 0; k < n && rc > 0; k++) {
        toympi_conn_t *c = &conns[pfd_conn[k]];
        if (pfds[k].revents & POLLOUT)
            done += flush_conn(c);
        if (pfds[k].fd == c->fd_r && (pfds[k].revents & (POLLIN | POLLHUP | POLLERR)))
            done += read_conn(c);
    }
    return done;
}

void toympi_transport_finalize(void)
{
    /* drain everything still queued (eager messages complete locally at
     * enqueue time, so data may still be waiting here) */
    while (tx_pending)
        toympi_transport_poll(100);
    for (int i = 0; i < nconns; i++) {
        toympi_conn_t *c = &conns[i];
        if (c->fd_r >= 0)
            close(c->fd_r);
        if (c->fd_w >= 0 && c->fd_w != c->fd_r)
            close(c->fd_w);
        c->closed = 1;
    }
    free(conns);
    free(pfds);
    free(pfd_conn);
    conns = NULL;
    nconns = 0;
}
