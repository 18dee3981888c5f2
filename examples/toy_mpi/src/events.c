/* events.c -- toy_mpi's MPI_T event types and sources, declared with mpitev.
 *
 * What is raised where, and at which callback safety level, is in events.h. This file
 * only declares: two ordered sources and one event type per hook, each with a payload
 * struct checked member by member (MPITEV_ELEMENT_OF), a category, a description and an
 * MPI_T enum naming its elements. The MPI_T entry points are in mpit.c (the adapter). */
#include "events.h"

#include <stdio.h>

/* ------------------------------------------------------------------- sources */
mpitev_source toympi_events_src_api;
mpitev_source toympi_events_src_engine;
mpitev_type toympi_events_types[TOYMPI_EV_NUM_TYPES];

/* The engine raises several records per message and is drained at the end of every
 * toympi_progress(): 4096 records hold a few hundred unprogressed messages (a sender
 * that only calls MPI_Send on eager messages never enters progress). Every payload here
 * fits a 64-byte record. */
#define TOYMPI_ENGINE_BUFFER 4096
#define TOYMPI_RECORD_BYTES 64

/* ------------------------------------------------------------------- element lists */
#define E(S, m, t) MPITEV_ELEMENT_OF(struct toympi_ev_##S, m, MPITEV_DTYPE_##t)
static const mpitev_element el_arrived[] = {
    E(arrived, context_id, INT32), E(arrived, source, INT32), E(arrived, tag, INT32),
    E(arrived, protocol, INT32),   E(arrived, bytes, COUNT),  E(arrived, seq, UINT64)};
static const mpitev_element el_search_posted[] = {
    E(search_posted, context_id, INT32), E(search_posted, source, INT32),
    E(search_posted, tag, INT32),        E(search_posted, queue_length, INT32),
    E(search_posted, found, INT32),      E(search_posted, seq, UINT64),
    E(search_posted, request_id, UINT64)};
static const mpitev_element el_search_unexpected[] = {
    E(search_unexpected, context_id, INT32), E(search_unexpected, source, INT32),
    E(search_unexpected, tag, INT32),        E(search_unexpected, queue_length, INT32),
    E(search_unexpected, found, INT32),      E(search_unexpected, request_id, UINT64),
    E(search_unexpected, seq, UINT64)};
static const mpitev_element el_posted[] = {
    E(posted, context_id, INT32), E(posted, source, INT32), E(posted, tag, INT32),
    E(posted, queue_length, INT32), E(posted, request_id, UINT64)};
static const mpitev_element el_unexpected[] = {
    E(unexpected, context_id, INT32), E(unexpected, source, INT32), E(unexpected, tag, INT32),
    E(unexpected, queue_length, INT32), E(unexpected, bytes, COUNT), E(unexpected, seq, UINT64)};
static const mpitev_element el_transfer[] = {
    E(transfer, context_id, INT32), E(transfer, peer, INT32), E(transfer, tag, INT32),
    E(transfer, is_send, INT32),    E(transfer, protocol, INT32), E(transfer, bytes, COUNT),
    E(transfer, request_id, UINT64)};
static const mpitev_element el_rendezvous[] = {
    E(rendezvous, context_id, INT32), E(rendezvous, step, INT32), E(rendezvous, peer, INT32),
    E(rendezvous, tag, INT32),        E(rendezvous, bytes, COUNT), E(rendezvous, request_id, UINT64)};
static const mpitev_element el_cancel[] = {
    E(request, context_id, INT32), E(request, peer, INT32), E(request, tag, INT32),
    {"cancelled", MPITEV_DTYPE_INT32, 1, (long)offsetof(struct toympi_ev_request, flag)},
    E(request, request_id, UINT64)};
static const mpitev_element el_request_free[] = {
    E(request, context_id, INT32), E(request, peer, INT32), E(request, tag, INT32),
    {"is_send", MPITEV_DTYPE_INT32, 1, (long)offsetof(struct toympi_ev_request, flag)},
    E(request, request_id, UINT64)};
static const mpitev_element el_coll[] = {
    MPITEV_CHARS_OF(struct toympi_ev_coll, name), E(coll, context_id, INT32),
    E(coll, rank, INT32), E(coll, size, INT32), E(coll, seq, INT32)};
static const mpitev_element el_comm[] = {
    E(comm, context_id, INT32), E(comm, rank, INT32), E(comm, size, INT32), E(comm, handle, INT32)};
#undef E

/* ------------------------------------------------------------------- the types */
#define P2P "toympi_p2p"
#define COLL "toympi_coll"
#define COMM "toympi_comm"
#define N(a) (int)(sizeof a / sizeof a[0])
#define LAYOUT(el, S) el, N(el), sizeof(struct toympi_ev_##S)

typedef struct {
    const char *name, *desc, *category;
    int verbosity;
    unsigned flags;
    const mpitev_element *elements;
    int num_elements;
    size_t payload_size;
} evdef_t;

/* Indexed by TOYMPI_EV_*; declared in this order, so the MPI_T event indices are these. */
static const evdef_t defs[TOYMPI_EV_NUM_TYPES] = {
    [TOYMPI_EV_MESSAGE_ARRIVED] = {"toympi_message_arrived",
        "a message envelope (eager message or rendezvous request-to-send) arrived from a peer "
        "and is about to be matched; protocol 0 eager, 1 rendezvous; seq numbers arrivals",
        P2P, MPITEV_VERBOSITY_TUNER_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED, LAYOUT(el_arrived, arrived)},
    [TOYMPI_EV_SEARCH_POSTED_BEGIN] = {"toympi_search_posted_begin",
        "start of the search of the posted-receive queue for an arrived message "
        "(queue_length entries; found is -1)",
        P2P, MPITEV_VERBOSITY_MPIDEV_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED,
        LAYOUT(el_search_posted, search_posted)},
    [TOYMPI_EV_SEARCH_POSTED_END] = {"toympi_search_posted_end",
        "end of the search of the posted-receive queue: found 1 and the matched receive's "
        "request_id, or found 0 (the message becomes unexpected)",
        P2P, MPITEV_VERBOSITY_MPIDEV_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED,
        LAYOUT(el_search_posted, search_posted)},
    [TOYMPI_EV_SEARCH_UNEXPECTED_BEGIN] = {"toympi_search_unexpected_begin",
        "start of the search of the unexpected-message queue for a receive being posted "
        "(source and tag are the receive's pattern; found is -1)",
        P2P, MPITEV_VERBOSITY_MPIDEV_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED,
        LAYOUT(el_search_unexpected, search_unexpected)},
    [TOYMPI_EV_SEARCH_UNEXPECTED_END] = {"toympi_search_unexpected_end",
        "end of the search of the unexpected-message queue: found 1 and the message's seq, "
        "or found 0 (the receive is posted)",
        P2P, MPITEV_VERBOSITY_MPIDEV_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED,
        LAYOUT(el_search_unexpected, search_unexpected)},
    [TOYMPI_EV_POSTED_INSERT] = {"toympi_posted_insert",
        "a receive was appended to the posted-receive queue (queue_length after)",
        P2P, MPITEV_VERBOSITY_MPIDEV_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED, LAYOUT(el_posted, posted)},
    [TOYMPI_EV_POSTED_REMOVE] = {"toympi_posted_remove",
        "a receive left the posted-receive queue: matched or cancelled (queue_length after)",
        P2P, MPITEV_VERBOSITY_MPIDEV_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED, LAYOUT(el_posted, posted)},
    [TOYMPI_EV_UNEXPECTED_INSERT] = {"toympi_unexpected_insert",
        "an arrived message matched no posted receive and was appended to the "
        "unexpected-message queue (queue_length after)",
        P2P, MPITEV_VERBOSITY_MPIDEV_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED,
        LAYOUT(el_unexpected, unexpected)},
    [TOYMPI_EV_UNEXPECTED_REMOVE] = {"toympi_unexpected_remove",
        "a message left the unexpected-message queue: a receive matched it (queue_length after)",
        P2P, MPITEV_VERBOSITY_MPIDEV_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED,
        LAYOUT(el_unexpected, unexpected)},
    [TOYMPI_EV_TRANSFER_BEGIN] = {"toympi_transfer_begin",
        "payload movement of a request starts (is_send tells the side; protocol 0 eager, "
        "1 rendezvous; bytes: message size, or bytes delivered to the receive buffer)",
        P2P, MPITEV_VERBOSITY_TUNER_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED, LAYOUT(el_transfer, transfer)},
    [TOYMPI_EV_TRANSFER_END] = {"toympi_transfer_end",
        "payload movement of a request is complete (eager send: copied out; receive: in the "
        "buffer; rendezvous send: DATA frame written)",
        P2P, MPITEV_VERBOSITY_TUNER_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED, LAYOUT(el_transfer, transfer)},
    [TOYMPI_EV_RENDEZVOUS] = {"toympi_rendezvous",
        "rendezvous handshake step: 0 request-to-send sent, 1 request-to-send matched and "
        "clear-to-send sent, 2 clear-to-send received by the sender",
        P2P, MPITEV_VERBOSITY_TUNER_DETAIL, MPITEV_TYPE_ALWAYS_BUFFERED,
        LAYOUT(el_rendezvous, rendezvous)},
    [TOYMPI_EV_CANCEL] = {"toympi_cancel",
        "MPI_Cancel on a request: cancelled 1 if a posted receive was removed, 0 otherwise "
        "(sends are never cancelled)",
        P2P, MPITEV_VERBOSITY_USER_DETAIL, 0, LAYOUT(el_cancel, request)},
    [TOYMPI_EV_REQUEST_FREE] = {"toympi_request_free",
        "a user request was freed (completed by the Wait/Test family, MPI_Request_free, or "
        "completion after MPI_Request_free)",
        P2P, MPITEV_VERBOSITY_USER_DETAIL, 0, LAYOUT(el_request_free, request)},
    [TOYMPI_EV_COLL_BEGIN] = {"toympi_coll_begin",
        "a collective operation starts on the communicator (name: the MPI function, seq: "
        "collectives started on it so far)",
        COLL, MPITEV_VERBOSITY_USER_BASIC, 0, LAYOUT(el_coll, coll)},
    [TOYMPI_EV_COLL_END] = {"toympi_coll_end",
        "a collective operation finished on the communicator",
        COLL, MPITEV_VERBOSITY_USER_BASIC, 0, LAYOUT(el_coll, coll)},
    [TOYMPI_EV_COMM_CREATE] = {"toympi_comm_create",
        "a communicator was created (MPI_Init for the predefined ones, MPI_Comm_dup, "
        "MPI_Comm_split); handle: its MPI_Comm value",
        COMM, MPITEV_VERBOSITY_USER_BASIC, 0, LAYOUT(el_comm, comm)},
    [TOYMPI_EV_COMM_FREE] = {"toympi_comm_free",
        "a communicator is about to be freed (MPI_Comm_free, or MPI_Finalize for the "
        "remaining ones)",
        COMM, MPITEV_VERBOSITY_USER_BASIC, 0, LAYOUT(el_comm, comm)},
};

/* ------------------------------------------------------------------- enums
 * MPI-4.1 16.3.8.3: MPI_T_event_get_info "can optionally return an enumeration identifier
 * in the enumtype argument, describing the individual elements". Each type gets one enum
 * whose item i is named after element i (value i), so a tool prints "tag=5" rather than
 * "e2=5". Its name is "<event name>_elements" (enum names must be unique). Built from
 * the element lists once; static, so valid until the library goes away. */
static mpitev_enum enums[TOYMPI_EV_NUM_TYPES];
static mpitev_enum_item enum_items[TOYMPI_EV_NUM_TYPES][8];
static char enum_names[TOYMPI_EV_NUM_TYPES][48];

static void build_enums(void)
{
    for (int i = 0; i < TOYMPI_EV_NUM_TYPES; i++) {
        if (enums[i].name)
            continue;
        for (int k = 0; k < defs[i].num_elements; k++)
            enum_items[i][k] = (mpitev_enum_item){defs[i].elements[k].name, k};
        snprintf(enum_names[i], sizeof enum_names[i], "%s_elements", defs[i].name);
        enums[i] = (mpitev_enum){enum_names[i], defs[i].num_elements, enum_items[i]};
    }
}

int toympi_events_num_enums(void) { return TOYMPI_EV_NUM_TYPES; }
const mpitev_enum *toympi_events_enum(int i)
{
    return i >= 0 && i < TOYMPI_EV_NUM_TYPES && enums[i].name ? &enums[i] : NULL;
}
int toympi_events_enum_index(const mpitev_enum *e)
{
    for (int i = 0; i < TOYMPI_EV_NUM_TYPES; i++)
        if (e == &enums[i])
            return i;
    return -1;
}

/* ------------------------------------------------------------------- categories
 * The toy has no control or performance variables, so its MPI_T categories are exactly
 * these, in this order (indices never change). Every type names one of them. */
static const toympi_category_t categories[] = {
    {P2P, "point-to-point: message arrival and matching (posted and unexpected queues), "
          "eager and rendezvous protocols, data transfer, request cancel and free"},
    {COLL, "collective operations: begin and end of each collective call"},
    {COMM, "communicator management: creation and free"},
};
int toympi_events_num_categories(void) { return N(categories); }
const toympi_category_t *toympi_events_category(int i)
{
    return i >= 0 && i < N(categories) ? &categories[i] : NULL;
}

/* ------------------------------------------------------------------- lifecycle */
static int refs; /* toympi_events_init calls minus toympi_events_finalize calls */

static int declare_all(void)
{
    int rc = mpitev_source_declare(&toympi_events_src_api, &(mpitev_source_desc){
        .name = "toympi_api",
        .desc = "MPI calls of the application thread, raised at API entry and exit "
                "(collectives, communicators, cancel, request free); delivered at once",
        .ordering = MPITEV_SOURCE_ORDERED, /* at most MPI_THREAD_SERIALIZED */
    });
    if (rc)
        return rc;
    rc = mpitev_source_declare(&toympi_events_src_engine, &(mpitev_source_desc){
        .name = "toympi_progress",
        .desc = "the progress and matching engine (frame handlers, posted and unexpected "
                "queues, protocol steps); buffered, delivered by the progress engine",
        .ordering = MPITEV_SOURCE_ORDERED, /* no progress thread: one flow at a time */
        .buffer_capacity = TOYMPI_ENGINE_BUFFER,
        .buffer_record_size = TOYMPI_RECORD_BYTES,
        .buffered_by_default = 1,
    });
    if (rc)
        return rc;
    build_enums();
    for (int i = 0; i < TOYMPI_EV_NUM_TYPES && !rc; i++) {
        const evdef_t *d = &defs[i];
        rc = mpitev_type_declare(&toympi_events_types[i], &(mpitev_type_desc){
            .name = d->name,
            .desc = d->desc,
            .verbosity = d->verbosity,
            .bind = MPITEV_BIND_MPI_COMM,
            .category = d->category,
            .enumtype = &enums[i],
            .num_elements = d->num_elements,
            .elements = d->elements,
            .payload_size = d->payload_size,
            .flags = d->flags,
        });
    }
    return rc;
}

int toympi_events_init(void)
{
    int rc = mpitev_init();
    if (rc)
        return rc;
    if (refs++ == 0 && (rc = declare_all()) != MPITEV_SUCCESS) {
        /* a declaration the core refuses is a bug in this file: say which */
        fprintf(stderr, "toympi: declaring MPI_T events failed (mpitev error %d)\n", rc);
        refs--;
        mpitev_finalize();
    }
    return rc;
}

void toympi_events_finalize(void)
{
    if (refs == 0)
        return;
    refs--;
    mpitev_finalize(); /* declarations stay: the next first init declares again, a no-op */
}

void toympi_events_drain(int cb_safety)
{
    if (refs == 0)
        return;
    (void)mpitev_source_drain(&toympi_events_src_engine, MPITEV_DRAIN_ALL, cb_safety, NULL);
    /* the API source delivers at once by default; registrations that asked for
     * buffering ("mpitev_buffered" = "true") buffer there too */
    (void)mpitev_source_drain(&toympi_events_src_api, MPITEV_DRAIN_ALL, cb_safety, NULL);
}

const void *toympi_events_ctx_key(uint32_t context_id)
{
    const toympi_comm_t *c = toympi_comm_by_context(context_id);
    return c ? TOYMPI_EV_KEY(c) : NULL;
}
