/* test_events.c -- MPICH + mpitev's MPI_T events, checked the way a tool sees them: only
 * the standard MPI_T API of MPICH's mpi.h, no mpitev header. Needs 2 or more ranks.
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
 * 1. Before MPI_Init: the event types, sources, a nested MPI_T init/finalize, and two
 *    registrations on MPI_COMM_WORLD that see its comm_create, raised in MPI_Init.
 * 2. Enums (every type's element names, through MPICH's MPI_T_enum_get_*) and MPICH's
 *    categories (every type in exactly one), with their error codes.
 * 3. A pattern on a dup of MPI_COMM_WORLD, rank 0 -> rank 1: three messages that arrive
 *    before rank 1 posts receives (unexpected), two after (posted), a cancelled receive;
 *    then the same tags on MPI_COMM_WORLD. Each rank registers for the queue events on
 *    the dup and checks: delivered + dropped = raised (exactly, where the pattern fixes
 *    it; else the invariants every arrival obeys), the payloads (read by element name),
 *    that nothing of MPI_COMM_WORLD's traffic reaches them, non-decreasing timestamps per
 *    ordered source, free callbacks exactly once. message_arrived's callback runs at
 *    MPI_T_CB_REQUIRE_NONE and calls MPI_Iprobe, re-entering MPI inside the delivery.
 * 4. (queues) A tool that registers while messages wait unexpected, sent while nobody
 *    listened: the lengths its events report count them.
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

static int failures, my_rank = -1, clock_ns;
#define CHECK(c)                                                                            \
    do {                                                                                    \
        if (!(c)) {                                                                         \
            fprintf(stderr, "[rank %d] check failed at %s:%d: %s\n", my_rank, __FILE__,      \
                    __LINE__, #c);                                                          \
            failures++;                                                                     \
        }                                                                                   \
    } while (0)
#define CHECK_EQ(a, b)                                                                      \
    do {                                                                                    \
        long long a_ = (long long)(a), b_ = (long long)(b);                                 \
        if (a_ != b_) {                                                                     \
            fprintf(stderr, "[rank %d] check failed at %s:%d: %s == %s (%lld vs %lld)\n",   \
                    my_rank, __FILE__, __LINE__, #a, #b, a_, b_);                           \
            failures++;                                                                     \
        }                                                                                   \
    } while (0)
#define T_OK(call) CHECK_EQ((call), MPI_SUCCESS)

enum { F_SOURCE, F_TAG, F_CTX, F_QLEN, F_FOUND, F_COMPARED, F_LOCAL, F_BYTES, F_RANK, F_SIZE, NF };
static const char *field_names[NF] = {"source", "tag",      "context_id", "queue_length",
                                      "found",  "compared", "is_local",   "bytes",
                                      "rank",   "size"};
#define MAXREC 256
struct rec {
    int64_t v[NF];
};
struct reg {
    const char *event;
    MPI_T_cb_safety level;
    int index, field[NF];
    MPI_Datatype dtype[NF];
    MPI_T_event_registration h;
    long delivered, dropped, freed;
    int nrec, reenter;
    struct rec rec[MAXREC];
};

static int64_t last_ts[16];
static int ordered[16];
static int ts_errors, in_mpi;

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
    if (r->nrec < MAXREC) {
        struct rec *x = &r->rec[r->nrec++];
        for (int f = 0; f < NF; f++) {
            x->v[f] = INT64_MIN;
            if (r->field[f] < 0)
                continue;
            unsigned char buf[16] = {0};
            if (MPI_T_event_read(inst, r->field[f], buf) != MPI_SUCCESS)
                continue;
            if (r->dtype[f] == MPI_INT32_T) {
                int32_t v;
                memcpy(&v, buf, 4);
                x->v[f] = v;
            } else {
                memcpy(&x->v[f], buf, 8);
            }
        }
    }
    if (r->reenter && in_mpi) { /* allowed at NONE: re-enters MPI while it delivers */
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
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
    "unexpected_insert",      "unexpected_remove",      "comm_create",
    "comm_free"};
#define NALL ((int)(sizeof all_events / sizeof all_events[0]))

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
        CHECK_EQ(bind, i < 2 ? MPI_T_BIND_NO_OBJECT : MPI_T_BIND_MPI_COMM);
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
        if (i < 2) { /* element 0 is the source, element 1 the tag: MPICH's layout */
            char n0[16], n1[16];
            int l0 = 16, l1 = 16;
            T_OK(MPI_T_enum_get_item(e, 0, &value, n0, &l0));
            T_OK(MPI_T_enum_get_item(e, 1, &value, n1, &l1));
            CHECK(strcmp(n0, "source") == 0 && strcmp(n1, "tag") == 0);
        }
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

    /* sources: RECVQ (MPICH's name) ordered; the others unordered; one clock */
    int nsrc = 0;
    T_OK(MPI_T_source_get_num(&nsrc));
    CHECK_EQ(nsrc, 3);
    MPI_Count tps0 = 0;
    for (int s = 0; s < nsrc && s < 16; s++) {
        char sn[32];
        int sl = (int)sizeof sn;
        MPI_T_source_order order;
        MPI_Count tps = 0, max_ticks = 0;
        T_OK(MPI_T_source_get_info(s, sn, &sl, NULL, NULL, &order, &tps, &max_ticks, NULL));
        ordered[s] = order == MPI_T_SOURCE_ORDERED;
        CHECK_EQ(ordered[s], strcmp(sn, "RECVQ") == 0);
        CHECK(tps > 0 && max_ticks > 0);
        if (s == 0)
            tps0 = tps;
        CHECK_EQ(tps, tps0);
        if (clock_ns)
            CHECK_EQ(tps, 1000000000);
    }
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
enum { R_ARRIVED, R_UX_ENQ, R_UX_DEQ, R_P_ENQ, R_P_DEQ, R_SP_BEGIN, R_SP_END, R_SU_BEGIN,
       R_SU_END, R_COMM_FREED, R_UX_INS, R_UX_REM, NREG };
static const char *reg_events[NREG] = {
    "message_arrived",     "unexp_message_enqueued", "unexp_message_dequeued",
    "posted_insert",       "posted_remove",          "search_posted_begin",
    "search_posted_end",   "search_unexpected_begin", "search_unexpected_end",
    "comm_free",           "unexpected_insert",      "unexpected_remove"};
static const int a_tags[3] = {10, 11, 12}, a_bytes[3] = {100, 200, 300};
static const int b_tags[2] = {20, 21}, b_bytes[2] = {400, 500};

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

    struct reg pre[2]; /* comm_create on MPI_COMM_WORLD, raised inside MPI_Init */
    MPI_Comm world = MPI_COMM_WORLD;
    reg_alloc(&pre[0], "comm_create", &world, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    reg_alloc(&pre[1], "comm_create", &world, MPI_T_CB_REQUIRE_NONE);

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
    /* delivered by the end of MPI_Init, where MPI is usable: both callbacks are safe */
    CHECK_EQ(pre[0].delivered, disabled ? 0 : 1);
    CHECK_EQ(pre[1].delivered, disabled ? 0 : 1);
    if (!disabled) {
        CHECK_EQ(pre[0].rec[0].v[F_SIZE], size);
        CHECK_EQ(pre[0].rec[0].v[F_RANK], rank);
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
    static struct reg regs[NREG], world_arrived, unbound_enq;
    for (int i = 0; i < NREG; i++)
        reg_alloc(&regs[i], reg_events[i], (i == R_UX_ENQ || i == R_UX_DEQ) ? NULL : &dup,
                  i == R_ARRIVED ? MPI_T_CB_REQUIRE_NONE
                  : i % 2        ? MPI_T_CB_REQUIRE_MPI_RESTRICTED
                                 : MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    regs[R_ARRIVED].reenter = 1;
    reg_alloc(&world_arrived, "message_arrived", &world, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    (void)unbound_enq;
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
    int token = 0;
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
    MPI_Comm dup_handle = dup;
    MPI_Comm_free(&dup);
    CHECK_EQ(MPI_T_event_handle_alloc(regs[R_ARRIVED].index, &dup_handle, MPI_INFO_NULL, &bad),
             MPI_T_ERR_INVALID_HANDLE);

    reg_free_all(regs, NREG);
    reg_free_all(&world_arrived, 1);
    reg_free_all(pre, 2);
    for (int i = 0; i < NREG; i++) {
        if (regs[i].dropped)
            fprintf(stderr, "[rank %d] %s: %ld dropped\n", rank, regs[i].event, regs[i].dropped);
        CHECK_EQ(regs[i].dropped, 0); /* buffered, big enough, a safe drain level */
    }
    CHECK_EQ(ts_errors, 0);

    /* the dup's context id, from its comm_free */
    const struct reg *cf = &regs[R_COMM_FREED];
    CHECK_EQ(cf->delivered, disabled ? 0 : 1);
    int64_t dup_ctx = cf->nrec ? cf->rec[0].v[F_CTX] : -1;
    if (cf->nrec) {
        CHECK_EQ(cf->rec[0].v[F_SIZE], size);
        CHECK_EQ(cf->rec[0].v[F_RANK], rank);
    }
    /* everything bound to the dup is about the dup */
    for (int i = 0; i < NREG; i++)
        if (i != R_UX_ENQ && i != R_UX_DEQ)
            CHECK_EQ(count_where(&regs[i], F_CTX, dup_ctx), regs[i].nrec);
    /* the unbound types see every communicator: the dup's part of them */
    int ux_enq = count_where(&regs[R_UX_ENQ], F_CTX, dup_ctx);
    int ux_deq = count_where(&regs[R_UX_DEQ], F_CTX, dup_ctx);
    int arrived = regs[R_ARRIVED].nrec;
    /* searches come in pairs */
    CHECK_EQ(regs[R_SP_BEGIN].nrec, regs[R_SP_END].nrec);
    CHECK_EQ(regs[R_SU_BEGIN].nrec, regs[R_SU_END].nrec);

    if (!queues) {
        /* libfabric matches: MPICH's queues are not used, nothing of them is raised;
         * events compiled out: nothing at all */
        for (int i = 0; i < NREG; i++)
            if (i != R_COMM_FREED || disabled)
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
        for (int i = 0; i < regs[R_UX_INS].nrec && i < 3; i++) {
            CHECK_EQ(regs[R_UX_INS].rec[i].v[F_TAG], a_tags[i]);
            /* the length after the insert: with two ranks and one thread the queue holds
             * only these; else other communicators' messages come and go (the second
             * thread's, the next barrier's from idle ranks) */
            if (size == 2 && !multiple)
                CHECK_EQ(regs[R_UX_INS].rec[i].v[F_QLEN], i + 1);
            else
                CHECK(regs[R_UX_INS].rec[i].v[F_QLEN] >= 1);
        }
        CHECK_EQ(regs[R_P_ENQ].nrec, 3);            /* B's two and the cancelled one */
        CHECK_EQ(regs[R_P_DEQ].nrec, 3);            /* matched (2) or cancelled (1) */
        CHECK_EQ(regs[R_SP_END].nrec, 5);           /* one search per arrival */
        CHECK_EQ(count_where(&regs[R_SP_END], F_FOUND, 1), 2);
        CHECK_EQ(count_where(&regs[R_SU_END], F_FOUND, 1), 3);
        CHECK_EQ(count_where(&regs[R_SU_END], F_FOUND, 0), 3); /* B's and the cancelled */
        for (int i = 0; i < arrived && i < 5; i++) {
            const struct rec *x = &regs[R_ARRIVED].rec[i];
            CHECK_EQ(x->v[F_SOURCE], 0);
            CHECK_EQ(x->v[F_TAG], i < 3 ? a_tags[i] : b_tags[i - 3]);
            CHECK_EQ(x->v[F_BYTES], i < 3 ? a_bytes[i] : b_bytes[i - 3]);
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
        CHECK_EQ(count_where(&world_arrived, F_CTX, dup_ctx), 0);
        CHECK_EQ(count_where(&regs[R_ARRIVED], F_BYTES, 7), 0);
    } else {
        /* nothing arrives on the dup at the other ranks */
        CHECK_EQ(arrived, 0);
        CHECK_EQ(ux_enq, 0);
        CHECK_EQ(regs[R_P_ENQ].nrec, 0);
    }
    /* ---- 4. a tool that attaches while messages wait in the unexpected queue. Nobody
     * listens now: the lengths its events report must count the messages that were queued
     * while nobody listened. */
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
             * ranks' barrier messages may wait too); then each removal, its length after */
            const struct rec *ins = last_where(&late[0], F_TAG, 1032);
            CHECK(ins != NULL);
            if (ins) {
                if (size == 2 && !multiple)
                    CHECK_EQ(ins->v[F_QLEN], 3);
                else
                    CHECK(ins->v[F_QLEN] >= 3);
            }
            for (int t = 1030; t <= 1032; t++) {
                const struct rec *rem = last_where(&late[1], F_TAG, t);
                CHECK(rem != NULL);
                if (rem && size == 2 && !multiple)
                    CHECK_EQ(rem->v[F_QLEN], 1032 - t);
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
