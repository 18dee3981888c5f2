/* test_pt2pt: point-to-point semantics.
 *  - matching on source/tag/communicator, MPI_ANY_SOURCE, MPI_ANY_TAG
 *  - non-overtaking order (eager and rendezvous, also mixed sizes)
 *  - unexpected messages (sent before the receive is posted)
 *  - eager and rendezvous sizes, truncation, zero-byte messages
 *  - Isend/Irecv/Wait/Waitall/Waitany/Test/Testall, Ssend, Sendrecv
 *  - Probe/Iprobe, Cancel of a receive, Get_count, MPI_PROC_NULL, self-send
 * Works with any number of ranks >= 1 (pairs rank 0 with rank 1 etc.). */
#include <stdlib.h>
#include <string.h>

#include "toympi_check.h"

static int rank, size;

static void fill(unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 31 + (size_t)seed * 7);
}

static int verify(const unsigned char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i * 31 + (size_t)seed * 7))
            return 0;
    return 1;
}

/* sizes crossing the eager limit (default 8 KiB) */
static const size_t sizes[] = {0, 1, 100, 8191, 8192, 8193, 65536, 1 << 20, 3000000};

static void test_sizes(int peer, int sender)
{
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        unsigned char *b = malloc(n + 1);
        if (sender) {
            fill(b, n, (int)k);
            MPI_OK(MPI_Send(b, (int)n, MPI_BYTE, peer, 100 + (int)k, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            memset(b, 0, n + 1);
            MPI_OK(MPI_Recv(b, (int)n, MPI_BYTE, peer, 100 + (int)k, MPI_COMM_WORLD, &st));
            CHECK(verify(b, n, (int)k));
            int cnt;
            MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
            CHECK_EQ_INT(cnt, n);
            CHECK_EQ_INT(st.MPI_SOURCE, peer);
            CHECK_EQ_INT(st.MPI_TAG, 100 + (int)k);
        }
        free(b);
    }
}

/* many messages, same envelope, alternating eager/rendezvous: must arrive
 * in send order (non-overtaking), whether the receive is posted first or
 * the messages are unexpected */
static void test_order(int peer, int sender)
{
    enum { N = 40 };
    size_t lens[N];
    for (int i = 0; i < N; i++)
        lens[i] = (i % 3 == 0) ? 20000 + (size_t)i : (size_t)(4 * i + 4);
    if (sender) {
        MPI_Request rq[N];
        unsigned char *bufs[N];
        for (int i = 0; i < N; i++) {
            bufs[i] = malloc(lens[i]);
            fill(bufs[i], lens[i], i);
            /* first half blocking, second half nonblocking */
            if (i < N / 2) {
                MPI_OK(MPI_Send(bufs[i], (int)lens[i], MPI_BYTE, peer, 5, MPI_COMM_WORLD));
                rq[i] = MPI_REQUEST_NULL;
            } else {
                MPI_OK(MPI_Isend(bufs[i], (int)lens[i], MPI_BYTE, peer, 5, MPI_COMM_WORLD,
                                 &rq[i]));
            }
        }
        MPI_OK(MPI_Waitall(N, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < N; i++)
            free(bufs[i]);
    } else {
        /* let messages pile up in the unexpected queue for a while */
        double t0 = MPI_Wtime();
        int flag = 0;
        while (MPI_Wtime() - t0 < 0.05)
            MPI_Iprobe(peer, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        for (int i = 0; i < N; i++) {
            unsigned char *b = malloc(30000);
            MPI_Status st;
            MPI_OK(MPI_Recv(b, 30000, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &st));
            int cnt;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK_EQ_INT(cnt, lens[i]);
            CHECK(verify(b, lens[i], i));
            free(b);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    /* posted-first variant with MPI_ANY_TAG: order must still hold */
    if (sender) {
        for (int i = 0; i < N; i++)
            MPI_OK(MPI_Send(&i, 1, MPI_INT, peer, 1000 + i, MPI_COMM_WORLD));
    } else {
        int vals[N];
        MPI_Request rq[N];
        MPI_Status st[N];
        for (int i = 0; i < N; i++)
            MPI_OK(MPI_Irecv(&vals[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
                             &rq[i]));
        MPI_OK(MPI_Waitall(N, rq, st));
        for (int i = 0; i < N; i++) {
            CHECK_EQ_INT(vals[i], i);
            CHECK_EQ_INT(st[i].MPI_TAG, 1000 + i);
            CHECK_EQ_INT(st[i].MPI_SOURCE, peer);
            CHECK_EQ_INT(rq[i], MPI_REQUEST_NULL);
        }
    }
}

/* receives pick messages by tag, not by arrival order */
static void test_tag_matching(int peer, int sender)
{
    if (sender) {
        for (int t = 1; t <= 3; t++)
            MPI_OK(MPI_Send(&t, 1, MPI_INT, peer, t, MPI_COMM_WORLD));
        int big[5000];
        for (int i = 0; i < 5000; i++)
            big[i] = i;
        MPI_Request rq; /* rendezvous: a blocking send would deadlock here */
        MPI_OK(MPI_Isend(big, 5000, MPI_INT, peer, 9, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Send(&big[7], 1, MPI_INT, peer, 8, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    } else {
        int v;
        MPI_Status st;
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, &st));
        CHECK_EQ_INT(v, 3);
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st));
        CHECK_EQ_INT(v, 1);
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        CHECK_EQ_INT(v, 2);
        CHECK_EQ_INT(st.MPI_TAG, 2);
        /* tag 8 was sent after the rendezvous message with tag 9 */
        MPI_OK(MPI_Recv(&v, 1, MPI_INT, peer, 8, MPI_COMM_WORLD, &st));
        CHECK_EQ_INT(v, 7);
        int *big = malloc(5000 * sizeof(int));
        MPI_OK(MPI_Recv(big, 5000, MPI_INT, peer, 9, MPI_COMM_WORLD, &st));
        int ok = 1;
        for (int i = 0; i < 5000; i++)
            ok &= big[i] == i;
        CHECK(ok);
        free(big);
    }
}

static void test_probe_cancel_count(int peer, int sender)
{
    if (sender) {
        double d[3] = {1.5, 2.5, 3.5};
        MPI_OK(MPI_Send(d, 3, MPI_DOUBLE, peer, 42, MPI_COMM_WORLD));
        static char big[100000];
        memset(big, 'x', sizeof big);
        MPI_OK(MPI_Send(big, (int)sizeof big, MPI_CHAR, peer, 43, MPI_COMM_WORLD));
        MPI_OK(MPI_Ssend(d, 1, MPI_DOUBLE, peer, 44, MPI_COMM_WORLD));
    } else {
        MPI_Status st;
        MPI_OK(MPI_Probe(MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &st));
        CHECK_EQ_INT(st.MPI_SOURCE, peer);
        int cnt;
        MPI_OK(MPI_Get_count(&st, MPI_DOUBLE, &cnt));
        CHECK_EQ_INT(cnt, 3);
        MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
        CHECK_EQ_INT(cnt, 6);
        MPI_OK(MPI_Get_count(&st, MPI_LONG_DOUBLE, &cnt));
        CHECK_EQ_INT(cnt, MPI_UNDEFINED);
        double d[3] = {0};
        MPI_OK(MPI_Recv(d, 3, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
        CHECK(d[0] == 1.5 && d[1] == 2.5 && d[2] == 3.5);
        /* Iprobe a rendezvous message until it shows up */
        int flag = 0;
        while (!flag)
            MPI_OK(MPI_Iprobe(peer, 43, MPI_COMM_WORLD, &flag, &st));
        MPI_OK(MPI_Get_count(&st, MPI_CHAR, &cnt));
        CHECK_EQ_INT(cnt, 100000);
        char *big = malloc(100000);
        MPI_OK(MPI_Recv(big, 100000, MPI_CHAR, peer, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK(big[0] == 'x' && big[99999] == 'x');
        free(big);
        /* Iprobe for something that never comes */
        MPI_OK(MPI_Iprobe(peer, 4242, MPI_COMM_WORLD, &flag, &st));
        CHECK_EQ_INT(flag, 0);
        /* cancel a receive that can never match */
        MPI_Request rq;
        int v;
        MPI_OK(MPI_Irecv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 31337, MPI_COMM_WORLD, &rq));
        MPI_OK(MPI_Cancel(&rq));
        MPI_OK(MPI_Wait(&rq, &st));
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK_EQ_INT(flag, 1);
        CHECK_EQ_INT(rq, MPI_REQUEST_NULL);
        /* synchronous send completes only after this receive matched */
        MPI_OK(MPI_Recv(d, 1, MPI_DOUBLE, peer, 44, MPI_COMM_WORLD, &st));
        CHECK(d[0] == 1.5);
        MPI_OK(MPI_Test_cancelled(&st, &flag));
        CHECK_EQ_INT(flag, 0);
    }
}

static void test_nonblocking(int peer, int sender)
{
    enum { N = 8 };
    int sbuf[N][3000], rbuf[N][3000];
    MPI_Request rq[N];
    if (sender) {
        for (int i = 0; i < N; i++) {
            for (int j = 0; j < 3000; j++)
                sbuf[i][j] = i * 10000 + j;
            MPI_OK(MPI_Isend(sbuf[i], 3000, MPI_INT, peer, 200 + i, MPI_COMM_WORLD, &rq[i]));
        }
        /* Test until done */
        int done = 0;
        while (!done)
            MPI_OK(MPI_Testall(N, rq, &done, MPI_STATUSES_IGNORE));
        for (int i = 0; i < N; i++)
            CHECK_EQ_INT(rq[i], MPI_REQUEST_NULL);
    } else {
        /* post in reverse tag order */
        for (int i = N - 1; i >= 0; i--)
            MPI_OK(MPI_Irecv(rbuf[i], 3000, MPI_INT, peer, 200 + i, MPI_COMM_WORLD, &rq[i]));
        int seen[N] = {0};
        for (int k = 0; k < N; k++) {
            int idx;
            MPI_Status st;
            MPI_OK(MPI_Waitany(N, rq, &idx, &st));
            CHECK(idx >= 0 && idx < N);
            if (idx < 0 || idx >= N)
                break;
            seen[idx]++;
            CHECK_EQ_INT(st.MPI_TAG, 200 + idx);
            CHECK_EQ_INT(rbuf[idx][2999], idx * 10000 + 2999);
        }
        for (int i = 0; i < N; i++)
            CHECK_EQ_INT(seen[i], 1);
        int idx;
        MPI_OK(MPI_Waitany(N, rq, &idx, MPI_STATUS_IGNORE));
        CHECK_EQ_INT(idx, MPI_UNDEFINED);
    }
    /* Test/Wait on a single request, and Wait on MPI_REQUEST_NULL */
    int v = 5, w = 0, flag = 0;
    MPI_Request r1;
    MPI_Status st;
    if (sender) {
        MPI_OK(MPI_Isend(&v, 1, MPI_INT, peer, 300, MPI_COMM_WORLD, &r1));
        MPI_OK(MPI_Wait(&r1, MPI_STATUS_IGNORE));
    } else {
        MPI_OK(MPI_Irecv(&w, 1, MPI_INT, peer, 300, MPI_COMM_WORLD, &r1));
        while (!flag)
            MPI_OK(MPI_Test(&r1, &flag, &st));
        CHECK_EQ_INT(w, 5);
        CHECK_EQ_INT(st.MPI_SOURCE, peer);
    }
    r1 = MPI_REQUEST_NULL;
    MPI_OK(MPI_Wait(&r1, &st));
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_ANY_SOURCE);
    /* MPI_Request_free on an active send: the message still arrives */
    if (sender) {
        static int big[20000];
        big[19999] = 77;
        MPI_OK(MPI_Isend(big, 20000, MPI_INT, peer, 301, MPI_COMM_WORLD, &r1));
        MPI_OK(MPI_Request_free(&r1));
        CHECK_EQ_INT(r1, MPI_REQUEST_NULL);
    } else {
        static int big[20000];
        MPI_OK(MPI_Recv(big, 20000, MPI_INT, peer, 301, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ_INT(big[19999], 77);
    }
}

static void test_misc(void)
{
    /* self send, eager and rendezvous, with Sendrecv */
    static int a[10000], b[10000];
    for (int i = 0; i < 10000; i++)
        a[i] = rank + i;
    MPI_Status st;
    MPI_OK(MPI_Sendrecv(a, 10000, MPI_INT, rank, 1, b, 10000, MPI_INT, rank, 1, MPI_COMM_WORLD,
                        &st));
    CHECK_EQ_INT(b[9999], rank + 9999);
    MPI_Request r;
    MPI_OK(MPI_Isend(a, 3, MPI_INT, rank, 2, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Recv(b, 3, MPI_INT, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_EQ_INT(st.MPI_SOURCE, rank);
    CHECK_EQ_INT(b[2], rank + 2);
    /* ring exchange with Sendrecv */
    int right = (rank + 1) % size, left = (rank - 1 + size) % size, got = -1;
    MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, right, 3, &got, 1, MPI_INT, left, 3, MPI_COMM_WORLD,
                        &st));
    CHECK_EQ_INT(got, left);
    /* MPI_PROC_NULL */
    MPI_OK(MPI_Send(a, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
    MPI_OK(MPI_Recv(b, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ_INT(st.MPI_TAG, MPI_ANY_TAG);
    int cnt;
    MPI_OK(MPI_Get_count(&st, MPI_INT, &cnt));
    CHECK_EQ_INT(cnt, 0);
    /* every rank sends to rank 0 with ANY_SOURCE receives */
    if (rank == 0) {
        int seen = 0;
        for (int i = 1; i < size; i++) {
            int v;
            MPI_OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &st));
            CHECK_EQ_INT(v, st.MPI_SOURCE * 3);
            seen |= 1 << st.MPI_SOURCE;
        }
        CHECK_EQ_INT(seen, ((1 << size) - 1) & ~1);
    } else {
        int v = rank * 3;
        MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 77, MPI_COMM_WORLD));
    }
    /* truncation is reported (errors returned) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Isend(a, 10, MPI_INT, rank, 4, MPI_COMM_WORLD, &r);
    int rc = MPI_Recv(b, 5, MPI_INT, rank, 4, MPI_COMM_WORLD, &st);
    CHECK_EQ_INT(rc, MPI_ERR_TRUNCATE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Isend(a, 5000, MPI_INT, rank, 4, MPI_COMM_WORLD, &r);
    rc = MPI_Recv(b, 5, MPI_INT, rank, 4, MPI_COMM_WORLD, &st);
    CHECK_EQ_INT(rc, MPI_ERR_TRUNCATE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    rank = check_init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    /* pair ranks (0,1), (2,3), ...; an odd last rank pairs with itself */
    int peer = (rank % 2 == 0) ? rank + 1 : rank - 1;
    if (peer >= size)
        peer = rank;
    for (int dir = 0; dir < 2; dir++) {
        int sender = (rank % 2 == dir);
        if (peer == rank) {
            /* alone: play both roles through nonblocking self messages */
            continue;
        }
        test_sizes(peer, sender);
        test_order(peer, sender);
        test_tag_matching(peer, sender);
        test_probe_cancel_count(peer, sender);
        test_nonblocking(peer, sender);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    test_misc();
    return check_finish("test_pt2pt");
}
