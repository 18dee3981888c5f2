/* pingpong.c -- a NetPIPE-style ping-pong between ranks 0 and 1 (any MPI, standard API
 * only), to measure what a tool attached with LD_PRELOAD costs an application.
 *
 * usage: mpiexec -n 2 pingpong [N] [SIZE...]
 *   For each SIZE in bytes (default: 1 1024 65536), N round trips (default 20000,
 *   fewer for large sizes: N * 1024 / SIZE, at least 200) after N/10 + 1 unmeasured ones;
 *   PINGPONG_TRIALS=T times (default 1), the best of them kept (as NetPIPE does: the
 *   trial least disturbed by other processes on a shared machine; N large against what a
 *   tool buffers between two of its processing batches, so that every trial does its share
 *   of them). Rank 0 prints one line per size: "pingpong SIZE us_per_round_trip MB_per_s"
 *   (the best trial); after
 *   MPI_Finalize (where a tool writes its output) each rank prints its peak resident
 *   memory: "rss RANK KiB".
 *
 *   PINGPONG_SYNC=1 (for callgrind on rank 0): rank 1 counts its replies in a shared
 *   file mapping once its MPI_Send has returned, and rank 0 waits for that count in
 *   wait_reply() before its MPI_Recv, so the receive finds the reply at its first poll
 *   instead of polling as often as the timing makes it (callgrind --toggle-collect on
 *   exchange and on wait_reply counts the round trips without the wait: instructions
 *   per round trip that do not depend on timing). Both ranks on one machine. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <fcntl.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

static _Atomic long *replies; /* PINGPONG_SYNC: rank 1's replies sent so far */
static long expected;         /* rank 0: replies waited for so far */

/* Rank 0: until rank 1 has sent the next reply (no MPI call). */
__attribute__((noinline)) static void wait_reply(void)
{
    expected++;
    while (atomic_load_explicit(replies, memory_order_acquire) < expected)
        sched_yield();
}

/* The round trips (noinline: what callgrind counts, --toggle-collect=exchange). */
__attribute__((noinline)) static void exchange(char *buf, int size, int n, int rank)
{
    for (int i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            if (replies)
                wait_reply();
            MPI_Recv(buf, size, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, size, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            if (replies)
                atomic_fetch_add_explicit(replies, 1, memory_order_release);
        }
    }
}

static double round_trips(char *buf, int size, int n, int rank)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    exchange(buf, size, n, rank);
    return MPI_Wtime() - t0;
}

/* PINGPONG_SYNC: rank 0 creates the file, both map it. */
static void sync_setup(int rank)
{
    char path[64] = "/tmp/pingpong.XXXXXX";
    int fd = rank == 0 ? mkstemp(path) : -1;
    if (rank == 0 && (fd < 0 || ftruncate(fd, 4096) != 0))
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 1)
        fd = open(path, O_RDWR);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(path);
    if (rank > 1)
        return;
    void *p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        MPI_Abort(MPI_COMM_WORLD, 2);
    replies = p;
    close(fd);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, nprocs;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (nprocs < 2) {
        fprintf(stderr, "pingpong: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *sync = getenv("PINGPONG_SYNC");
    if (sync && atoi(sync) == 1)
        sync_setup(rank);
    const char *tr = getenv("PINGPONG_TRIALS");
    int trials = tr && atoi(tr) > 1 ? atoi(tr) : 1;
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    static const int default_sizes[] = {1, 1024, 65536};
    int nsizes = argc > 2 ? argc - 2 : 3;
    for (int s = 0; s < nsizes; s++) {
        int size = argc > 2 ? atoi(argv[2 + s]) : default_sizes[s];
        int reps = size > 1024 ? (int)((long)n * 1024 / size) : n;
        if (reps < 200)
            reps = 200;
        char *buf = calloc((size_t)size + 1, 1);
        round_trips(buf, size, reps / 10 + 1, rank); /* warm-up */
        double t = round_trips(buf, size, reps, rank);
        for (int k = 1; k < trials; k++) {
            double tk = round_trips(buf, size, reps, rank);
            t = tk < t ? tk : t;
        }
        if (rank == 0)
            printf("pingpong %d %.3f %.2f\n", size, t / reps * 1e6, 2.0 * size * reps / t / 1e6);
        free(buf);
    }
    MPI_Finalize();
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        printf("rss %d %ld\n", rank, ru.ru_maxrss);
    return 0;
}
