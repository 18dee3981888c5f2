/* progress.c -- the progress engine (see progress.h) */
#include "progress.h"

#include "events.h"
#include "transport.h"

#define TOYMPI_PROGRESS_POLL_MS 100

int toympi_progress(int blocking)
{
    int n = toympi_transport_poll(blocking ? TOYMPI_PROGRESS_POLL_MS : 0);
    /* keep draining while there is work, so one call makes real progress */
    int k;
    while (n < 1000 && (k = toympi_transport_poll(0)) > 0)
        n += k;
    /* Deliver the engine's buffered MPI_T events. Here, after the transport returned,
     * no frame is half-read, every queue is consistent and nothing internal is held;
     * every caller of toympi_progress re-checks its own condition after it returns and
     * keeps no pointer a nested MPI call could invalidate. So tool code may run at
     * MPITEV_CB_REQUIRE_NONE and call MPI: that re-enters toympi_progress, whose nested
     * drain returns at once (one drainer per source); the outer drain then delivers
     * what the nested call raised, in order. Inside MPI_Finalize (its barrier) MPI is
     * no longer usable: MPI_RESTRICTED. */
    toympi_events_drain(toympi_g.finalizing ? MPITEV_CB_REQUIRE_MPI_RESTRICTED
                                            : MPITEV_CB_REQUIRE_NONE);
    return n;
}
