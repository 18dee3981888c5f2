/* mpit_record.h -- recorded registrations for the integration tests' event-stream checks
 * (integrations/mpich/tests, integrations/openmpi/tests): a tool's side, written with
 * the standard MPI_T API only. Include after mpi.h and mpit_check.h, in one translation
 * unit per program.
 *
 * reg_alloc registers one callback on an event type (for an object, or NULL) that keeps
 * the instance's elements, read by name (the catalogue's element names, F_*), in the
 * order of all deliveries of the process; reg_free_all frees registrations and checks
 * their free callback ran once. The callback also checks the safety level it is called
 * at and that an ordered source's timestamps never decrease (ts_errors; fill `ordered`
 * from MPI_T_source_get_info first). Callbacks may run in several threads: recording is
 * under a lock. What a registration does beside recording, while the process is inside
 * MPI (in_mpi):
 *   reenter  calls MPI_Iprobe in the callback (re-entering MPI inside the delivery);
 *   hold     a number of seconds: probes MPI_COMM_WORLD for a message from rank 0 with
 *            tag TAG_MARKER for that long, then `held` is set if it came (and the hold
 *            ends); no hold once a registration with `handed` was delivered.
 * Records past MAXREC per registration are counted in `delivered`, not kept. */
#ifndef MPIT_RECORD_H
#define MPIT_RECORD_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* the elements the tests read, by the catalogue's names; absent ones read INT64_MIN */
enum { F_SOURCE, F_TAG, F_CTX, F_PEER, F_QLEN, F_FOUND, F_BYTES, F_SEQ, F_REQ, F_IS_SEND,
       F_CANCELLED, F_DISP, F_OPID, F_TARGET, F_OP, F_LOCK, F_KIND,
       F_KEY, F_PARENT, F_COMM_KEY, F_RANK, F_SIZE, NF }; /* F_KEY..: the object events' */
static const char *const field_names[NF] = {
    "source",      "tag",   "context_id", "peer",   "queue_length", "found",
    "bytes",       "seq",   "request_id", "is_send", "cancelled",   "target_disp",
    "op_id",       "target", "op",        "lock_type", "kind",       "key",
    "parent_key",  "comm_key", "rank",    "size"};

enum { TAG_MARKER = 4243 }; /* what a hold waits for */
#define MAXREC 256
struct rec {
    int64_t v[NF];
    long order; /* the instance's place among all deliveries of the process */
};
struct reg {
    const char *event;
    MPI_T_cb_safety level;
    int index, field[NF];
    MPI_Datatype dtype[NF];
    MPI_T_event_registration h;
    _Atomic long delivered;
    long dropped, freed;
    int nrec, reenter, handed, held;
    double hold;
    struct rec rec[MAXREC];
};

static long deliveries;
static int64_t last_ts[16];
static int ordered[16];
static int ts_errors;
static volatile int in_mpi, handed_out;
static pthread_mutex_t record_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void record(struct reg *r, MPI_T_event_instance inst)
{
    int src = -1;
    MPI_Count ts = -1;
    pthread_mutex_lock(&record_lock);
    if (MPI_T_event_get_source(inst, &src) != MPI_SUCCESS || src < 0 || src >= 16 ||
        MPI_T_event_get_timestamp(inst, &ts) != MPI_SUCCESS)
        ts_errors++;
    else if (ordered[src] && ts < last_ts[src]) /* an ordered source: never decreasing */
        ts_errors++;
    else
        last_ts[src] = ts;
    deliveries++;
    if (r->nrec < MAXREC) {
        struct rec *x = &r->rec[r->nrec++];
        x->order = deliveries;
        for (int f = 0; f < NF; f++)
            x->v[f] = mpit_read_int(inst, r->field[f], r->dtype[f]);
    }
    pthread_mutex_unlock(&record_lock);
}

/* the hold: see the top */
static inline void hold_for_marker(struct reg *r)
{
    int flag = 0;
    double t0 = MPI_Wtime();
    while (!flag && MPI_Wtime() - t0 < r->hold)
        MPI_Iprobe(0, TAG_MARKER, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    if (flag) {
        r->hold = 0;
        r->held = 1;
    }
}

static inline void on_event(MPI_T_event_instance inst, MPI_T_event_registration h,
                            MPI_T_cb_safety s, void *ud)
{
    (void)h;
    struct reg *r = ud;
    CHECK(s <= r->level); /* the callback of the level asked for is safe here */
    record(r, inst);
    r->delivered++; /* after the record: a thread waiting for a count sees it recorded */
    if (r->handed)
        handed_out = 1;
    if (r->reenter && in_mpi) { /* allowed at NONE: re-enters MPI while it delivers */
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    if (r->hold > 0 && in_mpi && !handed_out)
        hold_for_marker(r);
}
static inline void on_dropped(MPI_Count n, MPI_T_event_registration h, int src,
                              MPI_T_cb_safety s, void *ud)
{
    (void)h, (void)src, (void)s;
    ((struct reg *)ud)->dropped += (long)n;
}
static inline void on_free(MPI_T_event_registration h, MPI_T_cb_safety s, void *ud)
{
    (void)h, (void)s;
    ((struct reg *)ud)->freed++;
}

/* r's index and element indices by name, through the event type's enum */
static inline void describe(struct reg *r)
{
    MPI_Datatype dt[16];
    MPI_Aint disp[16];
    int num = 16, n = 0;
    MPI_T_enum e = MPI_T_ENUM_NULL;
    for (int f = 0; f < NF; f++)
        r->field[f] = -1;
    T_OK(MPI_T_event_get_index(r->event, &r->index));
    T_OK(MPI_T_event_get_info(r->index, NULL, NULL, NULL, dt, disp, &num, &e, NULL, NULL, NULL,
                              NULL));
    CHECK(e != MPI_T_ENUM_NULL);
    if (e == MPI_T_ENUM_NULL || MPI_T_enum_get_info(e, &n, NULL, NULL) != MPI_SUCCESS)
        return;
    CHECK_EQ(n, num);
    for (int i = 0; i < n && i < 16; i++) {
        char name[32];
        int len = (int)sizeof name, value = -1;
        T_OK(MPI_T_enum_get_item(e, i, &value, name, &len));
        CHECK_EQ(value, i);
        for (int f = 0; f < NF; f++)
            if (strcmp(name, field_names[f]) == 0) {
                r->field[f] = value;
                r->dtype[f] = dt[value];
            }
    }
}

/* a registration on `event` for obj (the pointer MPI_T_event_handle_alloc takes) at level */
static inline void reg_alloc(struct reg *r, const char *event, void *obj,
                             MPI_T_cb_safety level)
{
    memset(r, 0, sizeof *r);
    r->event = event;
    r->level = level;
    describe(r);
    T_OK(MPI_T_event_handle_alloc(r->index, obj, MPI_INFO_NULL, &r->h));
    T_OK(MPI_T_event_set_dropped_handler(r->h, on_dropped));
    T_OK(MPI_T_event_register_callback(r->h, level, MPI_INFO_NULL, r, on_event));
}

/* frees n registrations, makes progress until their free callbacks ran, and checks each
 * ran once and the handle is then invalid */
static inline void reg_free_all(struct reg *regs, int n)
{
    for (int i = 0; i < n; i++)
        T_OK(MPI_T_event_handle_free(regs[i].h, &regs[i], on_free));
    for (int spin = 0; spin < 100000; spin++) {
        int done = 1, flag;
        for (int i = 0; i < n; i++)
            done &= regs[i].freed > 0;
        if (done)
            break;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < n; i++) {
        if (regs[i].freed != 1)
            fprintf(stderr, "[rank %d] %s: free callback ran %ld times\n", my_rank,
                    regs[i].event, regs[i].freed);
        CHECK_EQ(regs[i].freed, 1);
        CHECK_EQ(MPI_T_event_handle_free(regs[i].h, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    }
}

static inline int count_where(const struct reg *r, int f, int64_t v)
{
    int n = 0;
    for (int i = 0; i < r->nrec; i++)
        n += r->rec[i].v[f] == v;
    return n;
}

/* the first record of r whose element f is v, or NULL */
static inline const struct rec *first_where(const struct reg *r, int f, int64_t v)
{
    for (int i = 0; i < r->nrec; i++)
        if (r->rec[i].v[f] == v)
            return &r->rec[i];
    return NULL;
}

/* the last record of r whose element f is v, or NULL */
static inline const struct rec *last_where(const struct reg *r, int f, int64_t v)
{
    const struct rec *x = NULL;
    for (int i = 0; i < r->nrec; i++)
        if (r->rec[i].v[f] == v)
            x = &r->rec[i];
    return x;
}

/* the first record of r whose element f is v, delivered after the record `after`: a
 * request's events after its posting (request ids are reused once a request is freed) */
static inline const struct rec *next_where(const struct reg *r, int f, int64_t v,
                                           const struct rec *after)
{
    for (int i = 0; i < r->nrec; i++)
        if (r->rec[i].v[f] == v && r->rec[i].order > after->order)
            return &r->rec[i];
    return NULL;
}

static inline int has(const struct reg *r, int f, int64_t v)
{
    return first_where(r, f, v) != NULL;
}

#endif
