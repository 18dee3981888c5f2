/* unexp.c -- the unexpected-message path of an MPI, for instruction counts (callgrind on
 * rank 1) and wall time. Standard MPI and MPI_T only: the same source builds against
 * every MPICH variant of integrations/mpich.
 *
 * usage: mpiexec -n 2 unexp K [none|cb2|cball]
 *   Rank 1 waits, making no progress, until rank 0 has sent K small messages (tags
 *   0..K-1, into shared-memory cells), then both enter MPI_Barrier, in which rank 1's
 *   progress engine moves all K into its unexpected queue; rank 1 then receives them in
 *   send order (each found at the head of the queue). bench_pattern() is the barrier and
 *   the receives: run callgrind with --toggle-collect=bench_pattern, and the difference of two
 *   runs with different K, divided by the difference of K, is the cost of one message on
 *   the unexpected path (arrival, queueing, matching, copy, plus whatever event code
 *   each build has), without MPI_Init / MPI_Finalize.
 *   none:  no tool. cb2: an empty callback on MPICH's two original event types
 *   (unexp_message_enqueued / _dequeued, the only ones stock MPICH has). cball: an empty
 *   callback on every event type (bound types on MPI_COMM_WORLD).
 * usage: mpiexec -n 2 unexp K MODE net
 *   The same through the network module (run with MPIR_CVAR_NOLOCAL=1): rank 1 probes
 *   for the last message first, unmeasured; bench_recvs() is only the K receives.
 * usage: mpiexec -n 2 unexp pingpong N
 *   N round trips of an 8-byte message; rank 0 prints the time per round trip (us).
 * usage: mpiexec -n 2 unexp rma K [none|cball]
 *   One-sided: rank 1, in a lock_all epoch on a window MPI_Win_allocate made over
 *   MPI_COMM_WORLD (shared memory between the two ranks), makes K rounds
 *   of an 8-byte MPI_Put and an 8-byte MPI_Get to rank 0 and an MPI_Win_flush (so each
 *   round's operations complete within it). bench_rma() is the K rounds: run callgrind on
 *   rank 1 with --toggle-collect=bench_rma; (Ir(2K) - Ir(K)) / K is one round. cball: an
 *   empty callback on every type (window types on the window, the others on
 *   MPI_COMM_WORLD).
 * Open MPI 4.1 (bench/openmpi/run.sh) builds the same source: -DUNEXP_NO_MPIT_EVENTS for
 * an MPI without MPI_T events (stock Open MPI 4.1, MPI-3.1: no tool modes), and
 * -DUNEXP_PERUSE for one configured --enable-peruse, which adds the mode
 * usage: mpiexec -n 2 unexp K peruse
 *   an empty PERUSE callback on every PERUSE event Open MPI supports, registered on
 *   MPI_COMM_WORLD and activated (ompi/peruse/peruse.h: the interface the MPI_T events
 *   paper replaced). */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(UNEXP_PERUSE)
#include <peruse.h>
#endif

static MPI_Win bench_win = MPI_WIN_NULL;

#if defined(UNEXP_NO_MPIT_EVENTS)
static int attach(int all)
{
    (void)all;
    return 0;
}
#else
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
        void *obj = bind == MPI_T_BIND_MPI_COMM ? (void *)&world
                    : bind == MPI_T_BIND_MPI_WIN ? (void *)&bench_win : NULL;
        if (bind == MPI_T_BIND_MPI_WIN && bench_win == MPI_WIN_NULL)
            continue;
        if (MPI_T_event_handle_alloc(i, obj, MPI_INFO_NULL, &h) != MPI_SUCCESS)
            continue;
        if (MPI_T_event_register_callback(h, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL,
                                          NULL, empty_cb) == MPI_SUCCESS)
            attached++;
    }
    return attached;
}
#endif

#if defined(UNEXP_PERUSE)
static int peruse_empty_cb(peruse_event_h h, MPI_Aint id, peruse_comm_spec_t *spec, void *param)
{
    (void)h, (void)id, (void)spec, (void)param;
    return MPI_SUCCESS;
}

/* An empty callback on every PERUSE event (the 17 of ob1's hooks), on MPI_COMM_WORLD,
 * active: the number of events registered. */
static int attach_peruse(void)
{
    int n = 0, attached = 0, *events = NULL;
    char **names = NULL;
    if (PERUSE_Init() != PERUSE_SUCCESS ||
        PERUSE_Query_supported_events(&n, &names, &events) != PERUSE_SUCCESS)
        return 0;
    for (int i = 0; i < n; i++) {
        int ev;
        peruse_event_h h;
        if (PERUSE_Query_event(names[i], &ev) != PERUSE_SUCCESS || ev >= PERUSE_CUSTOM_EVENT)
            continue; /* the list ends with PERUSE_CUSTOM_EVENT, a marker no site raises */
        if (PERUSE_Event_comm_register(ev, MPI_COMM_WORLD, peruse_empty_cb, NULL, &h) == PERUSE_SUCCESS &&
            PERUSE_Event_activate(h) == PERUSE_SUCCESS)
            attached++;
    }
    return attached;
}
#endif

static char buf[64];

/* Rank 0 sends all K messages before rank 1 polls at all: rank 1 waits, without making
 * progress, for a file rank 0 creates once its sends have returned (a fixed sleep was
 * not enough on a loaded machine: with part of the messages still to come, rank 1's
 * progress engine made extra empty polls, a different count every run). Both ranks are
 * children of the same hydra proxy, hence the path. Not measured: bench_pattern starts
 * after it. */
static void sent_flag(char *path, size_t n)
{
    snprintf(path, n, "/tmp/mpitev-unexp-%ld.sent", (long)getppid());
}

static void send_then_wait(int rank, int k)
{
    char path[64];
    sent_flag(path, sizeof path);
    if (rank == 0) {
        for (int i = 0; i < k; i++)
            MPI_Send(buf, 8, MPI_BYTE, 1, i, MPI_COMM_WORLD);
        FILE *f = fopen(path, "w");
        if (f)
            fclose(f);
    } else {
        struct timespec ts = {0, 20000000};
        for (int waited = 0; access(path, F_OK) != 0 && waited < 3000; waited++)
            nanosleep(&ts, NULL); /* no polling while rank 0 fills the cells */
        unlink(path);
    }
}

/* The measured part: the barrier, in which rank 1's progress engine moves all K
 * messages into its unexpected queue, and the K receives. */
__attribute__((noinline)) void bench_pattern(int rank, int k)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        for (int i = 0; i < k; i++)
            MPI_Recv(buf, 8, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

/* The network path's measured part (mode "net"): only the K receives. Through the
 * network module the messages reach rank 1 only as its progress engine reads them, as
 * many polls as timing makes it take; so rank 1 first probes for the last message
 * (MPI_Probe: with libfabric's tagged matching, a peek into the provider's unexpected
 * messages), unmeasured, and all K then wait, matched and copied by the provider when
 * the receives are posted. */
__attribute__((noinline)) void bench_recvs(int k)
{
    for (int i = 0; i < k; i++)
        MPI_Recv(buf, 8, MPI_BYTE, 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void exchange(int rank, int k, int net)
{
    send_then_wait(rank, k);
    if (!net) {
        bench_pattern(rank, k);
        return;
    }
    if (rank == 1) {
        MPI_Probe(0, k - 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bench_recvs(k);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The measured part of the one-sided benchmark (rank 1): K rounds of a put, a get and a
 * flush, in a lock_all epoch opened before. */
static int64_t rma_out, rma_in;
__attribute__((noinline)) void bench_rma(int k)
{
    for (int i = 0; i < k; i++) {
        MPI_Put(&rma_out, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, bench_win);
        MPI_Get(&rma_in, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, bench_win);
        MPI_Win_flush(0, bench_win);
    }
}

static int rma(int argc, char **argv)
{
    int provided, rank;
    int k = argc > 2 ? atoi(argv[2]) : 1000;
    const char *mode = argc > 3 ? argv[3] : "none";
    int64_t *base;
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* MPI_Win_allocate: shared memory between the two ranks, so the origin's put, get and
     * flush need nothing of the target's progress engine and the count does not depend
     * on when it polls (a window of MPI_Win_create's goes through active messages) */
    MPI_Win_allocate(16 * sizeof(int64_t), 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &bench_win);
    int attached = strcmp(mode, "cball") == 0 ? attach(1) : 0;
    MPI_Win_lock_all(0, bench_win);
    if (rank == 1) {
        bench_rma(8); /* warm up */
        bench_rma(k);
    }
    MPI_Win_unlock_all(bench_win);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        printf("rma: K=%d mode=%s callbacks=%d\n", k, mode, attached);
    MPI_Win_free(&bench_win);
    /* MPI_T_finalize first: Open MPI 4.1 crashes in an MPI_T_finalize after MPI_Finalize
     * (open-mpi/ompi#11485) */
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
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
    if (strcmp(argv[1], "rma") == 0)
        return rma(argc, argv);
    int k = atoi(argv[1]);
    const char *mode = argc > 2 ? argv[2] : "none";
    MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int net = argc > 3 && strcmp(argv[3], "net") == 0;
    int attached = strcmp(mode, "none") == 0 ? 0 : attach(strcmp(mode, "cball") == 0);
#if defined(UNEXP_PERUSE)
    if (strcmp(mode, "peruse") == 0)
        attached = attach_peruse();
#endif
    exchange(rank, 8, net); /* warm up: first-use allocations out of the measured run */
    exchange(rank, k, net);
    if (rank == 1)
        printf("unexp: K=%d mode=%s callbacks=%d\n", k, mode, attached);
    /* MPI_T_finalize first: Open MPI 4.1 crashes in an MPI_T_finalize after MPI_Finalize
     * (open-mpi/ompi#11485) */
    MPI_T_finalize();
    MPI_Finalize();
    return 0;
}
