/* unexp.c -- the unexpected-message path of an MPI, for instruction counts (callgrind on
 * rank 1) and wall time. Standard MPI and MPI_T only: the same source builds against
 * every MPICH variant of integrations/mpich.
 *
 * usage: mpiexec -n 2 unexp K [none|cb2|cball]
 *   Rank 1 sleeps while rank 0 sends K small messages (tags 0..K-1; rank 0's sends wait
 *   for shared-memory cells as needed), then both enter MPI_Barrier, in which rank 1's
 *   progress engine moves all K into its unexpected queue; rank 1 then receives them in
 *   send order (each found at the head of the queue). bench_pattern() is that whole
 *   exchange: run callgrind with --toggle-collect=bench_pattern, and the difference of two
 *   runs with different K, divided by the difference of K, is the cost of one message on
 *   the unexpected path (arrival, queueing, matching, copy, plus whatever event code
 *   each build has), without MPI_Init / MPI_Finalize.
 *   none:  no tool. cb2: an empty callback on MPICH's two original event types
 *   (unexp_message_enqueued / _dequeued, the only ones stock MPICH has). cball: an empty
 *   callback on every event type (bound types on MPI_COMM_WORLD).
 * usage: mpiexec -n 2 unexp pingpong N
 *   N round trips of an 8-byte message; rank 0 prints the time per round trip (us). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void empty_cb(MPI_T_event_instance e, MPI_T_event_registration r, MPI_T_cb_safety s, void *u)
{
    (void)e, (void)r, (void)s, (void)u;
}

static int attach(int all)
{
    int n = 0, attached = 0;
    MPI_Comm world = MPI_COMM_WORLD;
    if (MPI_T_event_get_num(&n) != MPI_SUCCESS)
        return 0;
    for (int i = 0; i < n; i++) {
        char name[128], desc[1024];
        int len = (int)sizeof name, dlen = (int)sizeof desc, verb = 0, bind = 0, num = 0;
        MPI_T_enum e;
        MPI_T_event_registration h;
        MPI_Info info;
        /* stock MPICH's binding rejects NULL OUT arguments: pass them all */
        MPI_Datatype dt[32];
        MPI_Aint disp[32];
        num = 32;
        if (MPI_T_event_get_info(i, name, &len, &verb, dt, disp, &num, &e, &info, desc, &dlen,
                                 &bind) != MPI_SUCCESS)
            continue;
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        if (!all && strcmp(name, "unexp_message_enqueued") != 0 &&
            strcmp(name, "unexp_message_dequeued") != 0)
            continue;
        if (MPI_T_event_handle_alloc(i, bind == MPI_T_BIND_MPI_COMM ? (void *)&world : NULL,
                                     MPI_INFO_NULL, &h) != MPI_SUCCESS)
            continue;
        if (MPI_T_event_register_callback(h, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL,
                                          NULL, empty_cb) == MPI_SUCCESS)
            attached++;
    }
    return attached;
}

static char buf[64];

__attribute__((noinline)) void bench_pattern(int rank, int k)
{
    if (rank == 0) {
        for (int i = 0; i < k; i++)
            MPI_Send(buf, 8, MPI_BYTE, 1, i, MPI_COMM_WORLD);
    } else {
        struct timespec ts = {0, 300000000};
        nanosleep(&ts, NULL); /* no polling while rank 0 fills the cells */
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        for (int i = 0; i < k; i++)
            MPI_Recv(buf, 8, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int provided, rank;
    if (argc < 2)
        return 2;
    if (strcmp(argv[1], "pingpong") == 0) {
        long n = argc > 2 ? atol(argv[2]) : 100000;
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        for (int pass = 0; pass < 2; pass++) { /* the first pass warms up */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (long i = 0; i < n; i++) {
                if (rank == 0) {
                    MPI_Send(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                    MPI_Recv(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
                }
            }
            double t = MPI_Wtime() - t0;
            if (pass == 1 && rank == 0)
                printf("pingpong %.4f us\n", t / (double)n * 1e6);
        }
        MPI_Finalize();
        return 0;
    }
    int k = atoi(argv[1]);
    const char *mode = argc > 2 ? argv[2] : "none";
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int attached = strcmp(mode, "none") == 0 ? 0 : attach(strcmp(mode, "cball") == 0);
    bench_pattern(rank, 8); /* warm up: first-use allocations out of the measured run */
    bench_pattern(rank, k);
    if (rank == 1)
        printf("unexp: K=%d mode=%s callbacks=%d\n", k, mode, attached);
    MPI_Finalize();
    MPI_T_finalize();
    return 0;
}
