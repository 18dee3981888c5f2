/* progress.c -- the progress engine and the delivery of engine events (see progress.h) */
#include "progress.h"

#include "events.h"
#include "transport.h"

#define TOYMPI_PROGRESS_POLL_MS 100

/* Deliver the engine's buffered MPI_T events (and the API source's, for registrations
 * that asked for buffering ("mpitev_buffered" = "true"); the API source delivers at once
 * by default). This is the only drain in the toy, so the callback safety level is
 * decided here, for every caller alike:
 * - MPITEV_CB_REQUIRE_NONE normally. It is called only between transport polls (no
 *   frame is half-read, every queue is consistent and nothing internal is held); every
 *   caller of toympi_progress_poll re-checks its own condition after it returns and
 *   keeps no pointer a nested MPI call could invalidate. So tool code may call MPI: that
 *   re-enters toympi_progress_poll, whose nested drain returns at once (one drainer per
 *   source); the outer drain then delivers what the nested call raised, in order.
 * - MPITEV_CB_REQUIRE_MPI_RESTRICTED once MPI_Finalize has started its shutdown
 *   (toympi_g.finalizing: its barrier, then the drain after the teardown): MPI is no
 *   longer usable. MPI_Finalize's first call, before that, is still at NONE.
 * MPITEV_ANY_DRAIN_DUE is one inline check for both sources (a load of one global word
 * and an untaken branch: is any source's drain due?); each MPITEV_DRAIN then checks its
 * own source. With nobody buffering and nothing left to do, the level and the in_tool
 * count are not even computed; built with -DMPITEV_DISABLE it is 0 and MPITEV_DRAIN
 * nothing, so the message path then has no event code at all. */
/* The API source holds records only from API-level raises (an MPI call's own, or one a
 * callback made): it is drained only when one was made since its last drain
 * (toympi_g.api_raised, set by TOYMPI_API_RAISE), not at every exit of a call that
 * raises none (MPI_Recv, say: 12 instructions per message with a tool attached). The
 * flag is cleared by the outermost drain only (no tool code running: in_tool is 1 with
 * this drain's own count): a drain nested in a callback may find the source claimed by
 * the drain it is nested in and leave records, which the next drain then takes. */
static TOYMPI_EV_NOINLINE void drain_api(int cb_safety) /* (out of line: drain_events keeps its code) */
{
    if (toympi_g.in_tool == 1)
        toympi_g.api_raised = 0;
    MPITEV_DRAIN(&toympi_events_src_api, MPITEV_DRAIN_ALL, cb_safety);
}

/* A word of its own rather than a test of finalizing: one load, which the drain loads
 * again after the engine's drain instead of keeping it in a saved register (3
 * instructions per drain with a tool: drain_events 18 -> 15, measured). */
static int drain_level(void)
{
    return toympi_g.drain_level;
}

static void drain_events(void)
{
    if (MPITEV_ANY_DRAIN_DUE()) {
        toympi_g.in_tool++; /* callbacks run inside the library: MPI_Finalize/MPI_Init refuse them */
        MPITEV_DRAIN(&toympi_events_src_engine, MPITEV_DRAIN_ALL, drain_level());
        if (toympi_g.api_raised) /* (after the engine's: its callbacks may raise some) */
            drain_api(drain_level()); /* (loaded again: no saved register for it) */
        toympi_g.in_tool--;
    }
}

void toympi_progress_finalizing(void)
{
    toympi_g.finalizing = 1;
    toympi_g.drain_level = MPITEV_CB_REQUIRE_MPI_RESTRICTED;
}

void toympi_progress_api_exit(void)
{
    if (toympi_g.api_raised && MPITEV_ANY_DRAIN_DUE()) {
        toympi_g.in_tool++;
        drain_api(drain_level());
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
