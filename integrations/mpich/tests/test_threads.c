/* test_threads.c -- MPICH + mpitev's MPI_T events under MPI_THREAD_MULTIPLE, one thread per
 * communicator: every instance raised reaches the tool or is reported dropped. Standard
 * MPI_T API only. Needs an even number of ranks.
 *
 * usage: mpiexec -n N test_threads T [K [S]]
 *   T threads per rank (default 2), each on its own duplicate of MPI_COMM_WORLD,
 *   exchanging K messages (default 2000) with the rank next to it (rank ^ 1) by
 *   MPI_Sendrecv. With MPIR_CVAR_CH4_NUM_VCIS > 1 (an MPICH configured
 *   --enable-thread-cs=per-vci) the communicators' traffic goes through different VCIs,
 *   whose event sources are different: S, the least number of sources the events must
 *   come from (default 1).
 *
 * The tool registers send_posted, recv_posted and request_complete on each thread's
 * communicator (one registration per type per thread) with a dropped handler, and counts.
 * Each thread raised exactly K send_posted, K recv_posted and 2K request_complete on its
 * communicator: for every type and every thread, delivered + reported dropped must equal
 * that. Each registration's instances come from one source (the communicator's VCI:
 * ordered, its timestamps never decrease). */
#include <mpi.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpit_check.h"

#define MAXT 8
enum { E_SEND, E_RECV, E_DONE, NE };
static const char *names[NE] = {"send_posted", "recv_posted", "request_complete"};
struct reg {
    MPI_T_event_registration h;
    long delivered, dropped, bad_source, ts_back;
    int source;
    MPI_Count last_ts;
};
static struct reg regs[MAXT][NE];
static MPI_Comm comms[MAXT];
static int kmsg = 2000;

/* A registration's callbacks run one at a time (one source, drained by one thread at a
 * time); the counters are its own. */
static void on_event(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety s,
                     void *ud)
{
    (void)h, (void)s;
    struct reg *r = ud;
    int src = -1;
    MPI_Count ts = 0;
    MPI_T_event_get_source(inst, &src);
    MPI_T_event_get_timestamp(inst, &ts);
    if (r->delivered == 0)
        r->source = src;
    else if (src != r->source)
        r->bad_source++;
    else if (ts < r->last_ts)
        r->ts_back++;
    r->last_ts = ts;
    r->delivered++;
}

static void on_dropped(MPI_Count n, MPI_T_event_registration h, int src, MPI_T_cb_safety s,
                       void *ud)
{
    (void)h, (void)src, (void)s;
    ((struct reg *)ud)->dropped += n;
}

static void *exchange(void *arg)
{
    MPI_Comm c = comms[(intptr_t)arg];
    int rank, peer;
    MPI_Comm_rank(c, &rank);
    peer = rank ^ 1;
    for (int n = 0; n < kmsg; n++) {
        int x = n, y = -1;
        MPI_Sendrecv(&x, 1, MPI_INT, peer, 5, &y, 1, MPI_INT, peer, 5, c, MPI_STATUS_IGNORE);
        CHECK_EQ(y, n);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int nt = argc > 1 ? atoi(argv[1]) : 2, provided, min_sources = 1;
    if (argc > 2)
        kmsg = atoi(argv[2]);
    if (argc > 3)
        min_sources = atoi(argv[3]);
    if (nt < 1 || nt > MAXT)
        nt = 2;
    T_OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_rank = rank;
    if (provided != MPI_THREAD_MULTIPLE || size % 2) {
        fprintf(stderr, "test_threads: needs MPI_THREAD_MULTIPLE and an even number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int idx[NE];
    for (int e = 0; e < NE; e++)
        T_OK(MPI_T_event_get_index(names[e], &idx[e]));
    for (int t = 0; t < nt; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
        for (int e = 0; e < NE; e++) {
            struct reg *r = &regs[t][e];
            T_OK(MPI_T_event_handle_alloc(idx[e], &comms[t], MPI_INFO_NULL, &r->h));
            T_OK(MPI_T_event_register_callback(r->h, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE,
                                               MPI_INFO_NULL, r, on_event));
            T_OK(MPI_T_event_set_dropped_handler(r->h, on_dropped));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    pthread_t th[MAXT];
    for (int t = 0; t < nt; t++)
        pthread_create(&th[t], NULL, exchange, (void *)(intptr_t)t);
    for (int t = 0; t < nt; t++)
        pthread_join(th[t], NULL);
    MPI_Barrier(MPI_COMM_WORLD); /* delivers what is left (the call's exit) */
    for (int t = 0; t < nt; t++)
        for (int e = 0; e < NE; e++)
            T_OK(MPI_T_event_handle_free(regs[t][e].h, NULL, NULL)); /* reports drops left */

    long total_dropped = 0;
    int nsources = 0, seen[64] = {0};
    for (int t = 0; t < nt; t++) {
        for (int e = 0; e < NE; e++) {
            struct reg *r = &regs[t][e];
            long want = e == E_DONE ? 2L * kmsg : kmsg;
            if (r->delivered + r->dropped != want)
                fprintf(stderr, "[rank %d] thread %d %s: %ld delivered + %ld dropped, %ld raised\n",
                        rank, t, names[e], r->delivered, r->dropped, want);
            CHECK_EQ(r->delivered + r->dropped, want);
            CHECK_EQ(r->bad_source, 0);
            CHECK_EQ(r->ts_back, 0);
            total_dropped += r->dropped;
            if (r->delivered && r->source >= 0 && r->source < 64 && !seen[r->source]++)
                nsources++;
        }
        MPI_Comm_free(&comms[t]);
    }
    if (nsources < min_sources)
        fprintf(stderr, "[rank %d] events from %d sources, expected at least %d\n", rank,
                nsources, min_sources);
    CHECK_EQ(nsources >= min_sources, 1);
    int mine = failures, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    T_OK(MPI_T_finalize());
    MPI_Finalize();
    if (rank == 0)
        printf("test_threads (%d ranks, %d threads, %d messages each): %s; rank 0: %ld reported "
               "dropped, events from %d source%s\n", size, nt, kmsg, total ? "FAILED" : "passed",
               total_dropped, nsources, nsources == 1 ? "" : "s");
    return failures ? 1 : 0;
}
