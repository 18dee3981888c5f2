/* test_events.c -- Open MPI 4.1 + mpitev's MPI_T events, checked the way a tool sees them:
 * only the standard MPI_T API of Open MPI's mpi.h, no mpitev header. The event types are
 * the mpitev catalogue's (include/mpitev/catalog.h: names, element names and order,
 * bindings, conventions). Needs 2 or more ranks. Adapted from integrations/mpich's.
 *
 * usage: mpirun -n N test_events [disabled] [multiple]
 *   disabled  Open MPI + mpitev configured --disable-mpit-events: every type and source is
 *             there and registrations work, but nothing is ever raised
 *   multiple  MPI_Init_thread(MPI_THREAD_MULTIPLE), and a second thread on every rank
 *             exchanges messages on its own communicator meanwhile
 *
 * 1. Before MPI_Init: the event types, sources, a nested MPI_T init/finalize, and
 *    registrations on MPI_COMM_WORLD and MPI_COMM_SELF that see their comm_create,
 *    raised in MPI_Init (keys 1 and 2, parent_key 0), also at MPI_T_CB_REQUIRE_NONE.
 * 2. Enums: every type's element names, through Open MPI's MPI_T_enum_get_*, with their
 *    error codes. The sources: "ompi_pml" ordered, the others unordered, one clock
 *    (CLOCK_MONOTONIC in nanoseconds; ticks over 50 ms agree with MPI_Wtime within 10 %).
 * 3. A pattern on a dup of MPI_COMM_WORLD, rank 0 -> rank 1, through ob1's PERUSE hooks:
 *    three messages that arrive before rank 1 posts receives (unexpected), a probe with
 *    wildcards, two messages after the receives are posted, a cancelled receive; then the
 *    same tags on MPI_COMM_WORLD. Each rank registers for the matching and transfer
 *    events on the dup and checks: the exact counts, the payloads (read by element name:
 *    a message's events share its seq, a receive's its request_id, wildcards are -1,
 *    queue_length -1), that nothing of MPI_COMM_WORLD's traffic reaches them,
 *    non-decreasing timestamps per ordered source, free callbacks exactly once, no drops.
 *    message_arrived's callback runs at MPI_T_CB_REQUIRE_NONE and calls MPI_Iprobe,
 *    re-entering MPI inside the delivery (a drain from opal_progress or a call's exit).
 *    The sender sees send_posted and request_complete for each message, with the sizes.
 * 4. comm_create is bound to the communicator of the creating call (the parent): a tool
 *    registered there sees the new communicator's creation, with its key, parent_key,
 *    rank and size; comm_free, bound to the communicator itself, the same payload. Dup,
 *    split, idup, split_type, a Cartesian communicator; a window's internal
 *    communicator is never announced; keys are never reused. A freed communicator's
 *    handle is MPI_T_ERR_INVALID_HANDLE. A window: win_create bound to its communicator
 *    (key, comm_key, bytes, rank, size), win_free bound to the window, registered by
 *    reference and by value (skipped where no one-sided component serves: over TCP
 *    with MPI_THREAD_MULTIPLE). */
#include <mpi.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpit_check.h"

enum { F_SOURCE, F_TAG, F_PEER, F_QLEN, F_FOUND, F_BYTES, F_SEQ, F_REQ, F_IS_SEND, F_KEY,
       F_PARENT, F_COMM_KEY, F_RANK, F_SIZE, F_CANCELLED, NF };
static const char *field_names[NF] = {"source", "tag",        "peer",         "queue_length",
                                      "found",  "bytes",      "seq",          "request_id",
                                      "is_send", "key",       "parent_key",   "comm_key",
                                      "rank",   "size",       "cancelled"};
#define MAXREC 256
struct rec {
    int64_t v[NF];
    long order; /* the instance's place among all deliveries of the process */
};
static long deliveries;
struct reg {
    const char *event;
    MPI_T_cb_safety level;
    int index, field[NF];
    MPI_Datatype dtype[NF];
    MPI_T_event_registration h;
    long delivered, dropped, freed;
    int nrec, reenter;
    int hold, held, handed; /* phase 5 (early_round) */
    struct rec rec[MAXREC];
};
enum { TAG_EARLY = 4242, TAG_MARKER = 4243, TAG_GO = 4244 };
static volatile int handed_out; /* phase 5: the dup's comm_create was delivered */

static int64_t last_ts[16];
static int ordered[16];
static int ts_errors, in_mpi;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* the callbacks of two threads */

static void on_event(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety s,
                     void *ud)
{
    (void)h;
    struct reg *r = ud;
    pthread_mutex_lock(&lock);
    r->delivered++;
    CHECK(s <= r->level); /* the callback of the level asked for is safe here */
    int src = -1;
    MPI_Count ts = -1;
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
    pthread_mutex_unlock(&lock);
    if (r->reenter && in_mpi) { /* allowed at NONE: re-enters MPI while it delivers */
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    if (r->handed)
        handed_out = 1;
    if (r->hold && in_mpi && !handed_out) {
        /* phase 5: hold the process here (a drain inside MPI_Comm_dup, before it hands
         * the communicator out) until the marker arrived, for up to half a second: the
         * sender may need a later message of this process to finish its own
         * MPI_Comm_dup (the context id's agreement, then the activation, are each an
         * allreduce over the parent), and this hold then gives up; the next receive's
         * holds again */
        int flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < 0.5)
            MPI_Iprobe(0, TAG_MARKER, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            r->hold = 0;
            r->held = 1;
        }
    }
}
static void on_dropped(MPI_Count n, MPI_T_event_registration h, int src, MPI_T_cb_safety s,
                       void *ud)
{
    (void)h, (void)src, (void)s;
    ((struct reg *)ud)->dropped += (long)n;
}
static void on_free(MPI_T_event_registration h, MPI_T_cb_safety s, void *ud)
{
    (void)h, (void)s;
    ((struct reg *)ud)->freed++;
}

/* element indices by name, through the event type's enum */
static void describe(struct reg *r)
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

static void reg_alloc(struct reg *r, const char *event, void *obj, MPI_T_cb_safety level)
{
    memset(r, 0, sizeof *r);
    r->event = event;
    r->level = level;
    describe(r);
    T_OK(MPI_T_event_handle_alloc(r->index, obj, MPI_INFO_NULL, &r->h));
    T_OK(MPI_T_event_set_dropped_handler(r->h, on_dropped));
    T_OK(MPI_T_event_register_callback(r->h, level, MPI_INFO_NULL, r, on_event));
}

static void reg_free_all(struct reg *regs, int n)
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

static int count_where(const struct reg *r, int f, int64_t v)
{
    int n = 0;
    for (int i = 0; i < r->nrec; i++)
        n += r->rec[i].v[f] == v;
    return n;
}

/* the first record whose element f is v, or NULL */
static const struct rec *first_where(const struct reg *r, int f, int64_t v)
{
    for (int i = 0; i < r->nrec; i++)
        if (r->rec[i].v[f] == v)
            return &r->rec[i];
    return NULL;
}

/* the first record of r whose element f is v, delivered after the record `after`: a
 * request's events after its posting (request ids are reused once a request is freed) */
static const struct rec *next_where(const struct reg *r, int f, int64_t v, const struct rec *after)
{
    for (int i = 0; i < r->nrec; i++)
        if (r->rec[i].v[f] == v && r->rec[i].order > after->order)
            return &r->rec[i];
    return NULL;
}

static int has(const struct reg *r, int f, int64_t v)
{
    return first_where(r, f, v) != NULL;
}

/* ---------------------------------------------------------------- 2. enums, sources */
static const char *const all_events[] = {
    "message_arrived",  "search_posted_begin", "search_posted_end", "search_unexpected_begin",
    "search_unexpected_end", "posted_insert",  "posted_remove",     "unexpected_insert",
    "unexpected_remove", "send_posted",        "recv_posted",       "transfer_begin",
    "transfer_end",     "request_complete",    "request_cancel",    "comm_create",
    "comm_free",
    "win_create",       "win_free",            "put_started",       "put_complete",
    "get_started",      "get_complete",        "accumulate_started", "accumulate_complete",
    "lock_acquired",    "lock_released",       "sync_begin",        "sync_end"};
#define NALL ((int)(sizeof all_events / sizeof all_events[0]))
#define L_ARRIVED "bytes seq source tag"
#define L_SEARCH "seq request_id source tag queue_length found"
#define L_POSTED "request_id source tag queue_length"
#define L_UNEXPECTED "bytes seq source tag queue_length"
#define L_REQUEST "bytes request_id peer tag is_send"
#define L_CANCEL "request_id peer tag is_send cancelled"
#define L_COMM "key parent_key rank size"
#define L_WIN "key comm_key bytes rank size"
#define L_RMA "target_disp bytes op_id target op"
#define L_LOCK "target lock_type"
#define L_SYNC "kind target"
static const char *const all_elements[NALL] = {
    L_ARRIVED, L_SEARCH, L_SEARCH, L_SEARCH, L_SEARCH, L_POSTED, L_POSTED, L_UNEXPECTED,
    L_UNEXPECTED, L_REQUEST, L_REQUEST, L_REQUEST, L_REQUEST, L_REQUEST, L_CANCEL, L_COMM, L_COMM,
    L_WIN,     L_WIN,        L_RMA,    L_RMA,    L_RMA,    L_RMA,    L_RMA,   L_RMA,
    L_LOCK,    L_LOCK,       L_SYNC,   L_SYNC};

static void check_types_enums_sources(void)
{
    int nev = 0;
    T_OK(MPI_T_event_get_num(&nev));
    CHECK_EQ(nev, NALL);
    for (int i = 0; i < NALL; i++) {
        int idx = -1, verb, bind, num = 0, nn = 0;
        char name[64], en[96], want[96];
        int nl = (int)sizeof name, el = (int)sizeof en;
        MPI_T_enum e = MPI_T_ENUM_NULL;
        T_OK(MPI_T_event_get_index(all_events[i], &idx));
        T_OK(MPI_T_event_get_info(idx, name, &nl, &verb, NULL, NULL, &num, &e, NULL, NULL,
                                  NULL, &bind));
        CHECK(strcmp(name, all_events[i]) == 0);
        CHECK_EQ(nl, (int)strlen(all_events[i]) + 1);
        /* win_free and the one-sided family (after it in the list) are bound to the
         * window; everything else to a communicator */
        CHECK_EQ(bind, i >= NALL - 11 ? MPI_T_BIND_MPI_WIN : MPI_T_BIND_MPI_COMM);
        CHECK(e != MPI_T_ENUM_NULL);
        T_OK(MPI_T_enum_get_info(e, &nn, en, &el));
        CHECK_EQ(nn, num);
        snprintf(want, sizeof want, "%s_elements", all_events[i]);
        CHECK(strcmp(en, want) == 0);
        int value, il = 32;
        char item[32];
        CHECK_EQ(MPI_T_enum_get_item(e, nn, &value, item, &il), MPI_T_ERR_INVALID_ITEM);
        CHECK_EQ(MPI_T_enum_get_item(e, -1, &value, item, &il), MPI_T_ERR_INVALID_ITEM);
        CHECK_EQ(MPI_T_enum_get_item(e, 0, NULL, item, &il), MPI_T_ERR_INVALID);
        char elems[160] = "", item_name[32];
        for (int k = 0; k < nn; k++) {
            int l = (int)sizeof item_name;
            T_OK(MPI_T_enum_get_item(e, k, &value, item_name, &l));
            if (strlen(elems) + strlen(item_name) + 2 < sizeof elems) {
                strcat(elems, k ? " " : "");
                strcat(elems, item_name);
            }
        }
        if (strcmp(elems, all_elements[i]) != 0)
            fprintf(stderr, "[rank %d] %s: elements '%s', expected '%s'\n", my_rank,
                    all_events[i], elems, all_elements[i]);
        CHECK(strcmp(elems, all_elements[i]) == 0);
    }
    int idx = -1;
    CHECK_EQ(MPI_T_event_get_index("no_such_event", &idx), MPI_T_ERR_INVALID_NAME);
    CHECK_EQ(MPI_T_event_get_info(nev, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                  NULL, NULL),
             MPI_T_ERR_INVALID_INDEX);

    /* sources: ompi_pml ordered; ompi_pml_mt, ompi_comm and ompi_osc unordered; one clock */
    int nsrc = 0;
    T_OK(MPI_T_source_get_num(&nsrc));
    CHECK_EQ(nsrc, 4);
    for (int s = 0; s < nsrc && s < 16; s++) {
        char sn[32];
        int sl = (int)sizeof sn;
        MPI_T_source_order order;
        MPI_Count tps = 0, max_ticks = 0;
        T_OK(MPI_T_source_get_info(s, sn, &sl, NULL, NULL, &order, &tps, &max_ticks, NULL));
        ordered[s] = order == MPI_T_SOURCE_ORDERED;
        CHECK_EQ(ordered[s], strcmp(sn, "ompi_pml") == 0);
        CHECK(strcmp(sn, "ompi_pml") == 0 || strcmp(sn, "ompi_pml_mt") == 0 ||
              strcmp(sn, "ompi_comm") == 0 || strcmp(sn, "ompi_osc") == 0);
        CHECK(max_ticks > 0);
        CHECK_EQ(tps, 1000000000);
    }
}

/* MPI_T_category_get_num_events / _get_events: every type in exactly one category, the
 * group of what raises it (the PML's types, then the communicator and window types, then
 * the one-sided family, in all_events' order); entries past len left alone. */
static const char *expected_category(int i)
{
    return i < NALL - 14 ? "ompi_pml_ob1" : i < NALL - 10 ? "ompi_mpi" : "ompi_osc";
}
static void check_categories(void)
{
    int ncat = 0, total = 0, want[NALL], seen[NALL] = {0};
    T_OK(MPI_T_category_get_num(&ncat));
    for (int i = 0; i < NALL; i++) {
        int idx = -1;
        T_OK(MPI_T_event_get_index(all_events[i], &idx));
        CHECK(idx >= 0 && idx < NALL);
        if (idx >= 0 && idx < NALL)
            want[idx] = i;
    }
    for (int c = 0; c < ncat; c++) {
        int n = -1, ind[NALL + 1];
        char cn[128];
        int cl = (int)sizeof cn;
        /* Open MPI keeps the indices of the groups of components it closed: invalid */
        int rc = MPI_T_category_get_info(c, cn, &cl, NULL, NULL, NULL, NULL, NULL);
        if (rc == MPI_T_ERR_INVALID_INDEX) {
            CHECK_EQ(MPI_T_category_get_num_events(c, &n), MPI_T_ERR_INVALID_INDEX);
            CHECK_EQ(MPI_T_category_get_events(c, 0, NULL), MPI_T_ERR_INVALID_INDEX);
            continue;
        }
        T_OK(rc);
        T_OK(MPI_T_category_get_num_events(c, &n));
        CHECK(n >= 0 && n <= NALL);
        if (n <= 0 || n > NALL)
            continue;
        ind[n - 1] = -7;
        T_OK(MPI_T_category_get_events(c, n - 1, ind));
        CHECK_EQ(ind[n - 1], -7);
        T_OK(MPI_T_category_get_events(c, n, ind));
        for (int k = 0; k < n; k++) {
            CHECK(ind[k] >= 0 && ind[k] < NALL);
            if (ind[k] < 0 || ind[k] >= NALL)
                continue;
            seen[ind[k]]++;
            CHECK(strcmp(cn, expected_category(want[ind[k]])) == 0);
        }
        total += n;
    }
    CHECK_EQ(total, NALL);
    for (int i = 0; i < NALL; i++)
        CHECK_EQ(seen[i], 1);
    int n;
    CHECK_EQ(MPI_T_category_get_num_events(ncat, &n), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ(MPI_T_category_get_num_events(-1, &n), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ(MPI_T_category_get_num_events(0, NULL), MPI_T_ERR_INVALID);
    CHECK_EQ(MPI_T_category_get_events(ncat, 0, NULL), MPI_T_ERR_INVALID_INDEX);
}

/* The first source's ticks over a 50 ms wait, converted with its reported rate, against
 * MPI_Wtime over the same wait. */
static void check_clock(void)
{
    MPI_Count tps = 0;
    MPI_Count ts0 = 0, ts1 = 0;
    T_OK(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, &tps, NULL, NULL));
    double w0 = MPI_Wtime();
    T_OK(MPI_T_source_get_timestamp(0, &ts0));
    while (MPI_Wtime() - w0 < 0.05)
        ;
    T_OK(MPI_T_source_get_timestamp(0, &ts1));
    double w1 = MPI_Wtime();
    double ticks_s = tps > 0 ? (double)(ts1 - ts0) / (double)tps : 0;
    CHECK(ticks_s > 0.9 * (w1 - w0) && ticks_s < 1.1 * (w1 - w0));
}

/* ---------------------------------------------------------------- the second thread */
static MPI_Comm thread_comm;
static void *side_traffic(void *arg)
{
    (void)arg;
    int size, peer, rank;
    MPI_Comm_size(thread_comm, &size);
    MPI_Comm_rank(thread_comm, &rank);
    peer = rank ^ 1;
    if (peer >= size)
        return NULL;
    /* a fixed number of exchanges, so both sides finish together */
    for (int n = 0; n < 200; n++) {
        int x = n, y = -1;
        MPI_Sendrecv(&x, 1, MPI_INT, peer, 7, &y, 1, MPI_INT, peer, 7, thread_comm,
                     MPI_STATUS_IGNORE);
        CHECK_EQ(y, n);
    }
    return NULL;
}

/* ---------------------------------------------------------------- 3. the pattern */
/* the PML's types (NQREG of them, freed after phase 3: the collectives of phase 4 on the
 * dup send Open MPI's own messages), then the dup's communicator types (freed after
 * phase 4) */
enum { R_ARRIVED, R_P_ENQ, R_P_DEQ, R_SP_BEGIN, R_SP_END, R_SU_BEGIN, R_SU_END, R_UX_INS,
       R_UX_REM, R_SEND_POSTED, R_RECV_POSTED, R_XFER_BEGIN, R_XFER_END, R_COMPLETE, R_CANCEL,
       NQREG,
       R_COMM_FREED = NQREG, R_COMM_CREATED, NREG };
static const char *reg_events[NREG] = {
    "message_arrived",   "posted_insert",     "posted_remove",   "search_posted_begin",
    "search_posted_end", "search_unexpected_begin", "search_unexpected_end",
    "unexpected_insert", "unexpected_remove", "send_posted",     "recv_posted",
    "transfer_begin",    "transfer_end",      "request_complete", "request_cancel",
    "comm_free",         "comm_create"};
static const int a_tags[3] = {10, 11, 12}, a_bytes[3] = {100, 200, 300};
static const int b_tags[2] = {20, 21}, b_bytes[2] = {400, 500};

/* is t one of the tags of the pattern on the dup? */
static int dup_tag(int64_t t)
{
    return t == 10 || t == 11 || t == 12 || t == 20 || t == 21 || t == 77;
}

/* the comm_create records of r that concern a communicator created from parent_key */
static int created_from(const struct reg *r, int64_t parent_key)
{
    return count_where(r, F_PARENT, parent_key);
}

/* ---------------------------------------------------------------- 5. early arrival */
/* Rank 0 sends on a communicator rank 1 has not handed to its application yet. Both
 * duplicate a communicator of the two (pair). Rank 1 holds itself inside its
 * MPI_Comm_dup: the callback of its search_unexpected_begin on pair (each receive of the
 * allreduces over pair that create the communicator; delivered by the drain in
 * opal_progress) probes until a marker rank 0 sends on MPI_COMM_WORLD after the message.
 * A hold that comes after the dup's comm_create (on pair, delivered at once when the
 * binding hands the communicator out) does not count. When the marker comes inside a
 * hold, the message, sent before it on the same channel, has arrived and is queued (or
 * waits for the communicator) while no tool can have registered on the communicator.
 * Then rank 1 registers on the new communicator and receives: the message's arrival
 * events come with the receive's search. Returns 1 for a round that counts. */
static int early_round(MPI_Comm pair, int rank, int64_t *checked)
{
    static char buf[64];
    int token = 0, held = 0;
    MPI_Comm c;
    if (rank == 0) {
        MPI_Recv(&token, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_dup(pair, &c);
        MPI_Send(buf, 44, MPI_BYTE, 1, TAG_EARLY, c);
        MPI_Send(&token, 1, MPI_INT, 1, TAG_MARKER, MPI_COMM_WORLD);
        MPI_Recv(&held, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_free(&c);
        return held;
    }
    /* a tool listening to the two types already (on MPI_COMM_WORLD, as a tool that follows
     * every communicator from MPI_COMM_WORLD does): ob1 marks what it queues for a
     * communicator not handed out yet only while someone listens to them */
    static struct reg hold, created, world[2];
    MPI_Comm w = MPI_COMM_WORLD;
    reg_alloc(&world[0], "message_arrived", &w, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    reg_alloc(&world[1], "unexpected_insert", &w, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    reg_alloc(&hold, "search_unexpected_begin", &pair, MPI_T_CB_REQUIRE_NONE);
    reg_alloc(&created, "comm_create", &pair, MPI_T_CB_REQUIRE_NONE);
    created.handed = 1;
    handed_out = 0;
    MPI_Send(&token, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
    hold.hold = 1; /* from here on: inside MPI_Comm_dup */
    MPI_Comm_dup(pair, &c);
    held = hold.held;
    hold.hold = 0;
    CHECK_EQ(created.nrec, 1);
    /* registered right after creation, before anything is received on it */
    enum { O_ARRIVED, O_INS, O_REM, O_SU_BEGIN, O_SU_END, NO };
    static const char *names[NO] = {"message_arrived", "unexpected_insert", "unexpected_remove",
                                     "search_unexpected_begin", "search_unexpected_end"};
    static struct reg o[NO];
    for (int i = 0; i < NO; i++)
        reg_alloc(&o[i], names[i], &c, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    MPI_Recv(buf, 64, MPI_BYTE, 0, TAG_EARLY, c, MPI_STATUS_IGNORE);
    MPI_Recv(&token, 1, MPI_INT, 0, TAG_MARKER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    reg_free_all(o, NO);
    reg_free_all(&hold, 1);
    reg_free_all(&created, 1);
    reg_free_all(world, 2);
    MPI_Send(&held, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
    MPI_Comm_free(&c);
    if (!held)
        return 0;
    /* the message's events, all with its seq: arrival and insert (raised when the receive
     * first searched the queue), then the search that found it and the removal */
    CHECK_EQ(o[O_ARRIVED].nrec, 1);
    CHECK_EQ(o[O_INS].nrec, 1);
    CHECK_EQ(o[O_REM].nrec, 1);
    CHECK_EQ(o[O_SU_BEGIN].nrec, 1);
    CHECK_EQ(o[O_SU_END].nrec, 1);
    if (o[O_ARRIVED].nrec != 1 || o[O_INS].nrec != 1 || o[O_REM].nrec != 1 ||
        o[O_SU_BEGIN].nrec != 1 || o[O_SU_END].nrec != 1)
        return 1;
    const struct rec *ar = &o[O_ARRIVED].rec[0], *in = &o[O_INS].rec[0],
                     *rm = &o[O_REM].rec[0], *sb = &o[O_SU_BEGIN].rec[0],
                     *se = &o[O_SU_END].rec[0];
    int64_t seq = ar->v[F_SEQ];
    CHECK(seq != 0);
    CHECK_EQ(ar->v[F_SOURCE], 0);
    CHECK_EQ(ar->v[F_TAG], TAG_EARLY);
    CHECK_EQ(ar->v[F_BYTES], 44);
    CHECK_EQ(in->v[F_SEQ], seq);
    CHECK_EQ(in->v[F_SOURCE], 0);
    CHECK_EQ(in->v[F_TAG], TAG_EARLY);
    CHECK_EQ(in->v[F_BYTES], 44);
    CHECK_EQ(rm->v[F_SEQ], seq);
    CHECK_EQ(se->v[F_SEQ], seq);
    CHECK_EQ(se->v[F_FOUND], 1);
    CHECK_EQ(sb->v[F_TAG], TAG_EARLY);
    CHECK(ar->order < in->order && in->order < sb->order && sb->order < se->order);
    *checked = seq;
    return 1;
}

int main(int argc, char **argv)
{
    int multiple = 0, disabled = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "disabled") == 0)
            disabled = 1;
        else if (strcmp(argv[i], "multiple") == 0)
            multiple = 1;
    }
    /* ---- 1. before MPI_Init */
    int provided, nev = 0, nev2 = 0;
    CHECK_EQ(MPI_T_event_get_num(&nev), MPI_T_ERR_NOT_INITIALIZED);
    T_OK(MPI_T_init_thread(multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided));
    T_OK(MPI_T_event_get_num(&nev));
    CHECK_EQ(nev, NALL);
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided)); /* nested: a second reference */
    T_OK(MPI_T_finalize());
    T_OK(MPI_T_event_get_num(&nev2));
    CHECK_EQ(nev2, nev);

    /* comm_create on MPI_COMM_WORLD (two levels) and on MPI_COMM_SELF, raised inside
     * MPI_Init; the world's registrations see every communicator created from it later */
    static struct reg pre[3];
    MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
    reg_alloc(&pre[0], "comm_create", &world, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    reg_alloc(&pre[1], "comm_create", &world, MPI_T_CB_REQUIRE_NONE);
    reg_alloc(&pre[2], "comm_create", &self, MPI_T_CB_REQUIRE_NONE);

    if (multiple) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
    } else {
        MPI_Init(&argc, &argv);
    }
    in_mpi = 1;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_rank = rank;
    if (size < 2) {
        fprintf(stderr, "test_events needs 2 or more ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* the predefined communicators' creation: world 1, self 2, parent_key 0 */
    CHECK_EQ(pre[0].nrec, disabled ? 0 : 1);
    CHECK_EQ(pre[1].nrec, disabled ? 0 : 1);
    CHECK_EQ(pre[2].nrec, disabled ? 0 : 1);
    if (!disabled && pre[0].nrec == 1 && pre[2].nrec == 1) {
        CHECK_EQ(pre[0].rec[0].v[F_KEY], 1);
        CHECK_EQ(pre[0].rec[0].v[F_PARENT], 0);
        CHECK_EQ(pre[0].rec[0].v[F_RANK], rank);
        CHECK_EQ(pre[0].rec[0].v[F_SIZE], size);
        CHECK_EQ(pre[2].rec[0].v[F_KEY], 2);
        CHECK_EQ(pre[2].rec[0].v[F_SIZE], 1);
    }

    /* ---- 2. enums, categories and sources */
    check_types_enums_sources();
    check_categories();
    check_clock();

    /* ---- 3. the pattern */
    pthread_t th;
    if (multiple) {
        MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm);
        pthread_create(&th, NULL, side_traffic, NULL);
    }
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    static struct reg regs[NREG], world_arrived;
    for (int i = 0; i < NREG; i++)
        reg_alloc(&regs[i], reg_events[i], &dup,
                  i == R_ARRIVED ? MPI_T_CB_REQUIRE_NONE : MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    regs[R_ARRIVED].reenter = 1;
    reg_alloc(&world_arrived, "message_arrived", &world, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    /* error paths of the object-key hook */
    MPI_Comm null = MPI_COMM_NULL;
    MPI_T_event_registration bad;
    CHECK_EQ(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, &null, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, NULL, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID);
    /* a handle passed by value (MPI_Comm is a pointer: this compiles) is taken as the
     * handle, and its events reach the registration */
    static struct reg byval;
    memset(&byval, 0, sizeof byval);
    byval.event = "message_arrived";
    byval.level = MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
    describe(&byval);
    T_OK(MPI_T_event_handle_alloc(byval.index, (void *)dup, MPI_INFO_NULL, &byval.h));
    T_OK(MPI_T_event_register_callback(byval.h, byval.level, MPI_INFO_NULL, &byval, on_event));
    MPI_Barrier(MPI_COMM_WORLD); /* everyone registered */

    static char sbuf[4096], rbuf[8192];
    MPI_Request req[8];
    int token = 0, probed = 0;
    if (rank == 0) {
        for (int i = 0; i < 3; i++) /* A: arrive before rank 1 posts receives */
            MPI_Send(sbuf, a_bytes[i], MPI_BYTE, 1, a_tags[i], dup);
        MPI_Send(&token, 1, MPI_INT, 1, 99, MPI_COMM_WORLD); /* after A, in order */
        MPI_Recv(&token, 1, MPI_INT, 1, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* B posted */
        for (int i = 0; i < 2; i++) /* B: posted path */
            MPI_Send(sbuf, b_bytes[i], MPI_BYTE, 1, b_tags[i], dup);
        for (int t = 10; t <= 20; t += 10) /* D: MPI_COMM_WORLD, same tags */
            MPI_Send(sbuf, 7, MPI_BYTE, 1, t, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Recv(&token, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Status pst; /* a probe with both wildcards finds A's first message */
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &probed, &pst);
        CHECK(probed);
        if (probed)
            CHECK_EQ(pst.MPI_TAG, a_tags[0]);
        for (int i = 0; i < 2; i++)
            MPI_Irecv(rbuf + 1000 * i, b_bytes[i], MPI_BYTE, 0, b_tags[i], dup, &req[i]);
        MPI_Request c;
        MPI_Status st;
        int cancelled = 0;
        MPI_Irecv(rbuf, 1, MPI_BYTE, 0, 77, dup, &c);
        MPI_Cancel(&c);
        MPI_Wait(&c, &st);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(cancelled);
        MPI_Send(&token, 1, MPI_INT, 0, 98, MPI_COMM_WORLD);
        for (int i = 0; i < 3; i++)
            MPI_Irecv(rbuf + 2000 + 300 * i, a_bytes[i], MPI_BYTE, 0, a_tags[i], dup, &req[2 + i]);
        MPI_Status sts[5];
        MPI_Waitall(5, req, sts);
        for (int t = 10; t <= 20; t += 10)
            MPI_Recv(rbuf, 7, MPI_BYTE, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (multiple) {
        pthread_join(th, NULL);
        MPI_Comm_free(&thread_comm);
    }
    reg_free_all(regs, NQREG);
    reg_free_all(&world_arrived, 1);
    reg_free_all(&byval, 1);
    MPI_Barrier(MPI_COMM_WORLD); /* phase 4's collectives on the dup come after every free */
    for (int i = 0; i < NQREG; i++) {
        if (regs[i].dropped)
            fprintf(stderr, "[rank %d] %s: %ld dropped\n", rank, regs[i].event, regs[i].dropped);
        CHECK_EQ(regs[i].dropped, 0); /* buffered, big enough, a safe drain level */
    }

    /* everything bound to the dup is about the dup: its tags only (nothing of
     * MPI_COMM_WORLD's barrier, of D, of the second thread's communicator) */
    for (int i = 0; i < NQREG; i++)
        for (int k = 0; k < regs[i].nrec; k++) {
            int64_t t = regs[i].rec[k].v[F_TAG];
            CHECK(dup_tag(t) || t == -1);
            if (regs[i].rec[k].v[F_BYTES] != INT64_MIN)
                CHECK(regs[i].rec[k].v[F_BYTES] != 7);
        }
    /* the catalogue's conventions: queue_length -1 (ob1 does not count), found -1 at a
     * search's begin */
    for (int i = 0; i < NQREG; i++)
        for (int k = 0; k < regs[i].nrec; k++)
            if (regs[i].field[F_QLEN] >= 0)
                CHECK_EQ(regs[i].rec[k].v[F_QLEN], -1);
    const struct reg *sp_b = &regs[R_SP_BEGIN], *sp_e = &regs[R_SP_END];
    const struct reg *su_b = &regs[R_SU_BEGIN], *su_e = &regs[R_SU_END];
    CHECK_EQ(sp_b->nrec, sp_e->nrec);
    CHECK_EQ(su_b->nrec, su_e->nrec);
    for (int i = 0; i < sp_b->nrec && i < sp_e->nrec; i++) {
        CHECK_EQ(sp_b->rec[i].v[F_SEQ], sp_e->rec[i].v[F_SEQ]);
        CHECK_EQ(sp_b->rec[i].v[F_FOUND], -1);
        CHECK_EQ(sp_b->rec[i].v[F_REQ], 0);
    }
    for (int i = 0; i < su_b->nrec; i++) {
        CHECK_EQ(su_b->rec[i].v[F_FOUND], -1);
        CHECK_EQ(su_b->rec[i].v[F_SEQ], 0);
        if (i < su_e->nrec)
            CHECK_EQ(su_b->rec[i].v[F_REQ], su_e->rec[i].v[F_REQ]);
    }

    int arrived = regs[R_ARRIVED].nrec;
    if (disabled) {
        for (int i = 0; i < NQREG; i++)
            CHECK_EQ(regs[i].nrec, 0);
        CHECK_EQ(world_arrived.nrec + byval.nrec, 0);
    } else if (rank == 1) {
        /* A and B: five arrivals, three of them unexpected, two matched posted receives */
        CHECK_EQ(arrived, 5);
        CHECK_EQ(byval.nrec, 5); /* the registration made with the handle by value */
        CHECK_EQ(regs[R_UX_INS].nrec, 3);
        CHECK_EQ(regs[R_UX_REM].nrec, 3);
        int64_t seq[5] = {0};
        for (int i = 0; i < arrived && i < 5; i++) {
            const struct rec *x = &regs[R_ARRIVED].rec[i];
            seq[i] = x->v[F_SEQ];
            CHECK(seq[i] != 0);
            for (int k = 0; k < i; k++) /* a seq identifies one message */
                CHECK(seq[i] != seq[k]);
            CHECK_EQ(x->v[F_SOURCE], 0);
            CHECK_EQ(x->v[F_TAG], i < 3 ? a_tags[i] : b_tags[i - 3]);
            CHECK_EQ(x->v[F_BYTES], i < 3 ? a_bytes[i] : b_bytes[i - 3]);
            /* each arrival searched the posted queue once, with its seq */
            CHECK_EQ(count_where(sp_e, F_SEQ, seq[i]), 1);
        }
        for (int i = 0; i < regs[R_UX_INS].nrec && i < 3; i++) {
            const struct rec *x = &regs[R_UX_INS].rec[i];
            CHECK_EQ(x->v[F_TAG], a_tags[i]);
            CHECK_EQ(x->v[F_SEQ], seq[i]);
            CHECK_EQ(x->v[F_BYTES], a_bytes[i]);
            CHECK_EQ(x->v[F_SOURCE], 0);
            /* removed once, with its seq and size: the receive's search found it */
            const struct rec *rm = first_where(&regs[R_UX_REM], F_SEQ, seq[i]);
            CHECK(rm != NULL);
            if (rm) {
                CHECK_EQ(rm->v[F_TAG], a_tags[i]);
                CHECK_EQ(rm->v[F_BYTES], a_bytes[i]);
                CHECK(x->order < rm->order);
            }
            /* found by the probe (the first) and by its receive */
            CHECK_EQ(count_where(su_e, F_SEQ, seq[i]), i == 0 ? 2 : 1);
        }
        CHECK_EQ(regs[R_P_ENQ].nrec, 3); /* B's two and the cancelled one */
        CHECK_EQ(regs[R_P_DEQ].nrec, 3); /* matched (2) or cancelled (1) */
        for (int i = 0; i < regs[R_P_ENQ].nrec; i++) {
            const struct rec *x = &regs[R_P_ENQ].rec[i];
            CHECK(x->v[F_REQ] != 0);
            CHECK_EQ(x->v[F_SOURCE], 0);
            CHECK(x->v[F_TAG] == 77 || x->v[F_TAG] == b_tags[0] || x->v[F_TAG] == b_tags[1]);
            CHECK(next_where(&regs[R_P_DEQ], F_REQ, x->v[F_REQ], x) != NULL); /* the same entry */
        }
        CHECK_EQ(sp_e->nrec, 5); /* one search per arrival */
        CHECK_EQ(count_where(sp_e, F_FOUND, 1), 2);
        for (int i = 0; i < sp_e->nrec; i++) /* found: the posted receive's id */
            if (sp_e->rec[i].v[F_FOUND] == 1)
                CHECK(has(&regs[R_P_ENQ], F_REQ, sp_e->rec[i].v[F_REQ]));
            else
                CHECK_EQ(sp_e->rec[i].v[F_REQ], 0);
        /* the probe and A's three receives found theirs; B's and the cancelled did not */
        CHECK_EQ(su_e->nrec, 7);
        CHECK_EQ(count_where(su_e, F_FOUND, 1), 4);
        CHECK_EQ(count_where(su_e, F_FOUND, 0), 3);
        if (su_b->nrec == 7 && su_e->nrec == 7) {
            /* the probe: both wildcards -1, no request; it found A's first message */
            const struct rec *pb = &su_b->rec[0], *pe = &su_e->rec[0];
            CHECK_EQ(pb->v[F_SOURCE], -1);
            CHECK_EQ(pb->v[F_TAG], -1);
            CHECK_EQ(pb->v[F_REQ], 0);
            CHECK_EQ(pe->v[F_SOURCE], -1);
            CHECK_EQ(pe->v[F_FOUND], 1);
            CHECK_EQ(pe->v[F_SEQ], seq[0]);
            CHECK_EQ(pe->v[F_REQ], 0);
            for (int i = 1; i < 7; i++) { /* the receives: a request always */
                const struct rec *e = &su_e->rec[i];
                CHECK_EQ(e->v[F_SOURCE], 0);
                CHECK(e->v[F_REQ] != 0);
                if (e->v[F_FOUND] == 0)
                    CHECK_EQ(e->v[F_SEQ], 0);
            }
        }
        CHECK_EQ(count_where(&regs[R_P_DEQ], F_TAG, 77), 1);
        /* MPI_Cancel on the receive with tag 77: cancelled, the receive's id and pattern */
        CHECK_EQ(regs[R_CANCEL].nrec, 1);
        const struct rec *cp = first_where(&regs[R_RECV_POSTED], F_TAG, 77);
        if (regs[R_CANCEL].nrec == 1 && cp) {
            const struct rec *x = &regs[R_CANCEL].rec[0];
            CHECK_EQ(x->v[F_REQ], cp->v[F_REQ]);
            CHECK_EQ(x->v[F_CANCELLED], 1);
            CHECK_EQ(x->v[F_PEER], 0);
            CHECK_EQ(x->v[F_TAG], 77);
            CHECK_EQ(x->v[F_IS_SEND], 0);
            CHECK(cp->order < x->order);
        }
        /* the receives: six posted (B's two, the cancelled, A's three), with their
         * capacity; each completed once, with what it received (0: cancelled) */
        const struct reg *rp = &regs[R_RECV_POSTED], *rc = &regs[R_COMPLETE];
        CHECK_EQ(rp->nrec, 6);
        CHECK_EQ(rc->nrec, 6);
        CHECK_EQ(regs[R_SEND_POSTED].nrec, 0);
        for (int i = 0; i < rp->nrec; i++) {
            const struct rec *p = &rp->rec[i];
            CHECK_EQ(p->v[F_IS_SEND], 0);
            CHECK_EQ(p->v[F_PEER], 0);
            const struct rec *c = next_where(rc, F_REQ, p->v[F_REQ], p);
            CHECK(c != NULL);
            if (!c)
                continue;
            CHECK_EQ(c->v[F_IS_SEND], 0);
            if (p->v[F_TAG] == 77) {
                CHECK_EQ(c->v[F_BYTES], 0);
            } else {
                CHECK_EQ(c->v[F_BYTES], p->v[F_BYTES]); /* the sizes posted are the sizes sent */
                CHECK_EQ(c->v[F_TAG], p->v[F_TAG]);
                CHECK_EQ(c->v[F_PEER], 0);
                /* its transfer, begun and ended, between posting and completion */
                const struct rec *xb = next_where(&regs[R_XFER_BEGIN], F_REQ, p->v[F_REQ], p);
                const struct rec *xe = next_where(&regs[R_XFER_END], F_REQ, p->v[F_REQ], p);
                CHECK(xb != NULL && xe != NULL);
                if (xb && xe) {
                    CHECK(xb->order < xe->order && xe->order < c->order);
                    CHECK_EQ(xb->v[F_BYTES], p->v[F_BYTES]);
                }
            }
        }
        CHECK_EQ(regs[R_XFER_BEGIN].nrec, 5);
        CHECK_EQ(regs[R_XFER_END].nrec, 5);
        /* MPI_COMM_WORLD's registration got D (7 bytes), the dup's did not */
        CHECK_EQ(count_where(&world_arrived, F_BYTES, 7), 2);
        CHECK_EQ(count_where(&regs[R_ARRIVED], F_BYTES, 7), 0);
    } else if (rank == 0) {
        /* the sender: five sends on the dup, each posted and completed once, with its
         * size; a send without a request (Open MPI's inline send) has request_id 0 */
        const struct reg *sp = &regs[R_SEND_POSTED], *rc = &regs[R_COMPLETE];
        CHECK_EQ(sp->nrec, 5);
        CHECK_EQ(rc->nrec, 5);
        CHECK_EQ(regs[R_RECV_POSTED].nrec + arrived, 0);
        for (int i = 0; i < sp->nrec && i < 5; i++) {
            const struct rec *p = &sp->rec[i];
            CHECK_EQ(p->v[F_IS_SEND], 1);
            CHECK_EQ(p->v[F_PEER], 1);
            CHECK_EQ(p->v[F_TAG], i < 3 ? a_tags[i] : b_tags[i - 3]);
            CHECK_EQ(p->v[F_BYTES], i < 3 ? a_bytes[i] : b_bytes[i - 3]);
            const struct rec *c = &rc->rec[i];
            CHECK_EQ(c->v[F_REQ], p->v[F_REQ]);
            CHECK_EQ(c->v[F_BYTES], p->v[F_BYTES]);
            CHECK_EQ(c->v[F_TAG], p->v[F_TAG]);
            CHECK(p->order < c->order);
        }
        /* transfers of the sends that had a request */
        CHECK_EQ(regs[R_XFER_BEGIN].nrec, regs[R_XFER_END].nrec);
        for (int i = 0; i < regs[R_XFER_BEGIN].nrec; i++) {
            int64_t id = regs[R_XFER_BEGIN].rec[i].v[F_REQ];
            CHECK(id != 0 && has(sp, F_REQ, id));
        }
    } else {
        /* nothing on the dup at the other ranks */
        CHECK_EQ(arrived, 0);
        CHECK_EQ(regs[R_P_ENQ].nrec + regs[R_SEND_POSTED].nrec + regs[R_RECV_POSTED].nrec, 0);
    }

    /* ---- 4. communicators created from the dup (bound to it: regs[R_COMM_CREATED]) and
     * from MPI_COMM_WORLD (pre[0]) */
    int world_created = pre[0].nrec;
    MPI_Comm child, child2, shared, cart;
    MPI_Comm_split(dup, rank % 2, rank, &child);
    MPI_Request ir;
    MPI_Comm_idup(dup, &child2, &ir);
    MPI_Wait(&ir, MPI_STATUS_IGNORE);
    static struct reg child_free;
    reg_alloc(&child_free, "comm_free", &child, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    int child_size;
    MPI_Comm_size(child, &child_size);
    MPI_Comm_free(&child);
    MPI_Comm_free(&child2);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    int dims[1] = {size}, periods[1] = {0};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    int world_created_comms = pre[0].nrec - world_created; /* split_type's and cart's */
    /* a window: win_create bound to its communicator, win_free bound to the window (by
     * reference and by value); its internal communicator is Open MPI's own: never
     * announced */
    MPI_Win win;
    static struct reg winc, winf[2];
    int have_win = 0;
    reg_alloc(&winc, "win_create", &world, MPI_T_CB_REQUIRE_NONE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_Win_create(sbuf, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_SUCCESS) {
        have_win = 1;
        reg_alloc(&winf[0], "win_free", &win, MPI_T_CB_REQUIRE_NONE);
        memset(&winf[1], 0, sizeof winf[1]);
        winf[1].event = "win_free";
        winf[1].level = MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
        describe(&winf[1]);
        T_OK(MPI_T_event_handle_alloc(winf[1].index, (void *)win, MPI_INFO_NULL, &winf[1].h));
        T_OK(MPI_T_event_register_callback(winf[1].h, winf[1].level, MPI_INFO_NULL, &winf[1],
                                           on_event));
        MPI_Win_free(&win);
        MPI_Win wnull = MPI_WIN_NULL;
        CHECK_EQ(MPI_T_event_handle_alloc(winf[0].index, &wnull, MPI_INFO_NULL, &bad),
                 MPI_T_ERR_INVALID_HANDLE);
    } else if (rank == 0) { /* over TCP only osc/pt2pt serves, and not MPI_THREAD_MULTIPLE */
        printf("test_events: no window here (no one-sided component for these transports)\n");
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int world_created_win = pre[0].nrec - world_created - world_created_comms;
    MPI_Comm_free(&shared);
    MPI_Comm_free(&cart);
    reg_free_all(&winc, 1);
    if (have_win)
        reg_free_all(winf, 2);
    if (disabled || !have_win) {
        CHECK_EQ(winc.nrec, 0);
    } else {
        /* one window, its key never a communicator's, over MPI_COMM_WORLD (key 1), 64
         * bytes here; its free, bound to it, with the same payload, through both
         * registrations */
        CHECK_EQ(winc.nrec, 1);
        CHECK_EQ(winf[0].nrec, 1);
        CHECK_EQ(winf[1].nrec, 1);
        if (winc.nrec == 1 && winf[0].nrec == 1 && winf[1].nrec == 1) {
            const struct rec *c = &winc.rec[0], *f = &winf[0].rec[0];
            CHECK(c->v[F_KEY] >= 16);
            CHECK_EQ(count_where(&pre[0], F_KEY, c->v[F_KEY]), 0);
            CHECK_EQ(c->v[F_COMM_KEY], 1);
            CHECK_EQ(c->v[F_BYTES], 64);
            CHECK_EQ(c->v[F_RANK], rank);
            CHECK_EQ(c->v[F_SIZE], size);
            for (int f_ = F_KEY; f_ < NF; f_++)
                CHECK_EQ(f->v[f_], c->v[f_]);
            CHECK_EQ(winf[1].rec[0].v[F_KEY], c->v[F_KEY]);
            CHECK(c->order < f->order);
        }
    }

    MPI_Comm dup_handle = dup;
    MPI_Comm_free(&dup);
    CHECK_EQ(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, &dup_handle, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID_HANDLE);

    reg_free_all(regs + NQREG, NREG - NQREG);
    reg_free_all(&child_free, 1);
    for (int i = NQREG; i < NREG; i++)
        CHECK_EQ(regs[i].dropped, 0);
    CHECK_EQ(ts_errors, 0);

    /* the dup: its comm_free, bound to it, and its comm_create, bound to MPI_COMM_WORLD */
    const struct reg *cf = &regs[R_COMM_FREED];
    CHECK_EQ(cf->delivered, disabled ? 0 : 1);
    int64_t dup_key = cf->nrec ? cf->rec[0].v[F_KEY] : -1;
    if (cf->nrec) {
        CHECK(dup_key >= 16); /* the predefined keys are 1 and 2; the others never reused */
        CHECK_EQ(cf->rec[0].v[F_PARENT], 1);
        CHECK_EQ(cf->rec[0].v[F_SIZE], size);
        CHECK_EQ(cf->rec[0].v[F_RANK], rank);
        const struct rec *dc = first_where(&pre[0], F_KEY, dup_key);
        CHECK(dc != NULL);
        CHECK_EQ(count_where(&pre[0], F_KEY, dup_key), 1);
        CHECK_EQ(count_where(&pre[1], F_KEY, dup_key), 1);
        if (dc) {
            CHECK_EQ(dc->v[F_PARENT], 1);
            CHECK_EQ(dc->v[F_SIZE], size);
            CHECK_EQ(dc->v[F_RANK], rank);
        }
    }
    const struct reg *cc = &regs[R_COMM_CREATED];
    if (disabled) {
        CHECK_EQ(cc->nrec + child_free.nrec + world_created_comms + world_created_win, 0);
    } else {
        /* the split and the idup of the dup, bound to the dup, created from it */
        CHECK_EQ(cc->nrec, 2);
        CHECK_EQ(created_from(cc, dup_key), cc->nrec);
        CHECK_EQ(child_free.nrec, 1);
        if (cc->nrec == 2 && child_free.nrec == 1) {
            const struct rec *f = &child_free.rec[0];
            CHECK_EQ(f->v[F_KEY], cc->rec[0].v[F_KEY]); /* the split's */
            CHECK_EQ(f->v[F_PARENT], dup_key);
            CHECK_EQ(f->v[F_SIZE], child_size);
            CHECK_EQ(cc->rec[0].v[F_SIZE], child_size);
            CHECK_EQ(cc->rec[0].v[F_RANK], rank / 2);
            CHECK(cc->rec[1].v[F_KEY] > cc->rec[0].v[F_KEY]);
            CHECK_EQ(cc->rec[1].v[F_SIZE], size);
        }
        /* one comm_create each for the shared-memory split and the Cartesian
         * communicator, none for the window's */
        CHECK_EQ(world_created_comms, 2);
        CHECK_EQ(world_created_win, 0);
        CHECK_EQ(created_from(&pre[0], 1), pre[0].nrec - 1);
        /* keys never reused, the predefined ones fixed */
        for (int i = 0; i < pre[0].nrec; i++) {
            CHECK_EQ(count_where(&pre[0], F_KEY, pre[0].rec[i].v[F_KEY]), 1);
            CHECK_EQ(count_where(cc, F_KEY, pre[0].rec[i].v[F_KEY]), 0);
            if (i > 0)
                CHECK(pre[0].rec[i].v[F_KEY] >= 16);
        }
        CHECK_EQ(pre[0].nrec, pre[1].nrec);
        CHECK_EQ(pre[2].nrec, 1); /* nothing was created from MPI_COMM_SELF */
    }

    reg_free_all(pre, 3);

    /* ---- 5. a message that arrives before its receiver has its communicator (the drain
     * in opal_progress, where the hold runs, is not there with MPI_THREAD_MULTIPLE) */
    if (!disabled && !multiple) {
        MPI_Comm pair;
        MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
        if (pair != MPI_COMM_NULL) {
            int held = 0, tries = 0;
            int64_t seq = 0;
            while (!held && tries++ < 5)
                held = early_round(pair, rank, &seq);
            if (!held)
                fprintf(stderr, "[rank %d] early arrival: in %d rounds, never a message that "
                        "arrived before its communicator was handed out\n", rank, tries - 1);
            CHECK(held);
            if (rank == 1 && held)
                printf("test_events: a message that arrived before its communicator was handed "
                       "out (seq %lld) reached its registrations (%d round%s)\n", (long long)seq,
                       tries, tries > 1 ? "s" : "");
            MPI_Comm_free(&pair);
        }
    }

    /* MPI_T_finalize before MPI_Finalize: Open MPI 4.1 crashes in an MPI_T_finalize after
     * MPI_Finalize, with or without this series (open-mpi/ompi#11485) */
    T_OK(MPI_T_finalize());
    CHECK_EQ(MPI_T_event_get_num(&nev), MPI_T_ERR_NOT_INITIALIZED);
    in_mpi = 0;
    MPI_Finalize();
    if (failures)
        fprintf(stderr, "[rank %d] test_events: %d failure(s)\n", rank, failures);
    else if (rank == 0)
        printf("test_events: %d ranks%s%s: ok\n", size, multiple ? ", MPI_THREAD_MULTIPLE" : "",
               disabled ? ", events compiled out" : "");
    return failures ? 1 : 0;
}
