/* progress.c -- the progress engine (see progress.h) */
#include "progress.h"

#include "transport.h"

#define TOYMPI_PROGRESS_POLL_MS 100

int toympi_progress(int blocking)
{
    int n = toympi_transport_poll(blocking ? TOYMPI_PROGRESS_POLL_MS : 0);
    /* keep draining while there is work, so one call makes real progress */
    int k;
    while (n < 1000 && (k = toympi_transport_poll(0)) > 0)
        n += k;
    return n;
}
