/* progress.h -- the progress engine, and the one place where MPI_T events raised
 * by the engine reach tool code. There are no progress threads: progress happens
 * when an MPI call asks for it, and every MPI call that may have entered the
 * engine leaves through toympi_progress_poll, so every event is delivered before
 * the MPI call that raised it returns. Progress performs transport I/O, which in
 * turn runs the protocol handlers (matching, rendezvous replies, request
 * completion). */
#ifndef TOYMPI_PROGRESS_H
#define TOYMPI_PROGRESS_H

#include "toympi_internal.h"

/* How much toympi_progress_poll does before it delivers the buffered events. */
typedef enum {
    /* No I/O, only deliver. At the exit of an MPI call that entered the engine
     * without polling: an eager send completes at once, a receive may match a
     * message already in the unexpected queue, a collective ends with such sends
     * (MPI_Send/Ssend/Isend/Issend/Recv/Irecv/Sendrecv, MPI_Cancel, the end of
     * every collective, MPI_Comm_dup/_split). Also after a call's last API-level
     * event (coll_end, comm_create, comm_free, cancel, request_free), for the
     * registrations that buffer it, and in MPI_Finalize, before its barrier and
     * after the teardown. Without it those events would wait for the next progress
     * call, and a tool freeing its registration meanwhile would get them as
     * dropped. */
    TOYMPI_PROGRESS_EXIT = 0,
    /* One non-blocking round of I/O: testing calls (Test, Testall, Iprobe) make
     * progress once and return. */
    TOYMPI_PROGRESS_TEST = 1,
    /* Poll for up to 100 ms (bounded, so callers re-check their condition):
     * blocking calls (Wait*, Recv, Probe, collectives through
     * toympi_request_wait) loop on it until their condition holds. */
    TOYMPI_PROGRESS_WAIT = 2
} toympi_progress_level_t;

/* Returns the number of frames sent or received (0 for TOYMPI_PROGRESS_EXIT).
 * Callers re-check their own condition after it returns and keep no pointer a
 * nested MPI call could invalidate: tool callbacks run here and may call MPI
 * (see progress.c for the callback safety level). */
int toympi_progress_poll(toympi_progress_level_t level) TOYMPI_HIDDEN;

#endif
