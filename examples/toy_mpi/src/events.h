/* events.h -- the places where toy_mpi will raise MPI_T events.
 *
 * Phase 1: every hook is an empty inline function, so the call sites in
 * protocol.c, request.c, coll.c and comm.c document exactly where each
 * state change happens. Phase 2 fills these in with mpitev raise calls,
 * binding each event to the communicator owning `context_id` (see
 * toympi_comm_by_context; collective traffic uses context_id+1). */
#ifndef TOYMPI_EVENTS_H
#define TOYMPI_EVENTS_H

#include "toympi_internal.h"

struct toympi_unexpected;

/* a message envelope (EAGER or RTS header) arrived from a peer */
static inline void toympi_ev_message_arrived(uint32_t context_id, int src, int tag, size_t bytes)
{ (void)context_id; (void)src; (void)tag; (void)bytes; }

/* search of the posted-receive queue for an arriving message */
static inline void toympi_ev_search_posted_begin(uint32_t context_id, int src, int tag)
{ (void)context_id; (void)src; (void)tag; }
static inline void toympi_ev_search_posted_end(uint32_t context_id, int src, int tag, int found)
{ (void)context_id; (void)src; (void)tag; (void)found; }

/* search of the unexpected-message queue for a newly posted receive */
static inline void toympi_ev_search_unexpected_begin(const toympi_request_t *r) { (void)r; }
static inline void toympi_ev_search_unexpected_end(const toympi_request_t *r, int found)
{ (void)r; (void)found; }

static inline void toympi_ev_posted_insert(const toympi_request_t *r) { (void)r; }
static inline void toympi_ev_posted_remove(const toympi_request_t *r) { (void)r; }
static inline void toympi_ev_unexpected_insert(const struct toympi_unexpected *u) { (void)u; }
static inline void toympi_ev_unexpected_remove(const struct toympi_unexpected *u) { (void)u; }

/* payload movement; is_send tells the side; rendezvous: via RTS/CTS */
static inline void toympi_ev_transfer_begin(const toympi_request_t *r, int is_send, int rendezvous)
{ (void)r; (void)is_send; (void)rendezvous; }
static inline void toympi_ev_transfer_end(const toympi_request_t *r, int is_send, int rendezvous)
{ (void)r; (void)is_send; (void)rendezvous; }

/* rendezvous handshake steps: 0 = RTS sent, 1 = RTS matched / CTS sent,
 * 2 = CTS received by the sender */
static inline void toympi_ev_rendezvous(uint32_t context_id, int step, int peer_world)
{ (void)context_id; (void)step; (void)peer_world; }

static inline void toympi_ev_cancel(const toympi_request_t *r, int cancelled)
{ (void)r; (void)cancelled; }
static inline void toympi_ev_request_free(const toympi_request_t *r) { (void)r; }

static inline void toympi_ev_coll_begin(const toympi_comm_t *c, const char *name)
{ (void)c; (void)name; }
static inline void toympi_ev_coll_end(const toympi_comm_t *c, const char *name)
{ (void)c; (void)name; }

static inline void toympi_ev_comm_create(const toympi_comm_t *c) { (void)c; }
static inline void toympi_ev_comm_free(const toympi_comm_t *c) { (void)c; }

#endif
