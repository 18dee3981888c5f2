/* test_internal_tag -- the catalogue's tag convention, through the standard MPI_T API,
 * on any MPI with mpitev inside (the toy, MPICH, Open MPI: each builds it with its own
 * mpicc): the application's messages and requests carry their tag, the MPI's own
 * (collectives, communicator construction) carry MPITEV_CATALOG_INTERNAL (-2), so a tool
 * counts the application's traffic exactly by tag >= 0 (docs/event-catalogue.md,
 * Conventions).
 *
 * Each rank sends NMSG messages with tag TAG to the next rank and receives NMSG from the
 * previous one, then runs collectives and an MPI_Comm_dup on MPI_COMM_WORLD, with
 * registrations on MPI_COMM_WORLD for every catalogue type with a tag element. Every
 * instance's tag must be TAG or -2; the counts with TAG are exact; with 2 ranks or more
 * the collectives' messages show up with -2. Argument "provider": the network matches
 * for the MPI (MPICH with libfabric's tagged messaging), so the matching family raises
 * nothing and only the request events are counted. */
#include <mpi.h>

#include <stdint.h>
#include <string.h>

#include "mpit_check.h"
enum { TAG = 7, NMSG = 3 };

static const char *names[] = {"message_arrived", "search_posted_begin", "search_posted_end",
                              "search_unexpected_begin", "search_unexpected_end", "posted_insert",
                              "posted_remove", "unexpected_insert", "unexpected_remove",
                              "send_posted", "recv_posted", "request_complete"};
enum { NT = sizeof names / sizeof names[0] };

struct reg {
    MPI_T_event_registration h;
    int tag_elem;
    long user, internal, other, dropped;
    int freed;
};
static struct reg regs[NT];

static void on_event(MPI_T_event_instance ev, MPI_T_event_registration h, MPI_T_cb_safety s,
                     void *ud)
{
    (void)h, (void)s;
    struct reg *r = ud;
    int32_t tag = 0;
    if (MPI_T_event_read(ev, r->tag_elem, &tag) != MPI_SUCCESS)
        r->other++;
    else if (tag == TAG)
        r->user++;
    else if (tag == -2)
        r->internal++;
    else
        r->other++;
}

static void on_dropped(MPI_Count count, MPI_T_event_registration h, int source_index,
                       MPI_T_cb_safety s, void *ud)
{
    (void)h, (void)source_index, (void)s;
    ((struct reg *)ud)->dropped += (long)count;
}

static void on_free(MPI_T_event_registration h, MPI_T_cb_safety s, void *ud)
{
    (void)h, (void)s;
    ((struct reg *)ud)->freed = 1;
}

/* The element named "tag" of the type: its index in the payload (the type's enum). */
static int tag_element(int index)
{
    MPI_T_enum e = MPI_T_ENUM_NULL;
    int n = 0;
    T_OK(MPI_T_event_get_info(index, NULL, NULL, NULL, NULL, NULL, NULL, &e, NULL, NULL, NULL,
                              NULL));
    T_OK(MPI_T_enum_get_info(e, &n, NULL, NULL));
    for (int i = 0; i < n; i++) {
        char name[32];
        int len = (int)sizeof name, value = -1;
        T_OK(MPI_T_enum_get_item(e, i, &value, name, &len));
        if (strcmp(name, "tag") == 0)
            return value;
    }
    return -1;
}

static void register_all(void)
{
    for (int i = 0; i < NT; i++) {
        int index = -1;
        T_OK(MPI_T_event_get_index(names[i], &index));
        regs[i].tag_elem = tag_element(index);
        CHECK(regs[i].tag_elem >= 0);
        MPI_Comm world = MPI_COMM_WORLD;
        T_OK(MPI_T_event_handle_alloc(index, &world, MPI_INFO_NULL, &regs[i].h));
        T_OK(MPI_T_event_set_dropped_handler(regs[i].h, on_dropped));
        T_OK(MPI_T_event_register_callback(regs[i].h, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE,
                                           MPI_INFO_NULL, &regs[i], on_event));
    }
}

/* Frees every registration and waits for its free callback, which runs after its last
 * delivery: the counts are final then. */
static void free_all(void)
{
    for (int i = 0; i < NT; i++)
        T_OK(MPI_T_event_handle_free(regs[i].h, &regs[i], on_free));
    for (int i = 0; i < NT; i++)
        while (!regs[i].freed) {
            int flag;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
        }
}

/* The registration of the type named name (one of names[]). */
static const struct reg *reg_named(const char *name)
{
    int i = 0;
    while (i < NT - 1 && strcmp(names[i], name) != 0)
        i++;
    return &regs[i];
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    const int provider = argc > 1 && strcmp(argv[1], "provider") == 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_rank = rank;
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    register_all();
    MPI_Barrier(MPI_COMM_WORLD); /* every rank listens before the first message is sent */

    int next = (rank + 1) % size, prev = (rank + size - 1) % size, out[NMSG], in[NMSG];
    MPI_Request req[2 * NMSG];
    for (int i = 0; i < NMSG; i++) {
        out[i] = rank * 100 + i;
        MPI_Irecv(&in[i], 1, MPI_INT, prev, TAG, MPI_COMM_WORLD, &req[i]);
    }
    for (int i = 0; i < NMSG; i++)
        MPI_Isend(&out[i], 1, MPI_INT, next, TAG, MPI_COMM_WORLD, &req[NMSG + i]);
    MPI_Status st[2 * NMSG]; /* not MPI_STATUSES_IGNORE: gcc 12 warns with MPICH's mpi.h */
    MPI_Waitall(2 * NMSG, req, st);
    for (int i = 0; i < NMSG; i++)
        CHECK_EQ(in[i], prev * 100 + i);

    int v = rank, sum = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ(sum, size * (size - 1) / 2);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_free(&dup);
    MPI_Barrier(MPI_COMM_WORLD);
    free_all();

    for (int i = 0; i < NT; i++) {
        CHECK_EQ(regs[i].other, 0);
        CHECK_EQ(regs[i].dropped, 0);
    }
    /* the application's traffic, exactly (a self message when size is 1) */
    CHECK_EQ(reg_named("message_arrived")->user, provider ? 0 : NMSG);
    CHECK_EQ(reg_named("send_posted")->user, NMSG);
    CHECK_EQ(reg_named("recv_posted")->user, NMSG);
    CHECK_EQ(reg_named("request_complete")->user, 2 * NMSG);
    /* the collectives' messages, marked internal */
    if (size > 1) {
        CHECK(provider ? reg_named("message_arrived")->internal == 0
                       : reg_named("message_arrived")->internal > 0);
        CHECK(reg_named("send_posted")->internal > 0);
        CHECK(reg_named("request_complete")->internal > 0);
    }
    T_OK(MPI_T_finalize());
    int mine = failures, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("test_internal_tag: %s (%d failed checks)\n", total ? "FAILED" : "passed", total);
    MPI_Finalize();
    return mine ? 1 : 0;
}
