/* events.c -- toy_mpi's MPI_T event types and sources, declared with mpitev.
 *
 * What is raised where, and at which callback safety level, is in events.h, whose
 * TOYMPI_EVENTS list (the catalogue's families and the toy's own types) is the only
 * place an event type is named. This file defines the
 * type objects and declares them from that table, declares the two sources, and lists
 * the categories. The MPI_T entry points are in mpit.c (the adapter). */
#include "events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------- storage */
mpitev_source toympi_events_src_api;
mpitev_source toympi_events_src_engine;

/* One definition per type (NAME_type and NAME_declare), and per list a function that
 * declares its types in list order with a category (catalog.h, MPITEV_CATALOG_DEFINE). */
MPITEV_CATALOG_DEFINE(TOYMPI_EVENTS_P2P, declare_p2p)
MPITEV_CATALOG_DEFINE(TOYMPI_EVENTS_RMA, declare_rma)
MPITEV_CATALOG_DEFINE(TOYMPI_EVENTS_COLL, declare_coll)
MPITEV_CATALOG_DEFINE(TOYMPI_EVENTS_OBJECTS, declare_objects)

/* The engine raises several records per message and is drained at every progress poll
 * and API exit (progress.c): 4096 records hold a few hundred unprogressed messages (a
 * sender that only calls MPI_Send on eager messages never polls). TOYMPI_EVENT_BUFFER
 * (records, 2 .. 2^24) changes it, for instance to make drops happen in a test; it is
 * read at the first declaration, since declarations live for the process. Every
 * payload here fits a 64-byte record. */
#define TOYMPI_ENGINE_BUFFER 4096
#define TOYMPI_RECORD_BYTES 64

static uint32_t engine_buffer_records(void)
{
    static uint32_t records; /* 0: not read yet */
    if (records == 0) {
        const char *v = getenv("TOYMPI_EVENT_BUFFER");
        char *end = NULL;
        long n = v ? strtol(v, &end, 10) : 0;
        records = TOYMPI_ENGINE_BUFFER;
        if (v && (end == v || *end != '\0' || n < 2 || n > (1L << 24)))
            fprintf(stderr, "toympi: TOYMPI_EVENT_BUFFER=%s is not a record count in 2..%ld; using %d\n",
                    v, 1L << 24, TOYMPI_ENGINE_BUFFER);
        else if (v)
            records = (uint32_t)n;
    }
    return records;
}

/* The sources' clock: the default monotonic clock, or with TOYMPI_EVENT_CLOCK=tsc the
 * core's TSC clock (mpitev_clock_tsc: fewer instructions per raise where the TSC is
 * invariant; the default clock where it is not). Read at the first declaration. */
static const mpitev_clock *event_clock(void)
{
    const char *v = getenv("TOYMPI_EVENT_CLOCK");
    if (!v || strcmp(v, "default") == 0)
        return NULL;
    if (strcmp(v, "tsc") == 0)
        return mpitev_clock_tsc(); /* NULL where unavailable: the default clock */
    fprintf(stderr, "toympi: TOYMPI_EVENT_CLOCK=%s is not 'default' or 'tsc'; using the default\n", v);
    return NULL;
}

/* ------------------------------------------------------------------- categories
 * The toy has no control or performance variables, so its MPI_T categories are exactly
 * these, in this order (indices never change). Every type names one of them. */
#define TOYMPI_CAT_P2P "toympi_p2p"
#define TOYMPI_CAT_RMA "toympi_rma"
#define TOYMPI_CAT_COLL "toympi_coll"
#define TOYMPI_CAT_OBJECTS "toympi_objects"
static const toympi_category_t categories[] = {
    {TOYMPI_CAT_P2P, "point-to-point: message arrival and matching (posted and unexpected "
                     "queues), eager and rendezvous protocols, data transfer, request "
                     "completion, cancel and free"},
    {TOYMPI_CAT_RMA, "one-sided communication: operations, locks and synchronization on "
                     "windows"},
    {TOYMPI_CAT_COLL, "collective operations: begin and end of each collective call"},
    {TOYMPI_CAT_OBJECTS, "communicators and windows: creation and free"},
};
#define N(a) (int)(sizeof a / sizeof a[0])
int toympi_events_num_categories(void) { return N(categories); }
const toympi_category_t *toympi_events_category(int i)
{
    return i >= 0 && i < N(categories) ? &categories[i] : NULL;
}

/* ------------------------------------------------------------------- lifecycle */
static int declare_sources(void)
{
    int rc = mpitev_source_declare(&toympi_events_src_api, &(mpitev_source_desc){
        .name = "toympi_api",
        .desc = "MPI calls of the application thread, raised at API entry and exit "
                "(collectives, communicators, cancel, request free); delivered at once",
        .ordering = MPITEV_SOURCE_ORDERED, /* at most MPI_THREAD_SERIALIZED */
        .clock = event_clock(),
    });
    if (rc)
        return rc;
    return mpitev_source_declare(&toympi_events_src_engine, &(mpitev_source_desc){
        .name = "toympi_progress",
        .desc = "the progress and matching engine (frame handlers, posted and unexpected "
                "queues, protocol steps); buffered, delivered by the progress engine",
        .ordering = MPITEV_SOURCE_ORDERED, /* no progress thread: one flow at a time */
        .clock = event_clock(),
        .buffer_capacity = engine_buffer_records(),
        .buffer_record_size = TOYMPI_RECORD_BYTES,
        .buffered_by_default = 1,
    });
}

/* Every type, in TOYMPI_EVENTS order (their MPI_T indices). */
static int declare_types(void)
{
    int rc = declare_p2p(TOYMPI_CAT_P2P);
    if (rc == MPITEV_SUCCESS)
        rc = declare_rma(TOYMPI_CAT_RMA);
    if (rc == MPITEV_SUCCESS)
        rc = declare_coll(TOYMPI_CAT_COLL);
    if (rc == MPITEV_SUCCESS)
        rc = declare_objects(TOYMPI_CAT_OBJECTS);
    return rc;
}

int toympi_events_init(void)
{
    int rc = mpitev_init();
    if (rc)
        return rc;
    /* The first call declares; later ones (MPI_Init after MPI_T_init_thread, a second
     * MPI_T session) find every declaration equal, which is a no-op. */
    if ((rc = declare_sources()) != MPITEV_SUCCESS || (rc = declare_types()) != MPITEV_SUCCESS) {
        /* a declaration the core refuses is a bug in this file: say which */
        fprintf(stderr, "toympi: declaring MPI_T events failed (mpitev error %d)\n", rc);
        mpitev_finalize();
    }
    return rc;
}

void toympi_events_finalize(void)
{
    /* The last one delivers what is buffered and frees the tools' registrations; the
     * declarations stay for the next init. */
    mpitev_finalize();
}

int toympi_events_level(void)
{
    return toympi_g.initialized && !toympi_g.finalizing ? MPITEV_CB_REQUIRE_NONE
                                                         : MPITEV_CB_REQUIRE_MPI_RESTRICTED;
}

const void *toympi_events_ctx_keys[TOYMPI_MAX_CONTEXTS / 2];

void toympi_events_ctx_bind(uint32_t context_id, const toympi_comm_t *c)
{
    /* Context ids come from comm.c's pair allocator, below TOYMPI_MAX_CONTEXTS. The
     * engine raises by one control flow at a time (the toy is at most
     * MPI_THREAD_SERIALIZED), as the communicator table changes: plain stores. */
    if (context_id < TOYMPI_MAX_CONTEXTS)
        toympi_events_ctx_keys[context_id / 2] = c ? TOYMPI_EV_KEY(c) : NULL;
}
