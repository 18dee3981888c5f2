/* progress.c -- the progress engine and the delivery of engine events (see progress.h) */
#include "progress.h"

#include "events.h"
#include "transport.h"

#define TOYMPI_PROGRESS_POLL_MS 100

/* Deliver the engine's buffered MPI_T events, then the API source's (registrations that
 * asked for buffering, "mpitev_buffered" = "true"; the engine's callbacks may raise some
 * too). This is the only drain in the toy, so the callback safety level is decided here,
 * for every caller alike:
 * - MPITEV_CB_REQUIRE_NONE normally. It is called only between transport polls (no
 *   frame is half-read, every queue is consistent and nothing internal is held); every
 *   caller of toympi_progress_poll re-checks its own condition after it returns and
 *   keeps no pointer a nested MPI call could invalidate. So tool code may call MPI: that
 *   re-enters toympi_progress_poll, whose nested drain returns at once (one drainer per
 *   source); the outer drain then delivers what the nested call raised, in order.
 * - MPITEV_CB_REQUIRE_MPI_RESTRICTED once MPI_Finalize has started its shutdown
 *   (toympi_g.finalizing: its barrier, then the drain after the teardown): MPI is no
 *   longer usable. MPI_Finalize's first call, before that, is still at NONE.
 * With no tool attached, MPITEV_ANY_DRAIN_DUE() is 0 (one load of a global word) and
 * nothing else runs; built with -DMPITEV_DISABLE it is the constant 0. */
static void drain_events(void)
{
    if (MPITEV_ANY_DRAIN_DUE()) {
        int level = toympi_g.finalizing ? MPITEV_CB_REQUIRE_MPI_RESTRICTED
                                        : MPITEV_CB_REQUIRE_NONE;
        toympi_g.in_tool++; /* callbacks run inside the library: MPI_Init/_Finalize refuse them */
        MPITEV_DRAIN(&toympi_events_src_engine, MPITEV_DRAIN_ALL, level);
        MPITEV_DRAIN(&toympi_events_src_api, MPITEV_DRAIN_ALL, level);
        toympi_g.in_tool--;
    }
}

int toympi_progress_poll(toympi_progress_level_t level)
{
    int n = 0;
    if (level != TOYMPI_PROGRESS_EXIT) {
        n = toympi_transport_poll(level == TOYMPI_PROGRESS_WAIT ? TOYMPI_PROGRESS_POLL_MS : 0);
        /* keep going while there is work, so one call makes real progress; the transport
         * reads a burst in slices (transport.c), and the events of each slice are
         * delivered before the next is read, so the engine's ring never has to hold a
         * whole burst */
        int k;
        while (n < 1000 && (k = toympi_transport_poll(0)) > 0) {
            n += k;
            drain_events();
        }
    }
    drain_events();
    return n;
}
