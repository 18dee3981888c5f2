/* test_events.c -- toy_mpi's MPI_T events, checked the way a tool sees them: only the
 * standard MPI_T API of mpi.h at run time. Needs 2 or more ranks. The one exception is at
 * compile time: the toy's src/events.h gives the list of types (TOYMPI_EVENTS), so a type
 * added to that list is checked here without editing this file.
 *
 * 1. Before MPI_Init: MPI_T_init_thread shows the events and sources (every name of
 *    TOYMPI_EVENTS at its index, and nothing else); an init/finalize
 *    cycle; registrations on MPI_COMM_WORLD see its comm_create raised in MPI_Init (one
 *    with a MPI_RESTRICTED callback gets it, one with only a NONE callback gets it
 *    reported as dropped: MPI_Init raises it at MPI_RESTRICTED).
 * 2. Enum and category functions: values, strings, error codes.
 * 3. A known pattern on a dup of MPI_COMM_WORLD, rank 0 -> rank 1: three eager messages
 *    that arrive before rank 1 posts receives (unexpected path), two after (posted path),
 *    one rendezvous message, a cancelled receive; then the same tags on MPI_COMM_WORLD.
 *    Every rank registers for 16 event types on the dup and checks the exact number of
 *    instances (delivered + dropped = raised), their payloads (read by element name,
 *    through the enum), that nothing of MPI_COMM_WORLD's traffic reaches them, that
 *    timestamps never decrease per source, and that each free callback runs exactly
 *    once. The message_arrived callback runs at MPI_T_CB_REQUIRE_NONE and calls
 *    MPI_Iprobe, re-entering the progress engine that delivers it. */
#include <mpi.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "toympi_check.h"

/* The toy's own list of event types (src/events.h; include path set in CMakeLists.txt):
 * what MPI_T must show, in list order (events.c declares them in that order). This file
 * raises nothing: with the events compiled out, the header's generated functions
 * reference nothing of mpitev, which the test does not link. */
#ifndef MPITEV_DISABLE
#define MPITEV_DISABLE 1
#endif
#include "events.h"
#define EV_NAME(name, layout, bind, flags, verbosity, level, text) #name,
static const char *const toy_events[TOYMPI_EV_NUM_TYPES] = {TOYMPI_EVENTS(EV_NAME)};
/* Every payload fits a record of the sources' rings (events.c, TOYMPI_RECORD_BYTES, the
 * API source's default too): a larger one is dropped at every buffered raise. */
#define EV_FITS(name, layout, bind, flags, verbosity, level, text)                         \
    _Static_assert(sizeof(struct name##_payload) <= 64,                                    \
                   #name ": payload larger than the 64-byte records of events.c");
TOYMPI_EVENTS(EV_FITS)

#define T_OK(call) CHECK_EQ_INT((call), MPI_SUCCESS)
#define BIG 65536
#define MAXREC 64

/* payload fields a tool reads by element name */
enum { F_KEY, F_PARENT_KEY, F_SOURCE, F_TAG, F_BYTES, F_SEQ, F_FOUND, F_IS_SEND, F_STEP,
       F_PEER, F_CANCELLED, F_SIZE, F_RANK, F_REQUEST_ID, NF };
static const char *field_names[NF] = {"key", "parent_key", "source", "tag", "bytes", "seq",
                                      "found", "is_send", "step", "peer", "cancelled", "size",
                                      "rank", "request_id"};

struct rec {
    int64_t v[NF];
};
struct reg {
    const char *event;
    MPI_T_cb_safety level;
    int index;
    int field[NF]; /* element index of each field, -1 if the type has none */
    MPI_Datatype dtype[NF];
    MPI_T_event_registration h;
    long delivered, dropped, freed;
    int nrec;
    struct rec rec[MAXREC];
    int reenter; /* callback calls MPI_Iprobe (NONE level only) */
};

static int64_t last_ts[8];
static int ts_errors, in_mpi;

static void on_event(MPI_T_event_instance inst, MPI_T_event_registration h, MPI_T_cb_safety s,
                     void *ud)
{
    (void)h;
    struct reg *r = ud;
    r->delivered++;
    CHECK(s <= r->level); /* the callback of the level asked for is safe in this context */
    int src = -1;
    MPI_Count ts = -1;
    if (MPI_T_event_get_source(inst, &src) != MPI_SUCCESS || src < 0 || src >= 8 ||
        MPI_T_event_get_timestamp(inst, &ts) != MPI_SUCCESS)
        ts_errors++;
    else if (ts < last_ts[src]) /* per source, as delivered: never decreasing */
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
    if (r->reenter && in_mpi) { /* allowed at NONE: re-enters progress while it drains */
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
}
static void on_dropped(MPI_Count n, MPI_T_event_registration h, int src, MPI_T_cb_safety s,
                       void *ud)
{
    (void)h; (void)src; (void)s;
    ((struct reg *)ud)->dropped += (long)n;
}
static void on_free(MPI_T_event_registration h, MPI_T_cb_safety s, void *ud)
{
    (void)h; (void)s;
    ((struct reg *)ud)->freed++;
}

/* element index of a named element, through the event's enum (toy_mpi names elements) */
static void describe(struct reg *r)
{
    MPI_Datatype dt[16];
    MPI_Aint disp[16];
    int num = 16;
    MPI_T_enum e = MPI_T_ENUM_NULL;
    for (int f = 0; f < NF; f++)
        r->field[f] = -1;
    T_OK(MPI_T_event_get_index(r->event, &r->index));
    T_OK(MPI_T_event_get_info(r->index, NULL, NULL, NULL, dt, disp, &num, &e, NULL, NULL, NULL,
                              NULL));
    CHECK(e != MPI_T_ENUM_NULL);
    int n = 0;
    if (e == MPI_T_ENUM_NULL || MPI_T_enum_get_info(e, &n, NULL, NULL) != MPI_SUCCESS)
        return;
    CHECK_EQ_INT(n, num);
    for (int i = 0; i < n && i < 16; i++) {
        char name[32];
        int len = (int)sizeof name, value = -1;
        T_OK(MPI_T_enum_get_item(e, i, &value, name, &len));
        CHECK_EQ_INT(value, i);
        for (int f = 0; f < NF; f++)
            if (strcmp(name, field_names[f]) == 0) {
                r->field[f] = value;
                r->dtype[f] = dt[value];
            }
    }
}

static void reg_alloc(struct reg *r, const char *event, MPI_Comm comm, MPI_T_cb_safety level)
{
    memset(r, 0, sizeof *r);
    r->event = event;
    r->level = level;
    describe(r);
    T_OK(MPI_T_event_handle_alloc(r->index, &comm, MPI_INFO_NULL, &r->h));
    T_OK(MPI_T_event_set_dropped_handler(r->h, on_dropped));
    T_OK(MPI_T_event_register_callback(r->h, level, MPI_INFO_NULL, r, on_event));
}

/* Free and wait (driving progress) for the free callback; then make sure it ran once. */
static void reg_free_all(struct reg *regs, int n, int with_progress)
{
    for (int i = 0; i < n; i++)
        T_OK(MPI_T_event_handle_free(regs[i].h, &regs[i], on_free));
    for (int spin = 0; spin < 10000 && with_progress; spin++) {
        int done = 1, flag;
        for (int i = 0; i < n; i++)
            done &= regs[i].freed > 0;
        if (done)
            break;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    for (int i = 0; with_progress && i < 100; i++) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    }
    for (int i = 0; i < n; i++) {
        if (regs[i].freed != 1)
            fprintf(stderr, "[rank %d] %s: free callback ran %ld times\n", check_rank,
                    regs[i].event, regs[i].freed);
        CHECK_EQ_INT(regs[i].freed, 1);
        /* a freed handle is invalid */
        CHECK_EQ_INT(MPI_T_event_handle_free(regs[i].h, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    }
}

/* ---------------------------------------------------------------- 2. enums, categories */
static void check_enums_and_categories(void)
{
    int nev = 0, ncat = 0, idx = -1;
    T_OK(MPI_T_event_get_num(&nev));
    T_OK(MPI_T_category_get_num(&ncat));
    /* No fixed number: every category holds events and every type is in exactly one
     * (below), so a category added in events.c needs no change here. */
    CHECK(ncat > 0);
    CHECK_EQ_INT(MPI_T_category_get_num(NULL), MPI_T_ERR_INVALID);
    T_OK(MPI_T_category_get_index("toympi_p2p", &idx));
    CHECK(idx >= 0 && idx < ncat);
    CHECK_EQ_INT(MPI_T_category_get_index("no_such_category", &idx), MPI_T_ERR_INVALID_NAME);
    CHECK_EQ_INT(MPI_T_category_get_index(NULL, &idx), MPI_T_ERR_INVALID);
    CHECK_EQ_INT(MPI_T_category_get_index("toympi_p2p", NULL), MPI_T_ERR_INVALID);

    /* every event type is in exactly one category */
    int total = 0, *seen = calloc((size_t)nev, sizeof *seen);
    for (int c = 0; c < ncat; c++) {
        char name[64], desc[256];
        int nl = (int)sizeof name, dl = (int)sizeof desc, ncv = -1, npv = -1, ncc = -1, k = -1;
        T_OK(MPI_T_category_get_info(c, name, &nl, desc, &dl, &ncv, &npv, &ncc));
        CHECK_EQ_INT(nl, (int)strlen(name) + 1);
        CHECK(dl > 1);
        CHECK(ncv == 0 && npv == 0 && ncc == 0);
        T_OK(MPI_T_category_get_index(name, &k));
        CHECK_EQ_INT(k, c);
        int n = -1;
        T_OK(MPI_T_category_get_num_events(c, &n));
        CHECK(n > 0);
        int *ind = malloc(sizeof(int) * (size_t)(n + 1));
        ind[n] = -7; /* entries past the count are left alone */
        T_OK(MPI_T_category_get_events(c, n + 1, ind));
        CHECK_EQ_INT(ind[n], -7);
        for (int i = 0; i < n; i++)
            if (ind[i] >= 0 && ind[i] < nev)
                seen[ind[i]]++;
        free(ind);
        total += n;
    }
    CHECK_EQ_INT(total, nev);
    for (int i = 0; i < nev; i++)
        CHECK_EQ_INT(seen[i], 1);
    free(seen);
    /* strings: truncation and length queries (MPI-3.1 14.3.3) */
    char small[5] = "xxxx";
    int len = 5;
    T_OK(MPI_T_category_get_info(idx, small, &len, NULL, NULL, NULL, NULL, NULL));
    CHECK(strcmp(small, "toym") == 0);
    CHECK_EQ_INT(len, (int)strlen("toympi_p2p") + 1);
    len = 0;
    T_OK(MPI_T_category_get_info(idx, small, &len, NULL, NULL, NULL, NULL, NULL));
    CHECK_EQ_INT(len, (int)strlen("toympi_p2p") + 1);
    len = -1;
    CHECK_EQ_INT(MPI_T_category_get_info(idx, small, &len, NULL, NULL, NULL, NULL, NULL),
                 MPI_T_ERR_INVALID);
    CHECK_EQ_INT(MPI_T_category_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                 MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                 MPI_T_ERR_INVALID_INDEX);
    int n;
    CHECK_EQ_INT(MPI_T_category_get_num_events(ncat, &n), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_category_get_num_events(idx, NULL), MPI_T_ERR_INVALID);
    CHECK_EQ_INT(MPI_T_category_get_events(-1, 0, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_category_get_events(idx, -1, NULL), MPI_T_ERR_INVALID);
    T_OK(MPI_T_category_get_events(idx, 0, NULL));

    /* enums: one per event type, named "<event>_elements", items = element names */
    for (int i = 0; i < nev; i++) {
        char ename[64], en[96];
        int el = (int)sizeof ename, num = 0, nn = 0, len2 = (int)sizeof en;
        MPI_T_enum e = MPI_T_ENUM_NULL;
        T_OK(MPI_T_event_get_info(i, ename, &el, NULL, NULL, NULL, &num, &e, NULL, NULL, NULL,
                                  NULL));
        CHECK(e != MPI_T_ENUM_NULL);
        T_OK(MPI_T_enum_get_info(e, &nn, en, &len2));
        CHECK_EQ_INT(nn, num);
        char want[96];
        snprintf(want, sizeof want, "%s_elements", ename);
        CHECK(strcmp(en, want) == 0);
        CHECK_EQ_INT(len2, (int)strlen(want) + 1);
        int value;
        CHECK_EQ_INT(MPI_T_enum_get_item(e, nn, &value, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
        CHECK_EQ_INT(MPI_T_enum_get_item(e, -1, &value, NULL, NULL), MPI_T_ERR_INVALID_ITEM);
        CHECK_EQ_INT(MPI_T_enum_get_item(e, 0, NULL, NULL, NULL), MPI_T_ERR_INVALID);
        CHECK_EQ_INT(MPI_T_enum_get_info(e, NULL, NULL, NULL), MPI_T_ERR_INVALID);
    }
    int nn;
    CHECK_EQ_INT(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &nn, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_enum_get_info((MPI_T_enum)(uintptr_t)0x12345678, &nn, NULL, NULL),
                 MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_enum_get_item(MPI_T_ENUM_NULL, 0, &nn, NULL, NULL),
                 MPI_T_ERR_INVALID_INDEX);

    /* sources: the API one and the progress engine, both ordered */
    int nsrc = 0;
    T_OK(MPI_T_source_get_num(&nsrc));
    CHECK_EQ_INT(nsrc, 2);
    for (int s = 0; s < nsrc; s++) {
        char sn[32];
        int sl = (int)sizeof sn;
        MPI_T_source_order order;
        T_OK(MPI_T_source_get_info(s, sn, &sl, NULL, NULL, &order, NULL, NULL, NULL));
        CHECK(strcmp(sn, "toympi_api") == 0 || strcmp(sn, "toympi_progress") == 0);
        CHECK_EQ_INT(order, MPI_T_SOURCE_ORDERED);
    }
}

/* ---------------------------------------------------------------- 3. the pattern */
enum { R_ARRIVED, R_UX_INSERT, R_UX_REMOVE, R_POSTED_INSERT, R_POSTED_REMOVE, R_SPOSTED_END,
       R_SUX_END, R_XFER_BEGIN, R_XFER_END, R_RNDV, R_CANCEL, R_REQFREE, R_COMM_FREE,
       R_SEND_POSTED, R_RECV_POSTED, R_COMPLETE, NREG };
static const char *reg_events[NREG] = {
    "message_arrived", "unexpected_insert", "unexpected_remove", "posted_insert",
    "posted_remove", "search_posted_end", "search_unexpected_end", "transfer_begin",
    "transfer_end", "toympi_rendezvous", "request_cancel", "toympi_request_free", "comm_free",
    "send_posted", "recv_posted", "request_complete"};
/* instances raised for a registration on the dup, by rank (others: only comm_free) */
static const long expect_r0[NREG] = {0, 0, 0, 0, 0, 0, 0, 6, 6, 2, 0, 0, 1, 6, 0, 6};
static const long expect_r1[NREG] = {6, 3, 3, 4, 4, 6, 7, 6, 6, 1, 1, 7, 1, 0, 7, 7};

static const int a_tags[3] = {10, 11, 12}, a_bytes[3] = {100, 200, 300};
static const int b_tags[2] = {20, 21}, b_bytes[2] = {400, 500};

static int count_where(const struct reg *r, int f, int64_t v)
{
    int n = 0;
    for (int i = 0; i < r->nrec; i++)
        n += r->rec[i].v[f] == v;
    return n;
}

static int rank, size;

/* 1. MPI_T before MPI_Init: not initialised, the catalogue's types and the toy's, its
 * two sources; the last MPI_T_finalize takes everything and a new init brings it back.
 * Registrations on MPI_COMM_WORLD's comm_create (pre[0] at MPI_RESTRICTED, pre[1] at
 * NONE), then MPI_Init: pre[0] saw MPI_COMM_WORLD's creation, raised at MPI_RESTRICTED
 * (pre[1]'s NONE callback may not run for it). Returns 0 with fewer than 2 ranks. */
static int init_phase(int *argc, char ***argv, struct reg pre[2])
{
    int provided, nev = 0, nev2 = 0, nsrc = 0;
    CHECK_EQ_INT(MPI_T_event_get_num(&nev), MPI_T_ERR_NOT_INITIALIZED);
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    T_OK(MPI_T_event_get_num(&nev));
    /* exactly the types of TOYMPI_EVENTS, each found by name at its place in the list: a
     * type in the list that events.c does not declare, or one declared outside it, fails */
    CHECK_EQ_INT(nev, TOYMPI_EV_NUM_TYPES);
    for (int i = 0; i < TOYMPI_EV_NUM_TYPES; i++) {
        int idx = -1, rc = MPI_T_event_get_index(toy_events[i], &idx);
        if (rc != MPI_SUCCESS || idx != i)
            fprintf(stderr, "event type %s (entry %d of TOYMPI_EVENTS): %s\n", toy_events[i], i,
                    rc != MPI_SUCCESS ? "not declared" : "declared out of list order");
        CHECK_EQ_INT(rc, MPI_SUCCESS);
        CHECK_EQ_INT(idx, i);
    }
    T_OK(MPI_T_source_get_num(&nsrc));
    CHECK_EQ_INT(nsrc, 2);
    T_OK(MPI_T_finalize()); /* the last one: everything goes, and comes back */
    int nn;
    CHECK_EQ_INT(MPI_T_category_get_num(&nn), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_EQ_INT(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &nn, NULL, NULL), MPI_T_ERR_NOT_INITIALIZED);
    T_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    T_OK(MPI_T_event_get_num(&nev2));
    CHECK_EQ_INT(nev2, nev);

    /* comm_create on MPI_COMM_WORLD: raised in MPI_Init for itself, and for the dup of
     * phase 3 (creation is bound to the parent) */
    reg_alloc(&pre[0], "comm_create", MPI_COMM_WORLD, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    reg_alloc(&pre[1], "comm_create", MPI_COMM_WORLD, MPI_T_CB_REQUIRE_NONE);

    rank = check_init(argc, argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    in_mpi = 1;
    if (size < 2)
        return 0;
    CHECK_EQ_INT(pre[0].delivered, 1);
    CHECK_EQ_INT(pre[0].rec[0].v[F_SIZE], size);
    CHECK_EQ_INT(pre[0].rec[0].v[F_RANK], rank);
    CHECK_EQ_INT(pre[0].rec[0].v[F_KEY], 1); /* the catalogue's key of MPI_COMM_WORLD */
    CHECK_EQ_INT(pre[0].rec[0].v[F_PARENT_KEY], 0);
    CHECK_EQ_INT(pre[1].delivered, 0); /* raised at MPI_RESTRICTED: a NONE callback may not run */
    return 1;
}

/* 3. The pattern on dup, rank 0 -> rank 1: A, three messages that arrive before rank 1
 * posts receives; B, two after; C, a rendezvous message truncated on purpose; a
 * cancelled receive; D, the same tags on MPI_COMM_WORLD. */
static void pattern_traffic(MPI_Comm dup)
{
    static char sbuf[BIG], rbuf[BIG];
    MPI_Request req[8];
    if (rank == 0) {
        for (int i = 0; i < 3; i++) /* A: arrive before rank 1 posts receives */
            MPI_Send(sbuf, a_bytes[i], MPI_BYTE, 1, a_tags[i], dup);
        MPI_Barrier(MPI_COMM_WORLD); /* FIFO: rank 1 has read A when it leaves */
        MPI_Barrier(MPI_COMM_WORLD); /* rank 1 has posted B, C */
        for (int i = 0; i < 2; i++)  /* B: posted path */
            MPI_Send(sbuf, b_bytes[i], MPI_BYTE, 1, b_tags[i], dup);
        MPI_Send(sbuf, BIG, MPI_BYTE, 1, 30, dup); /* C: rendezvous */
        for (int t = 10; t <= 30; t += 10)         /* D: MPI_COMM_WORLD, same tags */
            MPI_Send(sbuf, 7, MPI_BYTE, 1, t, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < 2; i++)
            MPI_Irecv(rbuf + 1000 * i, b_bytes[i], MPI_BYTE, 0, b_tags[i], dup, &req[i]);
        MPI_Irecv(rbuf + 4096, BIG - 4096, MPI_BYTE, 0, 30, dup, &req[2]); /* 65536 > room */
        MPI_Request c;
        MPI_Status st;
        int cancelled = 0;
        MPI_Irecv(rbuf, 1, MPI_BYTE, 0, 99, dup, &c);
        MPI_Cancel(&c);
        MPI_Wait(&c, &st);
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(cancelled);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < 3; i++)
            MPI_Irecv(rbuf + 2000 + 300 * i, a_bytes[i], MPI_BYTE, 0, a_tags[i], dup, &req[3 + i]);
        MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN); /* C is truncated on purpose */
        MPI_Waitall(6, req, MPI_STATUSES_IGNORE);
        for (int t = 10; t <= 30; t += 10)
            MPI_Recv(rbuf, 7, MPI_BYTE, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Every registration's delivered + dropped = raised (expect_r0, expect_r1; the other
 * ranks: comm_free only), none dropped; pre as init_phase left it, after the dup. */
static void check_counts(const struct reg *regs, const struct reg pre[2])
{
    const long *expect = rank == 0 ? expect_r0 : rank == 1 ? expect_r1 : NULL;
    for (int i = 0; i < NREG; i++) {
        long want = expect ? expect[i] : (i == R_COMM_FREE);
        if (regs[i].delivered + regs[i].dropped != want || regs[i].dropped)
            fprintf(stderr, "[rank %d] %s: %ld delivered + %ld dropped, %ld raised\n", rank,
                    regs[i].event, regs[i].delivered, regs[i].dropped, want);
        CHECK_EQ_INT(regs[i].delivered + regs[i].dropped, want);
        CHECK_EQ_INT(regs[i].dropped, 0); /* a big enough buffer and a safe drain level */
    }
    CHECK_EQ_INT(pre[0].delivered + pre[0].dropped, 2); /* MPI_COMM_WORLD's and the dup's */
    CHECK_EQ_INT(pre[1].delivered + pre[1].dropped, 2);
    CHECK_EQ_INT(pre[1].dropped, 1); /* MPI_Init's, raised at MPI_RESTRICTED */
    CHECK_EQ_INT(ts_errors, 0);
    const struct reg *cf = &regs[R_COMM_FREE];
    if (cf->nrec && pre[0].nrec == 2) { /* the dup's creation, seen on its parent, and free */
        CHECK(cf->rec[0].v[F_KEY] > 2);
        CHECK_EQ_INT(cf->rec[0].v[F_PARENT_KEY], 1);
        CHECK_EQ_INT(cf->rec[0].v[F_SIZE], size);
        CHECK_EQ_INT(cf->rec[0].v[F_RANK], rank);
        CHECK_EQ_INT(pre[0].rec[1].v[F_KEY], cf->rec[0].v[F_KEY]);
        CHECK_EQ_INT(pre[0].rec[1].v[F_PARENT_KEY], 1);
        CHECK_EQ_INT(pre[0].rec[1].v[F_SIZE], size);
    }
}

/* The receiver's payloads (rank 1). */
static void check_receiver(const struct reg *regs, const struct reg *world_arrived)
{
    const struct reg *a = &regs[R_ARRIVED];
    static const int tags[6] = {10, 11, 12, 20, 21, 30};
    static const int bytes[6] = {100, 200, 300, 400, 500, BIG};
    for (int i = 0; i < a->nrec && i < 6; i++) {
        CHECK_EQ_INT(a->rec[i].v[F_SOURCE], 0);
        CHECK_EQ_INT(a->rec[i].v[F_TAG], tags[i]);
        CHECK_EQ_INT(a->rec[i].v[F_BYTES], bytes[i]);
        if (i)
            CHECK(a->rec[i].v[F_SEQ] > a->rec[i - 1].v[F_SEQ]);
    }
    for (int i = 0; i < regs[R_UX_INSERT].nrec && i < 3; i++) {
        CHECK_EQ_INT(regs[R_UX_INSERT].rec[i].v[F_TAG], a_tags[i]);
        CHECK_EQ_INT(regs[R_UX_INSERT].rec[i].v[F_BYTES], a_bytes[i]);
        CHECK(regs[R_UX_INSERT].rec[i].v[F_SEQ] == a->rec[i].v[F_SEQ]);
    }
    CHECK_EQ_INT(count_where(&regs[R_SPOSTED_END], F_FOUND, 0), 3);
    CHECK_EQ_INT(count_where(&regs[R_SPOSTED_END], F_FOUND, 1), 3);
    CHECK_EQ_INT(count_where(&regs[R_SUX_END], F_FOUND, 1), 3);
    CHECK_EQ_INT(count_where(&regs[R_XFER_END], F_IS_SEND, 0), 6);
    CHECK_EQ_INT(count_where(&regs[R_XFER_END], F_PEER, 0), 6);
    CHECK_EQ_INT(count_where(&regs[R_XFER_END], F_BYTES, BIG - 4096), 1); /* truncated */
    CHECK_EQ_INT(count_where(&regs[R_RNDV], F_STEP, 1), 1);
    CHECK_EQ_INT(count_where(&regs[R_CANCEL], F_CANCELLED, 1), 1);
    CHECK_EQ_INT(count_where(&regs[R_CANCEL], F_TAG, 99), 1);
    CHECK_EQ_INT(count_where(&regs[R_REQFREE], F_IS_SEND, 0), 7);
    /* recv_posted: the pattern and capacity; request_complete: what was received */
    CHECK_EQ_INT(count_where(&regs[R_RECV_POSTED], F_BYTES, BIG - 4096), 1);
    CHECK_EQ_INT(count_where(&regs[R_RECV_POSTED], F_PEER, 0), 7);
    CHECK_EQ_INT(count_where(&regs[R_COMPLETE], F_BYTES, 0), 1); /* the cancelled one */
    CHECK_EQ_INT(count_where(&regs[R_COMPLETE], F_BYTES, 300), 1);
    CHECK_EQ_INT(count_where(&regs[R_COMPLETE], F_IS_SEND, 0), 7);
    /* MPI_COMM_WORLD's registration got phase D (7 bytes), the dup's did not */
    CHECK_EQ_INT(count_where(world_arrived, F_BYTES, 7), 3);
    CHECK_EQ_INT(count_where(a, F_BYTES, 7), 0);
}

/* The sender's payloads (rank 0). */
static void check_sender(const struct reg *regs)
{
    CHECK_EQ_INT(count_where(&regs[R_XFER_BEGIN], F_IS_SEND, 1), 6);
    CHECK_EQ_INT(count_where(&regs[R_XFER_END], F_PEER, 1), 6);
    CHECK_EQ_INT(count_where(&regs[R_XFER_END], F_BYTES, BIG), 1);
    CHECK_EQ_INT(count_where(&regs[R_RNDV], F_STEP, 0), 1);
    CHECK_EQ_INT(count_where(&regs[R_RNDV], F_STEP, 2), 1);
    CHECK_EQ_INT(count_where(&regs[R_RNDV], F_TAG, 30), 2);
    CHECK_EQ_INT(count_where(&regs[R_SEND_POSTED], F_BYTES, BIG), 1);
    CHECK_EQ_INT(count_where(&regs[R_SEND_POSTED], F_PEER, 1), 6);
    CHECK_EQ_INT(count_where(&regs[R_COMPLETE], F_IS_SEND, 1), 6);
}

int main(int argc, char **argv)
{
    struct reg pre[2];
    if (!init_phase(&argc, &argv, pre)) { /* 1 */
        if (rank == 0)
            printf("test_events: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    check_enums_and_categories(); /* 2 */

    /* 3: registrations on a dup (message_arrived at NONE, re-entering MPI; the others
     * at MPI_RESTRICTED and ASYNC_SIGNAL_SAFE in turn) and on MPI_COMM_WORLD */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    struct reg regs[NREG], world_arrived;
    for (int i = 0; i < NREG; i++)
        reg_alloc(&regs[i], reg_events[i], dup,
                  i == R_ARRIVED ? MPI_T_CB_REQUIRE_NONE
                  : i % 2        ? MPI_T_CB_REQUIRE_MPI_RESTRICTED
                                 : MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    regs[R_ARRIVED].reenter = 1;
    reg_alloc(&world_arrived, "message_arrived", MPI_COMM_WORLD,
              MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
    MPI_Comm null = MPI_COMM_NULL;
    MPI_T_event_registration bad;
    CHECK_EQ_INT(MPI_T_event_handle_alloc(regs[0].index, &null, MPI_INFO_NULL, &bad),
                 MPI_T_ERR_INVALID_HANDLE);
    MPI_Barrier(MPI_COMM_WORLD); /* everyone registered */
    pattern_traffic(dup);
    MPI_Comm dup_handle = dup;
    MPI_Comm_free(&dup);
    CHECK_EQ_INT(MPI_T_event_handle_alloc(regs[0].index, &dup_handle, MPI_INFO_NULL, &bad),
                 MPI_T_ERR_INVALID_HANDLE);

    /* free everything (the free callbacks may wait for progress), then check */
    reg_free_all(regs, NREG, 1);
    reg_free_all(&world_arrived, 1, 1);
    reg_free_all(pre, 2, 1);
    check_counts(regs, pre);
    if (rank == 1)
        check_receiver(regs, &world_arrived);
    if (rank == 0)
        check_sender(regs);
    in_mpi = 0;
    int nev;
    T_OK(MPI_T_finalize());
    CHECK_EQ_INT(MPI_T_event_get_num(&nev), MPI_T_ERR_NOT_INITIALIZED);
    return check_finish("test_events");
}
