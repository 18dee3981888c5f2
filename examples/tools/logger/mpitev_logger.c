/* mpitev_logger: an MPI_T events logger that uses only the standard API.
 *
 * Load it into any MPI program (LD_PRELOAD=libmpitev_logger.so, or link it before the
 * MPI library). It intercepts MPI_Init / MPI_Init_thread / MPI_Finalize through the
 * profiling interface; at init it registers for every event type (bound to
 * MPI_COMM_WORLD for communicator-bound types), and at finalize it prints, rank by rank,
 * every instance it saw, with its source, timestamp and decoded elements, plus the
 * dropped counts its dropped handler received.
 *
 * The event callback is registered at MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, so it may be
 * called from any context: it only claims a slot of a preallocated array with an atomic
 * counter and copies the instance there. Instances that do not fit are counted.
 *
 * Environment: MPITEV_LOGGER_FILTER (substring an event name must contain),
 * MPITEV_LOGGER_MAX (records kept per process, default 65536),
 * MPITEV_LOGGER_QUIET=1 (print only the summary). */
#include <mpi.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_DATA 64   /* bytes of element data kept per record */
#define MAX_ELEMS 16

struct ev_meta {
    char name[96];
    int num_elements;
    int bind;
    MPI_Datatype types[MAX_ELEMS];
    MPI_Aint displs[MAX_ELEMS];
    char elem_names[MAX_ELEMS][32];
    int extent;
    MPI_T_event_registration reg;
    int registered;
    _Atomic long delivered;
    _Atomic long dropped;
};

struct record {
    int event;
    int source;
    MPI_Count timestamp;
    unsigned char data[LOG_DATA];
};

static struct ev_meta *meta;
static int num_events;
static struct record *records;
static long max_records;
static _Atomic long next_record;
static _Atomic int frees_done;
static int quiet;

static int type_size(MPI_Datatype t) {
    int s = 0;
    if (PMPI_Type_size(t, &s) != MPI_SUCCESS) return 0;
    return s;
}

static void on_event(MPI_T_event_instance inst, MPI_T_event_registration reg, MPI_T_cb_safety safety,
                     void *user_data) {
    (void)reg; (void)safety;
    struct ev_meta *m = user_data;
    atomic_fetch_add_explicit(&m->delivered, 1, memory_order_relaxed);
    long k = atomic_fetch_add_explicit(&next_record, 1, memory_order_relaxed);
    if (k >= max_records) return; /* counted by next_record overshoot */
    struct record *r = &records[k];
    r->event = (int)(m - meta);
    MPI_T_event_get_timestamp(inst, &r->timestamp);
    MPI_T_event_get_source(inst, &r->source);
    if (m->extent <= LOG_DATA)
        MPI_T_event_copy(inst, r->data);
}

static void on_dropped(MPI_Count count, MPI_T_event_registration reg, int source_index, MPI_T_cb_safety safety,
                       void *user_data) {
    (void)reg; (void)source_index; (void)safety;
    struct ev_meta *m = user_data;
    atomic_fetch_add_explicit(&m->dropped, (long)count, memory_order_relaxed);
}

static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety safety, void *user_data) {
    (void)reg; (void)safety; (void)user_data;
    atomic_fetch_add_explicit(&frees_done, 1, memory_order_relaxed);
}

/* Element names come from the event's enumtype when the MPI describes elements that way
 * (16.3.8.3 allows it); otherwise e0, e1, ... */
static void element_names(struct ev_meta *m, MPI_T_enum e) {
    int n = 0, len = 0;
    for (int i = 0; i < m->num_elements; i++) snprintf(m->elem_names[i], sizeof m->elem_names[i], "e%d", i);
    if (e == MPI_T_ENUM_NULL || MPI_T_enum_get_info(e, &n, NULL, &len) != MPI_SUCCESS) return;
    for (int i = 0; i < n && i < m->num_elements; i++) {
        int value = 0, nl = (int)sizeof m->elem_names[i];
        char buf[32];
        if (MPI_T_enum_get_item(e, i, &value, buf, &nl) == MPI_SUCCESS && value >= 0 && value < m->num_elements)
            snprintf(m->elem_names[value], sizeof m->elem_names[value], "%s", buf);
    }
}

static void attach(void) {
    int provided, n = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return;
    if (MPI_T_event_get_num(&n) != MPI_SUCCESS || n <= 0) return;
    const char *filter = getenv("MPITEV_LOGGER_FILTER");
    const char *max = getenv("MPITEV_LOGGER_MAX");
    quiet = getenv("MPITEV_LOGGER_QUIET") && atoi(getenv("MPITEV_LOGGER_QUIET"));
    max_records = max ? atol(max) : 65536;
    meta = calloc((size_t)n, sizeof *meta);
    records = calloc((size_t)(max_records > 0 ? max_records : 1), sizeof *records);
    if (!meta || !records) return;
    num_events = n;
    for (int i = 0; i < n; i++) {
        struct ev_meta *m = &meta[i];
        int name_len = (int)sizeof m->name, verbosity, bind, num = MAX_ELEMS, desc_len = 0;
        MPI_T_enum e = MPI_T_ENUM_NULL;
        if (MPI_T_event_get_info(i, m->name, &name_len, &verbosity, m->types, m->displs, &num, &e, NULL, NULL,
                                 &desc_len, &bind) != MPI_SUCCESS)
            continue;
        if (num > MAX_ELEMS) continue; /* more elements than we decode */
        m->num_elements = num;
        m->bind = bind;
        m->extent = num ? (int)m->displs[num - 1] + type_size(m->types[num - 1]) : 0;
        element_names(m, e);
        if (filter && !strstr(m->name, filter)) continue;
        MPI_Comm world = MPI_COMM_WORLD;
        void *obj = NULL;
        if (bind == MPI_T_BIND_MPI_COMM) obj = &world;
        else if (bind != MPI_T_BIND_NO_OBJECT) continue; /* other objects: not handled */
        if (MPI_T_event_handle_alloc(i, obj, MPI_INFO_NULL, &m->reg) != MPI_SUCCESS) continue;
        MPI_T_event_set_dropped_handler(m->reg, on_dropped);
        if (MPI_T_event_register_callback(m->reg, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, m, on_event) !=
            MPI_SUCCESS) {
            MPI_T_event_handle_free(m->reg, NULL, NULL);
            continue;
        }
        m->registered = 1;
    }
}

static void print_value(MPI_Datatype t, const unsigned char *p, int size) {
    if (t == MPI_DOUBLE) { double v; memcpy(&v, p, sizeof v); printf("%g", v); return; }
    if (t == MPI_FLOAT) { float v; memcpy(&v, p, sizeof v); printf("%g", (double)v); return; }
    if (t == MPI_CHAR) { printf("\"%.*s\"", size, (const char *)p); return; }
    int is_unsigned = t == MPI_UINT8_T || t == MPI_UINT16_T || t == MPI_UINT32_T || t == MPI_UINT64_T ||
                      t == MPI_UNSIGNED || t == MPI_UNSIGNED_LONG || t == MPI_UNSIGNED_LONG_LONG ||
                      t == MPI_UNSIGNED_SHORT || t == MPI_UNSIGNED_CHAR;
    if (size == 1) { if (is_unsigned) printf("%u", *(const uint8_t *)p); else printf("%d", *(const int8_t *)p); }
    else if (size == 2) { int16_t v; memcpy(&v, p, 2); if (is_unsigned) printf("%u", (uint16_t)v); else printf("%d", v); }
    else if (size == 4) { int32_t v; memcpy(&v, p, 4); if (is_unsigned) printf("%u", (uint32_t)v); else printf("%d", v); }
    else if (size == 8) { int64_t v; memcpy(&v, p, 8); if (is_unsigned) printf("%llu", (unsigned long long)v); else printf("%lld", (long long)v); }
    else printf("?");
}

static int by_time(const void *a, const void *b) {
    const struct record *x = a, *y = b;
    if (x->timestamp != y->timestamp) return x->timestamp < y->timestamp ? -1 : 1;
    return x->source - y->source;
}

static void report(int rank) {
    long n = atomic_load(&next_record);
    long kept = n < max_records ? n : max_records;
    qsort(records, (size_t)kept, sizeof *records, by_time);
    MPI_Count t0 = kept ? records[0].timestamp : 0;
    MPI_Count ticks = 1;
    int nsrc = 0;
    MPI_T_source_get_num(&nsrc);
    for (long k = 0; k < kept && !quiet; k++) {
        const struct record *r = &records[k];
        const struct ev_meta *m = &meta[r->event];
        char sname[64];
        int sl = (int)sizeof sname, dl = 0;
        MPI_T_source_order order;
        MPI_Count maxt;
        if (MPI_T_source_get_info(r->source, sname, &sl, NULL, &dl, &order, &ticks, &maxt, NULL) != MPI_SUCCESS)
            snprintf(sname, sizeof sname, "?");
        double us = ticks > 0 ? (double)(r->timestamp - t0) * 1e6 / (double)ticks : 0;
        printf("[rank %d] %+12.3f us  %-14s %s", rank, us, sname, m->name);
        for (int i = 0; i < m->num_elements && m->extent <= LOG_DATA; i++) {
            int size = (i + 1 < m->num_elements ? (int)m->displs[i + 1] : m->extent) - (int)m->displs[i];
            if (m->types[i] != MPI_CHAR) size = type_size(m->types[i]);
            printf(" %s=", m->elem_names[i]);
            print_value(m->types[i], r->data + m->displs[i], size);
        }
        printf("\n");
    }
    long delivered = 0, dropped = 0;
    for (int i = 0; i < num_events; i++) {
        delivered += atomic_load(&meta[i].delivered);
        dropped += atomic_load(&meta[i].dropped);
    }
    printf("[rank %d] mpitev_logger: %ld instances delivered, %ld reported dropped, %ld not kept (buffer full), "
           "%d registrations freed\n",
           rank, delivered, dropped, n - kept, atomic_load(&frees_done));
    fflush(stdout);
}

static void detach_and_report(void) {
    int rank = 0, size = 1, registered = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < num_events; i++) {
        if (!meta[i].registered) continue;
        MPI_T_event_handle_free(meta[i].reg, NULL, on_free);
        registered++;
    }
    /* A free callback may wait for the MPI's progress engine: give it a few turns. */
    for (int spin = 0; spin < 1000 && atomic_load(&frees_done) < registered; spin++) {
        int flag;
        PMPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    for (int r = 0; r < size; r++) { /* print rank by rank */
        if (r == rank) report(rank);
        PMPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_T_finalize();
}

int MPI_Init(int *argc, char ***argv) {
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS) attach();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided) {
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS) attach();
    return rc;
}

int MPI_Finalize(void) {
    if (meta) detach_and_report();
    return PMPI_Finalize();
}
