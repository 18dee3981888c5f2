/* test_early_arrival.c -- a message that arrives before its receiver has created the
 * communicator still reaches registrations bound to that communicator once it exists
 * (docs/event-catalogue.md, "Semantics"). Standard MPI_T API only. Needs 2 ranks.
 *
 * Rank 1 delays the end of its MPI_Comm_dup: a callback on MPI_COMM_WORLD's
 * message_arrived (the dup's collective traffic is bound to the parent) sleeps once,
 * inside the dup, while rank 0 has already returned from it and sent a message on the
 * new communicator, then makes progress (MPI_Iprobe on MPI_COMM_WORLD): rank 1 reads
 * that message before the communicator exists there. Rank 1 then registers on the new communicator, as a tool following
 * communicators does, and posts the receive: message_arrived and unexpected_insert of
 * that message are delivered to it, with the same seq, before the unexpected search
 * that matches it. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <mpi.h>

#include <string.h>
#include <time.h>

#include "toympi_check.h"

static int event_index(const char *name)
{
    int idx = -1;
    MPI_OK(MPI_T_event_get_index(name, &idx));
    return idx;
}

/* element value by name (all read here are int32 or uint64, stored as int64) */
static long long read_elem(MPI_T_event_instance inst, const char *event, const char *elem)
{
    MPI_Datatype dt[16];
    MPI_Aint disp[16];
    int num = 16;
    MPI_T_enum e;
    MPI_OK(MPI_T_event_get_info(event_index(event), NULL, NULL, NULL, dt, disp, &num, &e, NULL,
                                NULL, NULL, NULL));
    for (int i = 0; i < num; i++) {
        char name[32];
        int len = (int)sizeof name, value = -1;
        MPI_OK(MPI_T_enum_get_item(e, i, &value, name, &len));
        if (strcmp(name, elem) != 0)
            continue;
        unsigned char buf[8] = {0};
        MPI_OK(MPI_T_event_read(inst, i, buf));
        if (dt[i] == MPI_INT32_T) {
            int v;
            memcpy(&v, buf, 4);
            return v;
        }
        long long v;
        memcpy(&v, buf, 8);
        return v;
    }
    return -999;
}

static int stall_armed;
static void stall(MPI_T_event_instance i, MPI_T_event_registration h, MPI_T_cb_safety s, void *ud)
{
    (void)i; (void)h; (void)s; (void)ud;
    if (stall_armed) {
        stall_armed = 0;
        nanosleep(&(struct timespec){0, 300 * 1000 * 1000}, NULL);
        /* rank 0 has sent by now: read it (progress, re-entered at NONE) while the dup
         * is still in its collective here */
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
}

/* what rank 1 sees on the new communicator, in delivery order */
static char order[16];
static int norder;
static long long arrived_seq = -1, inserted_seq = -1, arrived_tag = -1;
static void on_event(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety s,
                     void *ud)
{
    (void)h; (void)s;
    char what = *(const char *)ud;
    if (norder < (int)sizeof order - 1)
        order[norder++] = what;
    if (what == 'a') {
        arrived_seq = read_elem(inst, "message_arrived", "seq");
        arrived_tag = read_elem(inst, "message_arrived", "tag");
    } else if (what == 'i') {
        inserted_seq = read_elem(inst, "unexpected_insert", "seq");
    }
}

int main(int argc, char **argv)
{
    int provided;
    check_init(&argc, &argv);
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    MPI_Comm world = MPI_COMM_WORLD, dup;
    MPI_T_event_registration st;
    if (check_rank == 1) {
        MPI_OK(MPI_T_event_handle_alloc(event_index("message_arrived"), &world, MPI_INFO_NULL, &st));
        MPI_OK(MPI_T_event_register_callback(st, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, stall));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    stall_armed = 1;
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    int x = 42, y = 0;
    if (check_rank == 0) {
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 1, 77, dup));
    } else if (check_rank == 1) {
        CHECK_EQ_INT(stall_armed, 0); /* the stall happened inside the dup */
        static const char kinds[3] = {'a', 'i', 's'};
        static const char *names[3] = {"message_arrived", "unexpected_insert", "search_unexpected_end"};
        MPI_T_event_registration r[3];
        for (int k = 0; k < 3; k++) {
            MPI_OK(MPI_T_event_handle_alloc(event_index(names[k]), &dup, MPI_INFO_NULL, &r[k]));
            MPI_OK(MPI_T_event_register_callback(r[k], MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE,
                                                 MPI_INFO_NULL, (void *)&kinds[k], on_event));
        }
        MPI_OK(MPI_Recv(&y, 1, MPI_INT, 0, 77, dup, MPI_STATUS_IGNORE));
        CHECK_EQ_INT(y, 42);
        CHECK_EQ_INT(strcmp(order, "ais"), 0); /* arrival, insert, then the search */
        CHECK_EQ_INT(arrived_tag, 77);
        CHECK(arrived_seq > 0);
        CHECK_EQ_INT(inserted_seq, arrived_seq);
        for (int k = 0; k < 3; k++)
            MPI_OK(MPI_T_event_handle_free(r[k], NULL, NULL));
        MPI_OK(MPI_T_event_handle_free(st, NULL, NULL));
    }
    MPI_OK(MPI_Comm_free(&dup));
    MPI_OK(MPI_T_finalize());
    return check_finish("test_early_arrival");
}
