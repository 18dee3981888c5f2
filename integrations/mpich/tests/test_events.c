/* test_events.c -- MPICH + mpitev's MPI_T events, checked the way a tool sees them: only
 * the standard MPI_T API of MPICH's mpi.h, no mpitev header. The event types are the
 * mpitev catalogue's (include/mpitev/catalog.h: names, element names and order,
 * bindings, conventions) plus MPICH's own two. Needs 2 or more ranks.
 *
 * usage: mpiexec -n N test_events [queues|provider|disabled] [multiple]
 *   queues    MPICH matches in its own queues (shared memory, or the network module
 *             with MPIR_CVAR_CH4_OFI_ENABLE_TAGGED=0): the receive-queue events fire
 *   provider  the network module matches in libfabric (MPIR_CVAR_NOLOCAL=1, tagged):
 *             MPICH has no queue there, none of its receive-queue events may fire
 *   disabled  MPICH + mpitev configured --disable-mpit-events: every type and source is
 *             there and registrations work, but nothing is ever raised
 *   multiple  MPI_Init_thread(MPI_THREAD_MULTIPLE), and a second thread on every rank
 *             exchanges messages on its own communicator meanwhile
 *
 * 1. Before MPI_Init: the event types, sources, a nested MPI_T init/finalize, and
 *    registrations on MPI_COMM_WORLD and MPI_COMM_SELF that see their comm_create,
 *    raised in MPI_Init (keys 1 and 2, parent_key 0).
 * 2. Enums (every type's element names, through MPICH's MPI_T_enum_get_*) and MPICH's
 *    categories (every type in exactly one), with their error codes.
 * 3. A pattern on a dup of MPI_COMM_WORLD, rank 0 -> rank 1: three messages that arrive
 *    before rank 1 posts receives (unexpected), a probe with wildcards, two messages
 *    after the receives are posted, a cancelled receive; then the same tags on
 *    MPI_COMM_WORLD. Each rank registers for the queue events on the dup and checks:
 *    delivered + dropped = raised (exactly, where the pattern fixes it; else the
 *    invariants every arrival obeys), the payloads (read by element name: a message's
 *    events share its seq, a receive's its request_id, wildcards are -1), that nothing
 *    of MPI_COMM_WORLD's traffic reaches them, non-decreasing timestamps per ordered
 *    source, free callbacks exactly once. message_arrived's callback runs at
 *    MPI_T_CB_REQUIRE_NONE and calls MPI_Iprobe, re-entering MPI inside the delivery.
 * 4. comm_create is bound to the communicator of the creating call (the parent): a tool
 *    registered there sees the new communicator's creation, with its key, parent_key,
 *    rank and size; comm_free, bound to the communicator itself, the same payload. Dup,
 *    split, idup, split_type (one comm_create, none for MPICH's intermediate
 *    communicators), a Cartesian communicator; a window's internal communicator is
 *    never announced; keys are never reused.
 * 5. (queues, not multiple) A message that arrives before its receiver has created the
 *    communicator: rank 0 sends on a new communicator while rank 1, still inside its
 *    MPI_Comm_dup (held by a callback until the message surely arrived), has not
 *    committed it. Rank 1 registers on the communicator right after creating it; its
 *    receive delivers the message's message_arrived and unexpected_insert (same seq,
 *    queue_length -1), before the search events.
 * 6. (queues) A tool that registers while messages wait unexpected, sent while nobody
 *    listened: the lengths its events report count them, their seq is 0 (none).
 * Clock: the three sources share one clock (MPIR_CVAR_EVENTS_CLOCK; with the argument
 * "monotonic" the test expects that CVAR's CLOCK_MONOTONIC, 10^9 ticks per second),
 * and their ticks over a 50 ms wait, divided by the rate MPI_T_source_get_info reports,
 * agree with MPI_Wtime within 10 %. */
#include <mpi.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpit_check.h"

static int clock_ns;

enum { F_SOURCE, F_TAG, F_CTX, F_QLEN, F_FOUND, F_BYTES, F_SEQ, F_REQ, F_KEY, F_PARENT, F_RANK,
       F_SIZE, F_PEER, F_IS_SEND, F_CANCELLED, NF };
static const char *field_names[NF] = {"source", "tag",        "context_id", "queue_length",
                                      "found",  "bytes",      "seq",        "request_id",
                                      "key",    "parent_key", "rank",       "size",
                                      "peer",   "is_send",    "cancelled"};
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
    int nrec, reenter, hold, held;
    struct rec rec[MAXREC];
};

enum { TAG_ORPHAN = 4242, TAG_MARKER = 4243, TAG_GO = 4244 };
static int64_t last_ts[16];
static int ordered[16];
static int ts_errors, in_mpi;
static _Atomic int reenter_seen; /* instances delivered to the registration with reenter set */

static void on_event(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety s,
                     void *ud)
{
    (void)h;
    struct reg *r = ud;
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
    if (r->reenter)
        reenter_seen++;
    if (r->reenter && in_mpi) { /* allowed at NONE: re-enters MPI while it delivers */
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    if (r->hold && in_mpi) {
        /* phase 5: hold the process here (a drain inside MPI_Comm_dup) until the marker
         * arrived, for up to a second: the sender may need a later message of this
         * process to finish its own MPI_Comm_dup (MPICH's allreduce of the context id
         * mask exchanges twice between two processes), and this hold then gives up; the
         * next receive's holds again */
        int flag = 0;
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < 1)
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

static void reg_alloc(struct reg *r, const char *event, MPI_Comm *comm, MPI_T_cb_safety level)
{
    memset(r, 0, sizeof *r);
    r->event = event;
    r->level = level;
    describe(r);
    T_OK(MPI_T_event_handle_alloc(r->index, comm, MPI_INFO_NULL, &r->h));
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

/* the last record whose element f is v, or NULL */
static const struct rec *last_where(const struct reg *r, int f, int64_t v)
{
    const struct rec *x = NULL;
    for (int i = 0; i < r->nrec; i++)
        if (r->rec[i].v[f] == v)
            x = &r->rec[i];
    return x;
}

/* ---------------------------------------------------------------- 2. enums, categories */
static const char *const all_events[] = {
    "unexp_message_enqueued", "unexp_message_dequeued", "message_arrived",
    "search_posted_begin",    "search_posted_end",      "search_unexpected_begin",
    "search_unexpected_end",  "posted_insert",          "posted_remove",
    "unexpected_insert",      "unexpected_remove",      "send_posted",
    "recv_posted",            "request_complete",       "request_cancel",
    "comm_create",            "comm_free",              "win_create",
    "win_free",               "put_started",            "put_complete",
    "get_started",            "get_complete",           "accumulate_started",
    "accumulate_complete",    "lock_acquired",          "lock_released",
    "sync_begin",             "sync_end"};
#define NALL ((int)(sizeof all_events / sizeof all_events[0]))
#define L_SEARCH "seq request_id source tag queue_length found"
#define L_POSTED "request_id source tag queue_length"
#define L_UNEXPECTED "bytes seq source tag queue_length"
#define L_REQUEST "bytes request_id peer tag is_send"
#define L_COMM "key parent_key rank size"
#define L_WIN "key comm_key bytes rank size"
#define L_RMA "target_disp bytes op_id target op"
static const char *const all_elements[NALL] = {
    "source tag context_id", "source tag context_id", "bytes seq source tag",
    L_SEARCH, L_SEARCH, L_SEARCH, L_SEARCH, L_POSTED, L_POSTED, L_UNEXPECTED, L_UNEXPECTED,
    L_REQUEST, L_REQUEST, L_REQUEST, "request_id peer tag is_send cancelled",
    L_COMM, L_COMM, L_WIN, L_WIN, L_RMA, L_RMA, L_RMA, L_RMA, L_RMA, L_RMA,
    "target lock_type", "target lock_type", "kind target", "kind target"};
/* the binding of all_events[i]: the two original types none, the window's events the
 * window (win_create: its communicator), the others the communicator */
static int bind_of(int i)
{
    if (i < 2)
        return MPI_T_BIND_NO_OBJECT;
    if (strcmp(all_events[i], "win_free") == 0 || i > 18)
        return MPI_T_BIND_MPI_WIN;
    return MPI_T_BIND_MPI_COMM;
}

static void check_types_enums_categories(void)
{
    int nev = 0, ncat = 0;
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
        /* the two original types stay unbound, as MPICH's test uses them */
        CHECK_EQ(bind, bind_of(i));
        CHECK(e != MPI_T_ENUM_NULL);
        T_OK(MPI_T_enum_get_info(e, &nn, en, &el));
        CHECK_EQ(nn, num);
        snprintf(want, sizeof want, "%s_elements", all_events[i]);
        CHECK(strcmp(en, want) == 0);
        /* (MPICH's MPI_T_enum_get_item requires the name buffer and its length) */
        int value, il = 32;
        char item[32];
        CHECK_EQ(MPI_T_enum_get_item(e, nn, &value, item, &il), MPI_T_ERR_INVALID_ITEM);
        CHECK_EQ(MPI_T_enum_get_item(e, -1, &value, item, &il), MPI_T_ERR_INVALID_ITEM);
        CHECK_EQ(MPI_T_enum_get_item(e, 0, NULL, item, &il), MPI_T_ERR_INVALID);
        /* the elements, in order: MPICH's layout for its own two (element 0 the source,
         * element 1 the tag, as before), the catalogue's for the others */
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
    /* MPICH's own enums still answer (a cvar's, if any has one) and a bad handle is refused */
    int nn;
    CHECK(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &nn, NULL, NULL) != MPI_SUCCESS);

    /* every event type is in exactly one of MPICH's categories */
    T_OK(MPI_T_category_get_num(&ncat));
    int total = 0, *seen = calloc((size_t)nev, sizeof *seen);
    for (int c = 0; c < ncat; c++) {
        int n = -1;
        T_OK(MPI_T_category_get_num_events(c, &n));
        if (n <= 0)
            continue;
        int *ind = malloc(sizeof(int) * (size_t)n);
        T_OK(MPI_T_category_get_events(c, n, ind));
        for (int i = 0; i < n; i++)
            if (ind[i] >= 0 && ind[i] < nev)
                seen[ind[i]]++;
        free(ind);
        total += n;
    }
    CHECK_EQ(total, nev);
    for (int i = 0; i < nev; i++)
        CHECK_EQ(seen[i], 1);
    free(seen);

    /* sources: one per VCI (VCI0, ...) ordered; OBJECTS and RMA unordered; one clock */
    int nsrc = 0, nvci = 0;
    T_OK(MPI_T_source_get_num(&nsrc));
    CHECK(nsrc >= 3);
    MPI_Count tps0 = 0;
    for (int s = 0; s < nsrc && s < 16; s++) {
        char sn[32];
        int sl = (int)sizeof sn;
        MPI_T_source_order order;
        MPI_Count tps = 0, max_ticks = 0;
        T_OK(MPI_T_source_get_info(s, sn, &sl, NULL, NULL, &order, &tps, &max_ticks, NULL));
        ordered[s] = order == MPI_T_SOURCE_ORDERED;
        CHECK_EQ(ordered[s], strncmp(sn, "VCI", 3) == 0);
        nvci += ordered[s];
        CHECK(tps > 0 && max_ticks > 0);
        if (s == 0)
            tps0 = tps;
        CHECK_EQ(tps, tps0);
        if (clock_ns)
            CHECK_EQ(tps, 1000000000);
    }
    CHECK_EQ(nsrc, nvci + 2);
    CHECK(nvci >= 1);
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
static volatile int stop_thread;
static MPI_Comm thread_comm;
static void *side_traffic(void *arg)
{
    (void)arg;
    int size, peer, rank, n = 0;
    MPI_Comm_size(thread_comm, &size);
    MPI_Comm_rank(thread_comm, &rank);
    peer = rank ^ 1;
    if (peer >= size)
        return NULL;
    /* a fixed number of exchanges, so both sides finish together */
    for (n = 0; n < 200; n++) {
        int x = n, y = -1;
        MPI_Sendrecv(&x, 1, MPI_INT, peer, 7, &y, 1, MPI_INT, peer, 7, thread_comm,
                     MPI_STATUS_IGNORE);
        CHECK_EQ(y, n);
    }
    return NULL;
}

/* ---------------------------------------------------------------- 3. the pattern */
/* the queues' types (NQREG of them, freed after phase 3), then the dup's communicator
 * types (freed after phase 4) */
enum { R_ARRIVED, R_UX_ENQ, R_UX_DEQ, R_P_ENQ, R_P_DEQ, R_SP_BEGIN, R_SP_END, R_SU_BEGIN,
       R_SU_END, R_UX_INS, R_UX_REM, R_SEND_POSTED, R_RECV_POSTED, R_REQ_COMPLETE, R_REQ_CANCEL,
       NQREG, R_COMM_FREED = NQREG, R_COMM_CREATED, NREG };
/* the transfer and requests family: raised on every path (also where libfabric matches) */
#define IS_TRANSFER(i) ((i) >= R_SEND_POSTED && (i) <= R_REQ_CANCEL)
static const char *reg_events[NREG] = {
    "message_arrived",     "unexp_message_enqueued", "unexp_message_dequeued",
    "posted_insert",       "posted_remove",          "search_posted_begin",
    "search_posted_end",   "search_unexpected_begin", "search_unexpected_end",
    "unexpected_insert",   "unexpected_remove",      "send_posted",
    "recv_posted",         "request_complete",       "request_cancel",
    "comm_free",           "comm_create"};
static const int a_tags[3] = {10, 11, 12}, a_bytes[3] = {100, 200, 300};
static const int b_tags[2] = {20, 21}, b_bytes[2] = {400, 500};

/* is t one of the tags of the pattern on the dup? */
static int dup_tag(int64_t t)
{
    return t == 10 || t == 11 || t == 12 || t == 20 || t == 21 || t == 77;
}

/* the first record of r whose element f is v delivered after the record `after` (a request
 * handle may be reused once the request is freed) */
static const struct rec *first_after(const struct reg *r, int f, int64_t v, const struct rec *after)
{
    for (int i = 0; i < r->nrec; i++)
        if (r->rec[i].v[f] == v && r->rec[i].order > after->order)
            return &r->rec[i];
    return NULL;
}

/* is some record of r's element f equal to v? */
static int has(const struct reg *r, int f, int64_t v)
{
    return first_where(r, f, v) != NULL;
}

/* the comm_create records of r that concern a communicator created from parent_key */
static int created_from(const struct reg *r, int64_t parent_key)
{
    return count_where(r, F_PARENT, parent_key);
}

/* ---------------------------------------------------------------- 5. the orphan */
/* Rank 0 sends on a communicator rank 1 has not committed yet. Both ranks duplicate a
 * communicator of the two (pair). Rank 1 holds itself inside its MPI_Comm_dup: the
 * callback of its search_unexpected_begin on pair (each receive of the allreduce of the
 * new context id; delivered by a drain after the receive and its send were posted)
 * probes, with MPI_Iprobe's progress, until a marker rank 0 sends on MPI_COMM_WORLD after
 * the message. When the marker comes there, rank 0 has its communicator (its allreduce
 * had all of rank 1's messages), rank 1 has not committed its own (it is inside the
 * allreduce, or inside the commit before the communicator has its key: the commit's
 * broadcast of a sequence number waits for rank 0), and the message, sent before the
 * marker on the same channel, has arrived: an orphan, its context id maps to no key
 * there. Then rank 1 registers on the new communicator and receives: the message's
 * arrival events come with the receive's search. The hold cannot tell a drain of the
 * commit from the drain at MPI_Comm_dup's exit, after the key is given: a round counts
 * if the insert's queue_length is -1 (raised late, the length at the insert unknown);
 * else it is retried. Returns 1 for a round that counts. */
static int orphan_round(MPI_Comm pair, int rank, int64_t *checked)
{
    static char buf[64];
    int token = 0, held = 0;
    MPI_Comm c;
    if (rank == 0) {
        MPI_Recv(&token, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_dup(pair, &c);
        MPI_Send(buf, 44, MPI_BYTE, 1, TAG_ORPHAN, c);
        MPI_Send(&token, 1, MPI_INT, 1, TAG_MARKER, MPI_COMM_WORLD);
        MPI_Recv(&held, 1, MPI_INT, 1, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_free(&c);
        return held;
    }
    static struct reg hold;
    reg_alloc(&hold, "search_unexpected_begin", &pair, MPI_T_CB_REQUIRE_NONE);
    MPI_Send(&token, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
    hold.hold = 1; /* from here on: inside MPI_Comm_dup */
    MPI_Comm_dup(pair, &c);
    held = hold.held;
    hold.hold = 0;
    /* registered right after creation, before anything is received on it */
    enum { O_ARRIVED, O_INS, O_REM, O_SU_BEGIN, O_SU_END, NO };
    static const char *names[NO] = {"message_arrived", "unexpected_insert", "unexpected_remove",
                                     "search_unexpected_begin", "search_unexpected_end"};
    static struct reg o[NO];
    for (int i = 0; i < NO; i++)
        reg_alloc(&o[i], names[i], &c, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    MPI_Recv(buf, 64, MPI_BYTE, 0, TAG_ORPHAN, c, MPI_STATUS_IGNORE);
    MPI_Recv(&token, 1, MPI_INT, 0, TAG_MARKER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    reg_free_all(o, NO);
    reg_free_all(&hold, 1);
    int counts = held && has(&o[O_INS], F_QLEN, -1);
    MPI_Send(&counts, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD);
    MPI_Comm_free(&c);
    if (!counts)
        return 0;
    /* the message's events, all with its seq: arrival and insert (raised when the receive
     * first searched the queue, the insert's queue length unknown), then the search that
     * found it and the removal */
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
    CHECK(seq > 0);
    CHECK_EQ(ar->v[F_SOURCE], 0);
    CHECK_EQ(ar->v[F_TAG], TAG_ORPHAN);
    CHECK_EQ(ar->v[F_BYTES], 44);
    CHECK_EQ(in->v[F_SEQ], seq);
    CHECK_EQ(in->v[F_SOURCE], 0);
    CHECK_EQ(in->v[F_TAG], TAG_ORPHAN);
    CHECK_EQ(in->v[F_BYTES], 44);
    CHECK_EQ(in->v[F_QLEN], -1);
    CHECK_EQ(rm->v[F_SEQ], seq);
    CHECK_EQ(se->v[F_SEQ], seq);
    CHECK_EQ(se->v[F_FOUND], 1);
    CHECK_EQ(sb->v[F_FOUND], -1);
    CHECK_EQ(sb->v[F_TAG], TAG_ORPHAN);
    CHECK(ar->order < in->order && in->order < sb->order && sb->order < rm->order &&
          rm->order < se->order);
    *checked = seq;
    return 1;
}

int main(int argc, char **argv)
{
    int queues = 1, multiple = 0, disabled = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "provider") == 0)
            queues = 0;
        else if (strcmp(argv[i], "disabled") == 0)
            queues = 0, disabled = 1;
        else if (strcmp(argv[i], "multiple") == 0)
            multiple = 1;
        else if (strcmp(argv[i], "monotonic") == 0)
            clock_ns = 1;
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
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    my_rank = rank;
    in_mpi = 1;
    if (size < 2) {
        fprintf(stderr, "test_events: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* delivered by the end of MPI_Init, where MPI is usable: both callbacks are safe;
     * the predefined communicators bound to themselves, keys 1 and 2, no parent */
    CHECK_EQ(pre[0].delivered, disabled ? 0 : 1);
    CHECK_EQ(pre[1].delivered, disabled ? 0 : 1);
    CHECK_EQ(pre[2].delivered, disabled ? 0 : 1);
    if (!disabled && pre[0].nrec && pre[2].nrec) {
        CHECK_EQ(pre[0].rec[0].v[F_KEY], 1);
        CHECK_EQ(pre[0].rec[0].v[F_PARENT], 0);
        CHECK_EQ(pre[0].rec[0].v[F_SIZE], size);
        CHECK_EQ(pre[0].rec[0].v[F_RANK], rank);
        CHECK_EQ(pre[2].rec[0].v[F_KEY], 2);
        CHECK_EQ(pre[2].rec[0].v[F_PARENT], 0);
        CHECK_EQ(pre[2].rec[0].v[F_SIZE], 1);
        CHECK_EQ(pre[2].rec[0].v[F_RANK], 0);
    }

    /* ---- 2. */
    check_types_enums_categories();
    check_clock();

    /* ---- 3. */
    pthread_t th;
    if (multiple) {
        MPI_Comm_dup(MPI_COMM_WORLD, &thread_comm);
        pthread_create(&th, NULL, side_traffic, NULL);
    }
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    static struct reg regs[NREG], world_arrived;
    for (int i = 0; i < NREG; i++)
        reg_alloc(&regs[i], reg_events[i], (i == R_UX_ENQ || i == R_UX_DEQ) ? NULL : &dup,
                  i == R_ARRIVED ? MPI_T_CB_REQUIRE_NONE
                  : i % 2        ? MPI_T_CB_REQUIRE_MPI_RESTRICTED
                                 : MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    regs[R_ARRIVED].reenter = 1;
    reg_alloc(&world_arrived, "message_arrived", &world, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    /* error paths of the object-key hook */
    MPI_Comm null = MPI_COMM_NULL;
    MPI_T_event_registration bad;
    CHECK_EQ(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, &null, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, NULL, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID);
    /* a handle passed by value (a tool written for pointer handles) is taken as a handle */
    MPI_T_event_registration byval;
    T_OK(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, (void *)(uintptr_t)MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &byval));
    T_OK(MPI_T_event_handle_free(byval, NULL, NULL));
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
        if (queues) { /* a probe with both wildcards finds A's first message */
            /* MPI orders messages per communicator only: with several VCIs the dup's
             * messages may come after the token of MPI_COMM_WORLD. Wait (10 s at most)
             * until the dup's message_arrived registration has seen A's three, making
             * progress on MPI_COMM_SELF, whose searches no registration here sees. */
            double t0 = MPI_Wtime();
            while (reenter_seen < 3 && MPI_Wtime() - t0 < 10) {
                int f;
                MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_SELF, &f, MPI_STATUS_IGNORE);
            }
            MPI_Status pst;
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, dup, &probed, &pst);
            CHECK(probed);
            if (probed)
                CHECK_EQ(pst.MPI_TAG, a_tags[0]);
        }
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
        MPI_Status sts[5]; /* (gcc 12 warns about MPICH's MPI_STATUSES_IGNORE here) */
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
    MPI_Barrier(MPI_COMM_WORLD); /* no collective on the dup before they are all freed */

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
    MPI_Win win; /* its internal communicator is MPICH's own: never announced */
    MPI_Win_create(sbuf, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_free(&win);
    int world_created_win = pre[0].nrec - world_created - world_created_comms;
    MPI_Comm_free(&shared);
    MPI_Comm_free(&cart);

    MPI_Comm dup_handle = dup;
    MPI_Comm_free(&dup);
    CHECK_EQ(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, &dup_handle, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID_HANDLE);

    reg_free_all(regs + NQREG, NREG - NQREG);
    reg_free_all(&child_free, 1);
    for (int i = 0; i < NREG; i++) {
        if (regs[i].dropped)
            fprintf(stderr, "[rank %d] %s: %ld dropped\n", rank, regs[i].event, regs[i].dropped);
        CHECK_EQ(regs[i].dropped, 0); /* buffered, big enough, a safe drain level */
    }
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
    /* phase 4 */
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
         * communicator (none for the intermediate communicators MPICH creates inside
         * MPI_Comm_split_type), none for the window's */
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

    /* everything bound to the dup is about the dup: its tags only (nothing of
     * MPI_COMM_WORLD's barrier, of D, of the second thread's communicator) */
    for (int i = 0; i < NQREG; i++)
        if (i != R_UX_ENQ && i != R_UX_DEQ)
            for (int k = 0; k < regs[i].nrec; k++) {
                CHECK(dup_tag(regs[i].rec[k].v[F_TAG]) || regs[i].rec[k].v[F_TAG] == -1);
                if (regs[i].rec[k].v[F_BYTES] != INT64_MIN)
                    CHECK(regs[i].rec[k].v[F_BYTES] != 7);
            }
    /* the unbound types see every communicator: the dup's part of them (A's last message
     * names the dup's context id: tag 12 from rank 0 is sent on no other communicator) */
    const struct rec *a2 = last_where(&regs[R_UX_ENQ], F_TAG, a_tags[2]);
    int64_t dup_ctx = a2 ? a2->v[F_CTX] : -1;
    int ux_enq = count_where(&regs[R_UX_ENQ], F_CTX, dup_ctx);
    int ux_deq = count_where(&regs[R_UX_DEQ], F_CTX, dup_ctx);
    int arrived = regs[R_ARRIVED].nrec;
    /* searches come in pairs, with the same seq where the begin has one */
    CHECK_EQ(regs[R_SP_BEGIN].nrec, regs[R_SP_END].nrec);
    CHECK_EQ(regs[R_SU_BEGIN].nrec, regs[R_SU_END].nrec);
    for (int i = 0; i < regs[R_SP_BEGIN].nrec && i < regs[R_SP_END].nrec; i++) {
        CHECK_EQ(regs[R_SP_BEGIN].rec[i].v[F_SEQ], regs[R_SP_END].rec[i].v[F_SEQ]);
        CHECK_EQ(regs[R_SP_BEGIN].rec[i].v[F_FOUND], -1);
        CHECK_EQ(regs[R_SP_BEGIN].rec[i].v[F_REQ], 0);
    }
    for (int i = 0; i < regs[R_SU_BEGIN].nrec; i++) {
        CHECK_EQ(regs[R_SU_BEGIN].rec[i].v[F_FOUND], -1);
        CHECK_EQ(regs[R_SU_BEGIN].rec[i].v[F_SEQ], 0);
    }

    /* the transfer and requests family, on every path: rank 0 posted five sends on the
     * dup (A, B), rank 1 six receives (B's two, the cancelled one, A's three) */
    if (disabled) {
        for (int i = R_SEND_POSTED; i <= R_REQ_CANCEL; i++)
            CHECK_EQ(regs[i].nrec, 0);
    } else if (rank == 0) {
        const struct reg *sp = &regs[R_SEND_POSTED], *rc = &regs[R_REQ_COMPLETE];
        CHECK_EQ(sp->nrec, 5);
        CHECK_EQ(rc->nrec, 5);
        CHECK_EQ(regs[R_RECV_POSTED].nrec + regs[R_REQ_CANCEL].nrec, 0);
        for (int i = 0; i < sp->nrec && i < 5 && i < rc->nrec; i++) {
            const struct rec *x = &sp->rec[i], *c = &rc->rec[i];
            CHECK_EQ(x->v[F_PEER], 1);
            CHECK_EQ(x->v[F_TAG], i < 3 ? a_tags[i] : b_tags[i - 3]);
            CHECK_EQ(x->v[F_BYTES], i < 3 ? a_bytes[i] : b_bytes[i - 3]);
            CHECK_EQ(x->v[F_IS_SEND], 1);
            CHECK(x->v[F_REQ] != 0);
            /* blocking sends: each completes before the next is posted */
            CHECK_EQ(c->v[F_REQ], x->v[F_REQ]);
            CHECK_EQ(c->v[F_PEER], 1);
            CHECK_EQ(c->v[F_TAG], x->v[F_TAG]);
            CHECK_EQ(c->v[F_BYTES], x->v[F_BYTES]);
            CHECK_EQ(c->v[F_IS_SEND], 1);
            CHECK(x->order < c->order);
        }
    } else if (rank == 1) {
        const struct reg *rp = &regs[R_RECV_POSTED], *rc = &regs[R_REQ_COMPLETE];
        const struct reg *cn = &regs[R_REQ_CANCEL];
        static const int tags[6] = {20, 21, 77, 10, 11, 12}, cap[6] = {400, 500, 1, 100, 200, 300};
        CHECK_EQ(rp->nrec, 6);
        CHECK_EQ(rc->nrec, 6);
        CHECK_EQ(regs[R_SEND_POSTED].nrec, 0);
        CHECK_EQ(cn->nrec, 1);
        for (int i = 0; i < rp->nrec && i < 6; i++) {
            const struct rec *x = &rp->rec[i];
            CHECK_EQ(x->v[F_PEER], 0);
            CHECK_EQ(x->v[F_TAG], tags[i]);
            CHECK_EQ(x->v[F_BYTES], cap[i]);
            CHECK_EQ(x->v[F_IS_SEND], 0);
            CHECK(x->v[F_REQ] != 0);
            /* its completion: the same request, the matched source and tag and the bytes
             * received; the cancelled one: 0 bytes, its pattern */
            const struct rec *c = first_after(rc, F_REQ, x->v[F_REQ], x);
            CHECK(c != NULL);
            if (c) {
                CHECK_EQ(c->v[F_PEER], 0);
                CHECK_EQ(c->v[F_TAG], tags[i]);
                CHECK_EQ(c->v[F_BYTES], tags[i] == 77 ? 0 : cap[i]);
                CHECK_EQ(c->v[F_IS_SEND], 0);
                CHECK(x->order < c->order);
            }
            if (tags[i] == 77 && cn->nrec == 1) {
                CHECK_EQ(cn->rec[0].v[F_REQ], x->v[F_REQ]);
                CHECK_EQ(cn->rec[0].v[F_TAG], 77);
                CHECK_EQ(cn->rec[0].v[F_PEER], 0);
                CHECK_EQ(cn->rec[0].v[F_IS_SEND], 0);
                CHECK_EQ(cn->rec[0].v[F_CANCELLED], 1);
            }
        }
    } else {
        for (int i = R_SEND_POSTED; i <= R_REQ_CANCEL; i++)
            CHECK_EQ(regs[i].nrec, 0);
    }

    if (!queues) {
        /* libfabric matches: MPICH's queues are not used, nothing of them is raised;
         * events compiled out: nothing at all */
        for (int i = 0; i < NREG; i++)
            if ((i != R_COMM_FREED && i != R_COMM_CREATED && !IS_TRANSFER(i)) || disabled)
                CHECK_EQ(regs[i].nrec, 0);
        CHECK_EQ(ux_enq + ux_deq, 0);
        if (disabled)
            CHECK_EQ(world_arrived.nrec, 0);
    } else if (rank == 1) {
        /* A and B: five arrivals, three of them unexpected, two matched posted receives */
        CHECK_EQ(arrived, 5);
        CHECK_EQ(ux_enq, 3);
        CHECK_EQ(ux_deq, 3);
        CHECK_EQ(regs[R_UX_INS].nrec, 3);           /* the bound pair: the same three */
        CHECK_EQ(regs[R_UX_REM].nrec, 3);
        /* the arrivals' seqs: numbered in arrival order */
        int64_t seq[5] = {0};
        for (int i = 0; i < arrived && i < 5; i++) {
            const struct rec *x = &regs[R_ARRIVED].rec[i];
            seq[i] = x->v[F_SEQ];
            CHECK(seq[i] > (i ? seq[i - 1] : 0));
            CHECK_EQ(x->v[F_SOURCE], 0);
            CHECK_EQ(x->v[F_TAG], i < 3 ? a_tags[i] : b_tags[i - 3]);
            CHECK_EQ(x->v[F_BYTES], i < 3 ? a_bytes[i] : b_bytes[i - 3]);
            /* each arrival searched the posted queue once, with its seq */
            CHECK_EQ(count_where(&regs[R_SP_END], F_SEQ, seq[i]), 1);
        }
        for (int i = 0; i < regs[R_UX_INS].nrec && i < 3; i++) {
            const struct rec *x = &regs[R_UX_INS].rec[i];
            CHECK_EQ(x->v[F_TAG], a_tags[i]);
            CHECK_EQ(x->v[F_SEQ], seq[i]);
            CHECK_EQ(x->v[F_BYTES], a_bytes[i]);
            CHECK_EQ(x->v[F_SOURCE], 0);
            /* the length after the insert: with two ranks and one thread the queue holds
             * only these; else other communicators' messages come and go (the second
             * thread's, the next barrier's from idle ranks) */
            if (size == 2 && !multiple)
                CHECK_EQ(x->v[F_QLEN], i + 1);
            else
                CHECK(x->v[F_QLEN] >= 1);
            /* removed once, with its seq: the receive's search found it */
            const struct rec *rm = first_where(&regs[R_UX_REM], F_SEQ, seq[i]);
            CHECK(rm != NULL);
            if (rm)
                CHECK_EQ(rm->v[F_TAG], a_tags[i]);
            CHECK_EQ(count_where(&regs[R_SU_END], F_SEQ, seq[i]), i == 0 ? 2 : 1);
        }
        CHECK_EQ(regs[R_P_ENQ].nrec, 3);            /* B's two and the cancelled one */
        CHECK_EQ(regs[R_P_DEQ].nrec, 3);            /* matched (2) or cancelled (1) */
        for (int i = 0; i < regs[R_P_ENQ].nrec; i++) {
            const struct rec *x = &regs[R_P_ENQ].rec[i];
            CHECK(x->v[F_REQ] != 0);
            CHECK_EQ(x->v[F_SOURCE], 0);
            CHECK(x->v[F_TAG] == 77 || x->v[F_TAG] == b_tags[0] || x->v[F_TAG] == b_tags[1]);
            CHECK_EQ(count_where(&regs[R_P_DEQ], F_REQ, x->v[F_REQ]), 1); /* the same entry */
        }
        CHECK_EQ(regs[R_SP_END].nrec, 5);           /* one search per arrival */
        CHECK_EQ(count_where(&regs[R_SP_END], F_FOUND, 1), 2);
        for (int i = 0; i < regs[R_SP_END].nrec; i++) /* found: the posted receive's id */
            if (regs[R_SP_END].rec[i].v[F_FOUND] == 1)
                CHECK(has(&regs[R_P_ENQ], F_REQ, regs[R_SP_END].rec[i].v[F_REQ]));
            else
                CHECK_EQ(regs[R_SP_END].rec[i].v[F_REQ], 0);
        /* the probe and A's three receives found theirs; B's and the cancelled did not */
        CHECK_EQ(regs[R_SU_END].nrec, 7);
        CHECK_EQ(count_where(&regs[R_SU_END], F_FOUND, 1), 4);
        CHECK_EQ(count_where(&regs[R_SU_END], F_FOUND, 0), 3);
        if (regs[R_SU_BEGIN].nrec == 7 && regs[R_SU_END].nrec == 7) {
            /* the probe: both wildcards -1, no request; it found A's first message */
            const struct rec *pb = &regs[R_SU_BEGIN].rec[0], *pe = &regs[R_SU_END].rec[0];
            CHECK_EQ(pb->v[F_SOURCE], -1);
            CHECK_EQ(pb->v[F_TAG], -1);
            CHECK_EQ(pb->v[F_REQ], 0);
            CHECK_EQ(pe->v[F_SOURCE], -1);
            CHECK_EQ(pe->v[F_FOUND], 1);
            CHECK_EQ(pe->v[F_SEQ], seq[0]);
            CHECK_EQ(pe->v[F_REQ], 0);
            for (int i = 1; i < 7; i++) { /* the receives: a request once found */
                const struct rec *e = &regs[R_SU_END].rec[i];
                CHECK_EQ(e->v[F_SOURCE], 0);
                if (e->v[F_FOUND] == 1)
                    CHECK(e->v[F_REQ] != 0);
                else
                    CHECK_EQ(e->v[F_SEQ], 0);
            }
        }
        int k = 0;
        for (int i = 0; i < regs[R_UX_ENQ].nrec; i++) /* the original layout: source, tag */
            if (regs[R_UX_ENQ].rec[i].v[F_CTX] == dup_ctx && k < 3) {
                CHECK_EQ(regs[R_UX_ENQ].rec[i].v[F_SOURCE], 0);
                CHECK_EQ(regs[R_UX_ENQ].rec[i].v[F_TAG], a_tags[k]);
                k++;
            }
        CHECK_EQ(count_where(&regs[R_P_DEQ], F_TAG, 77), 1);
        /* MPI_COMM_WORLD's registration got D (7 bytes), the dup's did not */
        CHECK_EQ(count_where(&world_arrived, F_BYTES, 7), 2);
        CHECK_EQ(count_where(&regs[R_ARRIVED], F_BYTES, 7), 0);
        /* the dup's arrivals are not the world's: seqs number every arrival once */
        for (int i = 0; i < arrived && i < 5; i++)
            CHECK_EQ(count_where(&world_arrived, F_SEQ, seq[i]), 0);
    } else {
        /* nothing arrives on the dup at the other ranks */
        CHECK_EQ(arrived, 0);
        CHECK_EQ(ux_enq, 0);
        CHECK_EQ(regs[R_P_ENQ].nrec, 0);
    }
    reg_free_all(pre, 3);

    /* ---- 5. a message that arrives before its receiver has created its communicator */
    if (queues && !multiple) {
        MPI_Comm pair;
        MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
        if (pair != MPI_COMM_NULL) {
            int held = 0, tries = 0;
            int64_t seq = 0;
            while (!held && tries++ < 5)
                held = orphan_round(pair, rank, &seq);
            if (!held)
                fprintf(stderr, "[rank %d] orphan: in %d rounds, never a message that arrived "
                        "before its communicator was committed, its events raised late\n",
                        rank, tries - 1);
            CHECK(held);
            if (rank == 1 && held)
                printf("test_events: an orphan message (seq %lld) reached the registrations of "
                       "its communicator (%d round%s)\n", (long long)seq, tries, tries > 1 ? "s" : "");
            MPI_Comm_free(&pair);
        }
    }

    /* ---- 6. a tool that attaches while messages wait in the unexpected queue. Nobody
     * listens now: the lengths its events report must count the messages that were queued
     * while nobody listened. */
    MPI_Barrier(MPI_COMM_WORLD); /* every registration is freed */
    if (queues) {
        /* unexpected_insert, unexpected_remove on MPI_COMM_WORLD; tags above MPICH's
         * internal ones (its collectives' messages are MPI_COMM_WORLD's too) */
        static struct reg late[2];
        if (rank == 0) {
            for (int t = 1030; t <= 1031; t++) /* E: while nobody listens */
                MPI_Send(sbuf, 1, MPI_BYTE, 1, t, MPI_COMM_WORLD);
            MPI_Send(&token, 1, MPI_INT, 1, 96, MPI_COMM_WORLD); /* after E, in order */
            MPI_Recv(&token, 1, MPI_INT, 1, 95, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, 1, MPI_BYTE, 1, 1032, MPI_COMM_WORLD); /* F: a tool listens */
            /* nothing more to rank 1 (the barrier's message) until it has E and F */
            MPI_Recv(&token, 1, MPI_INT, 1, 94, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&token, 1, MPI_INT, 0, 96, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* E waits */
            reg_alloc(&late[0], "unexpected_insert", &world, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
            reg_alloc(&late[1], "unexpected_remove", &world, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
            MPI_Send(&token, 1, MPI_INT, 0, 95, MPI_COMM_WORLD);
            MPI_Probe(0, 1032, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* F arrived, unexpected too */
            for (int t = 1030; t <= 1032; t++)
                MPI_Recv(rbuf, 1, MPI_BYTE, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&token, 1, MPI_INT, 0, 94, MPI_COMM_WORLD);
            reg_free_all(late, 2);
            /* F's insert counts E: 3 (exactly 3 with two ranks and one thread; else other
             * ranks' barrier messages may wait too); then each removal, its length after.
             * E arrived while nobody listened: no seq (0); F's is not 0 */
            const struct rec *ins = last_where(&late[0], F_TAG, 1032);
            CHECK(ins != NULL);
            if (ins) {
                if (size == 2 && !multiple)
                    CHECK_EQ(ins->v[F_QLEN], 3);
                else
                    CHECK(ins->v[F_QLEN] >= 3);
                CHECK(ins->v[F_SEQ] > 0);
            }
            for (int t = 1030; t <= 1032; t++) {
                const struct rec *rem = last_where(&late[1], F_TAG, t);
                CHECK(rem != NULL);
                if (rem && size == 2 && !multiple)
                    CHECK_EQ(rem->v[F_QLEN], 1032 - t);
                if (rem)
                    CHECK(t == 1032 ? rem->v[F_SEQ] > 0 : rem->v[F_SEQ] == 0);
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }

    in_mpi = 0;
    int mine = failures, total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    T_OK(MPI_T_finalize());
    CHECK_EQ(MPI_T_event_get_num(&nev), MPI_T_ERR_NOT_INITIALIZED);
    MPI_Finalize();
    if (rank == 0)
        printf("test_events (%s%s, %d ranks): %s\n", queues ? "queues" : disabled ? "disabled" : "provider",
               multiple ? ", MPI_THREAD_MULTIPLE" : "", size, total ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
