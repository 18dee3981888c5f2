/* tool.c - a tiny MPI_T tool and application in one program, using only the standard
 * API: it finds libmpi_events' two event types, prints their element names (through
 * MPI_T_enum), counts send/recv events on MPI_COMM_WORLD while the ranks pass a token
 * around a ring, and checks that every event arrived with the right content.
 *
 *   mpiexec -n 2 ./mpi_adapter_tool        (2 or more processes: MPICH's MPI_Send to
 *                                           oneself may wait for the receive)
 *
 * Exit 0 when every check passed. */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 3
#define TAG 7

static int failures;
#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "tool: %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                                    \
        }                                                                                  \
    } while (0)

/* What the callbacks saw. The payload is read element by element, in the datatypes
 * MPI_T_event_get_info reported (MPI_INT32_T, MPI_INT32_T, MPI_COUNT). */
typedef struct {
    int n;
    int32_t peer, tag;
    MPI_Count bytes;
} seen;

static void on_p2p(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety, void *ud) {
    (void)reg;
    (void)safety;
    seen *s = ud;
    s->n++;
    CHECK(MPI_T_event_read(inst, 0, &s->peer) == MPI_SUCCESS);
    CHECK(MPI_T_event_read(inst, 1, &s->tag) == MPI_SUCCESS);
    CHECK(MPI_T_event_read(inst, 2, &s->bytes) == MPI_SUCCESS);
}

/* Print an event type's elements by name, and check they are the ones we expect. */
static void describe(int index) {
    char name[64], ename[64], item[64];
    int len = sizeof name, num = 8, nitems = 0, elen = sizeof ename;
    MPI_Datatype types[8];
    MPI_T_enum names = MPI_T_ENUM_NULL;
    CHECK(MPI_T_event_get_info(index, name, &len, NULL, types, NULL, &num, &names, NULL, NULL, NULL, NULL) ==
          MPI_SUCCESS);
    CHECK(num == 3 && types[0] == MPI_INT32_T && types[2] == MPI_COUNT);
    CHECK(names != MPI_T_ENUM_NULL);
    CHECK(MPI_T_enum_get_info(names, &nitems, ename, &elen) == MPI_SUCCESS);
    CHECK(nitems == num);
    printf("  %s (elements, enum %s):", name, ename);
    static const char *const expect[] = { "peer", "tag", "bytes" };
    for (int i = 0; i < nitems && i < 3; i++) {
        int value = -1, ilen = sizeof item;
        CHECK(MPI_T_enum_get_item(names, i, &value, item, &ilen) == MPI_SUCCESS);
        CHECK(value == i && strcmp(item, expect[i]) == 0);
        printf(" %s", item);
    }
    printf("\n");
}

int main(int argc, char **argv) {
    int provided, rank, size;
    /* A tool may start MPI_T before MPI_Init; the events are there already. */
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS || MPI_Init(&argc, &argv) != MPI_SUCCESS) {
        fprintf(stderr, "tool: MPI_T_init_thread or MPI_Init failed\n");
        return 1;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "tool: run me with mpiexec -n 2 (or more)\n");
        MPI_Finalize();
        MPI_T_finalize();
        return 1;
    }

    int num = 0, i_send = -1, i_recv = -1;
    CHECK(MPI_T_event_get_num(&num) == MPI_SUCCESS && num == 2); /* MPICH alone says 0 */
    CHECK(MPI_T_event_get_index("example_send", &i_send) == MPI_SUCCESS);
    CHECK(MPI_T_event_get_index("example_recv", &i_recv) == MPI_SUCCESS);
    if (failures) {
        fprintf(stderr, "tool: the adapter's events are missing: is libmpi_events linked before -lmpich?\n");
        MPI_Finalize();
        MPI_T_finalize();
        return 1;
    }
    if (rank == 0) {
        printf("%d event types:\n", num);
        describe(i_send);
        describe(i_recv);
    }

    /* Registrations bound to MPI_COMM_WORLD: traffic on other communicators is not ours. */
    seen sends = { 0 }, recvs = { 0 };
    MPI_Comm world = MPI_COMM_WORLD;
    MPI_T_event_registration reg_send, reg_recv;
    CHECK(MPI_T_event_handle_alloc(i_send, &world, MPI_INFO_NULL, &reg_send) == MPI_SUCCESS);
    CHECK(MPI_T_event_handle_alloc(i_recv, &world, MPI_INFO_NULL, &reg_recv) == MPI_SUCCESS);
    CHECK(MPI_T_event_register_callback(reg_send, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &sends, on_p2p) ==
          MPI_SUCCESS);
    CHECK(MPI_T_event_register_callback(reg_recv, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &recvs, on_p2p) ==
          MPI_SUCCESS);

    /* A token passes around the ring ROUNDS times, then once more on a copy of
     * MPI_COMM_WORLD: raised there too, but not for our registrations. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int r = 0; r <= ROUNDS; r++) {
        MPI_Comm comm = r < ROUNDS ? MPI_COMM_WORLD : dup;
        int token[2] = { rank, r }, got[2] = { -1, -1 };
        if (rank == 0) {
            MPI_Send(token, 2, MPI_INT, next, TAG, comm);
            MPI_Recv(got, 2, MPI_INT, prev, TAG, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(got, 2, MPI_INT, prev, TAG, comm, MPI_STATUS_IGNORE);
            MPI_Send(token, 2, MPI_INT, next, TAG, comm);
        }
        CHECK(got[0] == prev && got[1] == r);
    }
    MPI_Comm_free(&dup);

    CHECK(sends.n == ROUNDS && recvs.n == ROUNDS);
    CHECK(sends.peer == next && recvs.peer == prev);
    CHECK(sends.tag == TAG && recvs.tag == TAG);
    CHECK(sends.bytes == 2 * (MPI_Count)sizeof(int) && recvs.bytes == sends.bytes);
    printf("rank %d: %d send and %d recv events on MPI_COMM_WORLD (last: to %d, from %d, %lld bytes)\n", rank,
           sends.n, recvs.n, (int)sends.peer, (int)recvs.peer, (long long)recvs.bytes);

    CHECK(MPI_T_event_handle_free(reg_send, NULL, NULL) == MPI_SUCCESS);
    CHECK(MPI_T_event_handle_free(reg_recv, NULL, NULL) == MPI_SUCCESS);
    MPI_Finalize();
    MPI_T_finalize();
    if (failures) fprintf(stderr, "tool: rank %d: %d check(s) failed\n", rank, failures);
    return failures ? 1 : 0;
}
