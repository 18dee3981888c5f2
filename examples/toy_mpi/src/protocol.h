/* protocol.h -- eager and rendezvous point-to-point protocol: what each
 * frame means. Matching an envelope or a new receive is matching.c's
 * (toympi_match_arrival, toympi_match_post); this file does the protocol
 * steps around it.
 *
 * Eager (bytes <= toympi_g.eager_limit, not synchronous): the sender copies
 * the payload into an EAGER frame and its request completes at once. The
 * receiver matches the envelope against the posted queue; unmatched
 * messages are buffered in the unexpected queue.
 *
 * Rendezvous (larger or MPI_Ssend): sender queues an RTS (envelope + size
 * + sender request id). The receiver matches the RTS like an eager envelope
 * and, once a receive is matched, answers CTS (sender id + receiver id).
 * The sender then streams a DATA frame straight from the user buffer into
 * the receive buffer; both requests complete when the data moved. */
#ifndef TOYMPI_PROTOCOL_H
#define TOYMPI_PROTOCOL_H

#include "toympi_internal.h"

void toympi_proto_start_send(toympi_request_t *r) TOYMPI_HIDDEN;
void toympi_proto_start_recv(toympi_request_t *r) TOYMPI_HIDDEN;
/* returns 1 if r was still unmatched and is now cancelled */
int toympi_proto_cancel_recv(toympi_request_t *r) TOYMPI_HIDDEN;
/* non-destructive search of the unexpected queue; fills st if found */
int toympi_proto_probe(uint32_t ctx, int src, int tag, MPI_Status *st) TOYMPI_HIDDEN;

#endif
