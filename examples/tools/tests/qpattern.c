/* qpattern: a message pattern with known queue behaviour, for the tools' tests.
 *
 * On C, a communicator duplicated from MPI_COMM_WORLD (and freed before the end):
 *   phase 1: senders s = 1..n-1 in turn (rank 0 tells each to go, and waits with
 *            MPI_Iprobe until its last message is queued) send K messages, tags 0..K-1,
 *            to rank 0, which has posted nothing: rank 0's unexpected queue grows to
 *            (n-1)*K entries in a known order;
 *   phase 2: rank 0 receives them from the last sender to the first, highest tag first,
 *            so each receive finds its message at the end of the queue: the unexpected
 *            searches have lengths (n-1)*K, ..., 2, 1;
 *   phase 3: rank 0 posts M receives from rank 1 (tags 0..M-1), then lets rank 1 send
 *            tags M-1 down to 0: each arriving message finds its receive at the end of
 *            the posted queue: posted searches of lengths M, ..., 1, and depth M.
 *   The others wait for rank 0's "done" before MPI_Comm_free / MPI_Barrier, so no
 *   collective message enters rank 0's queues (searches cover all communicators) early.
 * Rank 0 on C, for the queue profiler: unexpected: (n-1)*K inserts, max depth (n-1)*K,
 * (n-1)*K + M searches ((n-1)*K hits, lengths summing to (n-1)K((n-1)K+1)/2, the M misses
 * examine an empty queue); posted: M inserts, max depth M, (n-1)*K + M searches (M hits,
 * lengths summing to M(M+1)/2).
 * argv[1] = "flood": afterwards rank 1 also sends FLOOD messages to rank 0 while rank 0
 * sleeps, so one progress call of rank 0 meets far more instances than a small event
 * buffer holds (the tracer's drop test). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#define K 5
#define M 4
#define FLOOD 6000

static int check(int ok, const char *what)
{
    if (!ok)
        fprintf(stderr, "qpattern: FAILED: %s\n", what);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0, go = 1, buf[K + M] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    if (rank == 0) {
        for (int s = 1; s < size; s++) {
            MPI_Send(&go, 1, MPI_INT, s, 100, c);
            int flag = 0;
            while (!flag)
                MPI_Iprobe(s, K - 1, c, &flag, MPI_STATUS_IGNORE);
        }
        for (int s = size - 1; s >= 1; s--)
            for (int t = K - 1; t >= 0; t--) {
                int v = -1;
                MPI_Recv(&v, 1, MPI_INT, s, t, c, MPI_STATUS_IGNORE);
                bad |= check(v == s * 100 + t, "phase 2 value");
            }
        if (size > 1) {
            MPI_Request req[M];
            for (int t = 0; t < M; t++)
                MPI_Irecv(&buf[t], 1, MPI_INT, 1, t, c, &req[t]);
            MPI_Send(&go, 1, MPI_INT, 1, 101, c);
            MPI_Waitall(M, req, MPI_STATUSES_IGNORE);
            for (int t = 0; t < M; t++)
                bad |= check(buf[t] == 1000 + t, "phase 3 value");
        }
        for (int s = 1; s < size; s++) /* only now may the others go on to collectives */
            MPI_Send(&go, 1, MPI_INT, s, 102, c);
    } else {
        MPI_Recv(&go, 1, MPI_INT, 0, 100, c, MPI_STATUS_IGNORE);
        for (int t = 0; t < K; t++) {
            int v = rank * 100 + t;
            MPI_Send(&v, 1, MPI_INT, 0, t, c);
        }
        if (rank == 1) {
            MPI_Recv(&go, 1, MPI_INT, 0, 101, c, MPI_STATUS_IGNORE);
            for (int t = M - 1; t >= 0; t--) {
                int v = 1000 + t;
                MPI_Send(&v, 1, MPI_INT, 0, t, c);
            }
        }
        /* no collective traffic may reach rank 0's queues before it is done */
        MPI_Recv(&go, 1, MPI_INT, 0, 102, c, MPI_STATUS_IGNORE);
    }
    MPI_Comm_free(&c);
    if (argc > 1 && strcmp(argv[1], "flood") == 0 && size > 1) {
        if (rank == 1)
            for (int i = 0; i < FLOOD; i++)
                MPI_Send(&i, 0, MPI_INT, 0, 7, MPI_COMM_WORLD);
        if (rank == 0) {
            struct timespec ts = {0, 300 * 1000 * 1000}; /* let it all arrive */
            nanosleep(&ts, NULL);
            for (int i = 0; i < FLOOD; i++)
                MPI_Recv(NULL, 0, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("qpattern: %d processes: %s\n", size, bad ? "FAILED" : "ok");
    MPI_Finalize();
    return bad;
}
