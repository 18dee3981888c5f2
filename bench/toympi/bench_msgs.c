/* The toy MPI's message path, for bench/toympi/measure.sh. Built with the toy's mpicc,
 * against a toy with events compiled in and against one built with -DMPITEV_DISABLE.
 *
 *   bench_msgs unexpected K [tool]   after a warm-up of the same kind (4 messages, tags
 *                                    3 and 4), rank 0 sends K one-int messages (tag 1),
 *                                    then one on tag 2; rank 1 receives the tag-2 message first
 *                                    (so the K messages have all arrived and sit in the
 *                                    unexpected queue: the connection is FIFO), then the
 *                                    K messages. measure.sh runs rank 1 under callgrind
 *                                    for two K and takes the difference per message.
 *   bench_msgs pingpong N R [tool]   R repeats of N one-int round trips; rank 0 prints
 *                                    each repeat's time per round trip in ns.
 *
 * "tool": after MPI_Init the program is also a tool that uses only the standard MPI_T
 * API: it allocates a handle on every event type for MPI_COMM_WORLD and registers an
 * empty callback, at MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE (callable anywhere). Rank 1
 * prints "events N dropped D" on stderr: callbacks run and instances reported dropped. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long n_events, n_dropped;

static void on_event(MPI_T_event_instance e, MPI_T_event_registration h, MPI_T_cb_safety s, void *u) {
    (void)e, (void)h, (void)s, (void)u;
    n_events++;
}
static void on_dropped(MPI_Count count, MPI_T_event_registration h, int source_index, MPI_T_cb_safety s,
                       void *u) {
    (void)h, (void)source_index, (void)s, (void)u;
    n_dropped += (unsigned long)count;
}

static void attach_tool(void) {
    int provided, num;
    MPI_Comm comm = MPI_COMM_WORLD;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS || MPI_T_event_get_num(&num) != MPI_SUCCESS) {
        fprintf(stderr, "bench_msgs: MPI_T unavailable\n");
        exit(2);
    }
    for (int i = 0; i < num; i++) {
        MPI_T_event_registration h;
        int bind = -1;
        if (MPI_T_event_get_info(i, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &bind) !=
                MPI_SUCCESS || bind != MPI_T_BIND_MPI_COMM)
            continue; /* the window-bound types: the benchmark has no window */
        if (MPI_T_event_handle_alloc(i, &comm, MPI_INFO_NULL, &h) != MPI_SUCCESS ||
            MPI_T_event_set_dropped_handler(h, on_dropped) != MPI_SUCCESS ||
            MPI_T_event_register_callback(h, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, NULL, on_event) !=
                MPI_SUCCESS) {
            fprintf(stderr, "bench_msgs: registering on event type %d failed\n", i);
            exit(2);
        }
    }
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_msgs unexpected K [tool] | pingpong N R [tool]\n");
        return 2;
    }
    int pingpong = strcmp(argv[1], "pingpong") == 0;
    long k = atol(argv[2]);
    int reps = pingpong && argc > 3 ? atoi(argv[3]) : 1;
    int tool = strcmp(argv[argc - 1], "tool") == 0;
    MPI_Init(&argc, &argv);
    if (tool) attach_tool();
    int rank, v = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (!pingpong) {
        /* Warm-up, the same pattern with a few messages (tags 3 and 4): every event type
         * of the measured path is raised and drained once before the burst, so that the
         * engine source's delivery cache is filled before it. Without it the first
         * drains with a tool (the general drain, filling the cache) took a number of
         * records that depended on how much of the burst had arrived by then, which moved
         * the difference of the two runs by up to 14 instructions per message. The
         * barrier keeps the burst out of the warm-up's drains. */
        if (rank == 0) {
            for (int i = 0; i < 4; i++) MPI_Send(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD);
            MPI_Send(&v, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(&v, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < 4; i++) MPI_Recv(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* the burst starts after the warm-up's drains */
        if (rank == 0) {
            for (long i = 0; i < k; i++) MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
            MPI_Send(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        } else if (rank == 1) {
            MPI_Recv(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (long i = 0; i < k; i++) MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = now_ns();
            for (long i = 0; i < k; i++) {
                if (rank == 0) {
                    MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank == 1) {
                    MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
                }
            }
            if (rank == 0) printf("%.1f\n", (now_ns() - t0) / (double)k);
        }
    }
    MPI_Finalize();
    if (tool && rank == 1) fprintf(stderr, "events %lu dropped %lu\n", n_events, n_dropped);
    return 0;
}
