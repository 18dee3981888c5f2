/* test_api_drain.c -- buffered API-level events are delivered by the return of the MPI
 * call that raised them: the toy drains its API source at each call's exit while its
 * drain is due (progress.c). Checked through the standard MPI_T API only. Needs 2 ranks.
 *
 * 1. toympi_coll_begin / toympi_coll_end on MPI_COMM_WORLD, registered buffered ("mpitev_buffered" =
 *    "true"): both delivered when MPI_Barrier returns; a point-to-point exchange after
 *    it (no API-level event) delivers nothing more; a second barrier two more.
 * 2. A raise from a callback: rank 1's message_arrived callback (an engine event,
 *    delivered by the progress engine's drain) cancels a pending receive, which raises
 *    request_cancel on the API source (registered buffered): delivered by the return of
 *    the MPI_Recv whose progress ran that callback. */
#include <mpi.h>

#include <string.h>

#include "toympi_check.h"

static int event_index(const char *name)
{
    int idx = -1;
    MPI_OK(MPI_T_event_get_index(name, &idx));
    return idx;
}

static long count[3];
static void on_count(MPI_T_event_instance i, MPI_T_event_registration h, MPI_T_cb_safety s, void *ud)
{
    (void)i; (void)h; (void)s;
    (*(long *)ud)++;
}

static MPI_T_event_registration alloc_buffered(const char *event, MPI_Comm comm, long *counter)
{
    MPI_Info info;
    MPI_T_event_registration r;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "mpitev_buffered", "true"));
    MPI_OK(MPI_T_event_handle_alloc(event_index(event), &comm, info, &r));
    MPI_OK(MPI_Info_free(&info));
    MPI_OK(MPI_T_event_register_callback(r, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, counter, on_count));
    return r;
}

static MPI_Request pending;
static int cancels_made;
static void on_arrival(MPI_T_event_instance i, MPI_T_event_registration h, MPI_T_cb_safety s, void *ud)
{
    (void)i; (void)h; (void)ud;
    if (s == MPI_T_CB_REQUIRE_NONE && !cancels_made) { /* the first arrival (a barrier's, say) */
        cancels_made = 1;
        MPI_OK(MPI_Cancel(&pending));
    }
}

int main(int argc, char **argv)
{
    int provided;
    check_init(&argc, &argv);
    MPI_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    int peer = 1 - check_rank, x = check_rank, y = -1;

    /* 1. a collective's own events */
    MPI_T_event_registration rb = alloc_buffered("toympi_coll_begin", MPI_COMM_WORLD, &count[0]);
    MPI_T_event_registration re = alloc_buffered("toympi_coll_end", MPI_COMM_WORLD, &count[1]);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_EQ_INT(count[0], 1);
    CHECK_EQ_INT(count[1], 1);
    MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, peer, 1, &y, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_EQ_INT(y, peer);
    CHECK_EQ_INT(count[0], 1);
    CHECK_EQ_INT(count[1], 1);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_EQ_INT(count[0], 2);
    CHECK_EQ_INT(count[1], 2);
    MPI_OK(MPI_T_event_handle_free(rb, NULL, NULL));
    MPI_OK(MPI_T_event_handle_free(re, NULL, NULL));

    /* 2. an API-level event raised by a callback of the engine's drain */
    MPI_T_event_registration rc = alloc_buffered("request_cancel", MPI_COMM_WORLD, &count[2]);
    MPI_T_event_registration ra;
    MPI_Comm world = MPI_COMM_WORLD;
    if (check_rank == 1) {
        MPI_OK(MPI_Irecv(&y, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, &pending)); /* never sent */
        MPI_OK(MPI_T_event_handle_alloc(event_index("message_arrived"), &world, MPI_INFO_NULL, &ra));
        MPI_OK(MPI_T_event_register_callback(ra, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, on_arrival));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (check_rank == 0) {
        MPI_OK(MPI_Send(&x, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
    } else {
        MPI_OK(MPI_Recv(&y, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CHECK_EQ_INT(cancels_made, 1);
        CHECK_EQ_INT(count[2], 1); /* delivered by MPI_Recv's return */
        MPI_Status st;
        int cancelled = 0;
        MPI_OK(MPI_Wait(&pending, &st));
        MPI_OK(MPI_Test_cancelled(&st, &cancelled));
        CHECK(cancelled);
        MPI_OK(MPI_T_event_handle_free(ra, NULL, NULL));
    }
    MPI_OK(MPI_T_event_handle_free(rc, NULL, NULL));

    MPI_OK(MPI_T_finalize());
    MPI_Finalize();
    return check_failures ? 1 : 0;
}
