/* progress.h -- the progress engine. Every blocking call (Wait, Recv, Probe,
 * collectives, ...) loops on toympi_progress(1); every testing call (Test,
 * Iprobe, ...) calls toympi_progress(0) once. Progress performs transport
 * I/O, which in turn runs the protocol handlers (matching, rendezvous
 * replies, request completion). There are no progress threads. */
#ifndef TOYMPI_PROGRESS_H
#define TOYMPI_PROGRESS_H

#include "toympi_internal.h"

/* blocking: may sleep in poll() until something happens (bounded wait) */
int toympi_progress(int blocking) TOYMPI_HIDDEN;

#endif
